// RUN: ms-opt %s --msmlir-outline-mpi | filecheck %s
// RUN: ms-opt %s --msmlir-outline-mpi --msmlir-materialize-mpi | filecheck %s --check-prefix=BODY

// mpi ops on buffers leave the function (the deallocation passes reject
// them) as calls of declarations; an in-place buffer stays one argument.
// CHECK-LABEL: func.func private @msmlir_shard_mpi_0(memref<8xf32>, !mpi.comm)
// CHECK-SAME:      msmlir.mpi_attrs = {op = 3 : i32}, msmlir.mpi_op = "mpi.allreduce", msmlir.mpi_operands = array<i64: 0, 0, 1>
// CHECK-LABEL: func.func @f
// CHECK:         %[[W:.*]] = mpi.comm_world
// CHECK:         call @msmlir_shard_mpi_0(%arg0, %[[W]]) : (memref<8xf32>, !mpi.comm) -> ()
// CHECK-NOT:     mpi.allreduce
// BODY-LABEL: func.func private @msmlir_shard_mpi_0(
// BODY-SAME:      %[[A:.*]]: memref<8xf32>, %[[C:.*]]: !mpi.comm) {
// BODY:         mpi.allreduce(%[[A]], %[[A]], MPI_SUM, %[[C]]) : memref<8xf32>, memref<8xf32>
// BODY:         return
// BODY-NOT:     msmlir.mpi_op
func.func @f(%b: memref<8xf32>) {
  %w = mpi.comm_world : !mpi.comm
  mpi.allreduce(%b, %b, MPI_SUM, %w) : memref<8xf32>, memref<8xf32>
  return
}
