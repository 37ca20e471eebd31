// RUN: ms-opt %s --msmlir-mpi-world-comm | filecheck %s

// The communicator convert-shard-to-mpi splits off the world for a 1-D grid
// over every rank is the world (and MLIR 22 would truncate it to an i32).
// CHECK-LABEL: func.func @f
// CHECK:         %[[W:.*]] = mpi.comm_world : !mpi.comm
// CHECK-NOT:     mpi.comm_split
// CHECK:         mpi.allreduce(%arg0, %arg0, MPI_SUM, %[[W]])
func.func @f(%b: memref<8xf32>, %key: i32) {
  %c0 = arith.constant 0 : i32
  %w = mpi.comm_world : !mpi.comm
  %c = mpi.comm_split(%w, %c0, %key) : !mpi.comm
  mpi.allreduce(%b, %b, MPI_SUM, %c) : memref<8xf32>, memref<8xf32>
  return
}
