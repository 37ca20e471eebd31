// RUN: ms-opt %s --msmlir-materialize-mpi | filecheck %s

// The declaration msmlir-outline-mpi left gets its op back as body;
// msmlir.mpi_operands maps the op's operands to the arguments (one buffer
// passed twice: in place).
// CHECK-LABEL: func.func private @msmlir_shard_mpi_0(
// CHECK-SAME:      %[[A:.*]]: memref<8xf32>, %[[C:.*]]: !mpi.comm) {
// CHECK-NEXT:    mpi.allreduce(%[[A]], %[[A]], MPI_MAX, %[[C]]) : memref<8xf32>, memref<8xf32>
// CHECK-NEXT:    return
// CHECK-NOT:   msmlir.mpi
func.func private @msmlir_shard_mpi_0(memref<8xf32>, !mpi.comm)
    attributes {msmlir.mpi_op = "mpi.allreduce", msmlir.mpi_attrs = {op = 1 : i32},
                msmlir.mpi_operands = array<i64: 0, 0, 1>}
func.func @f(%b: memref<8xf32>) {
  %w = mpi.comm_world : !mpi.comm
  call @msmlir_shard_mpi_0(%b, %w) : (memref<8xf32>, !mpi.comm) -> ()
  return
}
