// RUN: ms-opt %s --msmlir-mpi-world-comm --verify-diagnostics

func.func @subgrid(%b: memref<8xf32>, %color: i32, %key: i32) {
  %w = mpi.comm_world : !mpi.comm
  // expected-error @+1 {{mpi.comm_split of a sub-grid}}
  %c = mpi.comm_split(%w, %color, %key) : !mpi.comm
  mpi.allreduce(%b, %b, MPI_SUM, %c) : memref<8xf32>, memref<8xf32>
  return
}
