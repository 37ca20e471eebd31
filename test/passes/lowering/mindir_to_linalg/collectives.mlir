// RUN: ms-opt %s --convert-mindir-to-linalg | FileCheck %s
// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-cpu-pipeline)" | FileCheck %s --check-prefix=LLVM

// Collectives become calls of MPI helper functions on 1-D buffers (declared
// here, given their bodies after bufferization by
// msmlir-materialize-collectives): all_reduce -> MPI_Allreduce (the `mpi`
// dialect), all_gather -> MPI_Allgather, reduce_scatter ->
// MPI_Reduce_scatter_block, broadcast -> MPI_Bcast (direct calls: the pinned
// `mpi` dialect has no such ops). No zero padding, no rank arithmetic.

// CHECK-DAG: func.func private @msmlir_mpi_allreduce_max_12xf32(memref<12xf32>, memref<12xf32>) attributes {msmlir.mpi = "allreduce_max"}
// CHECK-DAG: func.func private @msmlir_mpi_allgather_12xf32(memref<12xf32>, memref<24xf32>) attributes {msmlir.mpi = "allgather"}
// CHECK-DAG: func.func private @msmlir_mpi_reduce_scatter_sum_24xf32(memref<24xf32>, memref<12xf32>) attributes {msmlir.mpi = "reduce_scatter_sum"}
// CHECK-DAG: func.func private @msmlir_mpi_bcast_root1_12xi32(memref<12xi32>, memref<12xi32>) attributes {msmlir.mpi = "bcast_1"}
// CHECK-NOT: msmlir_mpi_rank
// CHECK-LABEL: func.func @f
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x3xf32> into tensor<12xf32>
// CHECK:         %[[SEND:.*]] = bufferization.to_buffer %[[FLAT]] read_only
// CHECK:         %[[RECV:.*]] = memref.alloc() : memref<12xf32>
// CHECK:         call @msmlir_mpi_allreduce_max_12xf32(%[[SEND]], %[[RECV]])
// CHECK:         %[[GR:.*]] = memref.alloc() : memref<24xf32>
// CHECK:         call @msmlir_mpi_allgather_12xf32(%{{.*}}, %[[GR]])
// CHECK:         %[[G:.*]] = bufferization.to_tensor %[[GR]] restrict writable : memref<24xf32> to tensor<24xf32>
// CHECK:         tensor.expand_shape %[[G]] {{\[\[}}0, 1]] output_shape [8, 3] : tensor<24xf32> into tensor<8x3xf32>
// CHECK:         %[[SR:.*]] = memref.alloc() : memref<12xf32>
// CHECK:         call @msmlir_mpi_reduce_scatter_sum_24xf32(%{{.*}}, %[[SR]])
// CHECK:         call @msmlir_mpi_bcast_root1_12xi32(

// LLVM: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// LLVM-DAG: llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// LLVM-DAG: llvm.func @MPI_Allgather(!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> i32
// LLVM-DAG: llvm.func @MPI_Reduce_scatter_block(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// LLVM-DAG: llvm.func @MPI_Bcast(!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr) -> i32
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_int32_t() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_datatype_t", opaque>
// LLVM-NOT: MPI_Comm_rank
// LLVM: llvm.func @msmlir_mpi_bcast_root1_12xi32
// LLVM:   "llvm.intr.memcpy"
// LLVM:   llvm.call @MPI_Bcast(
// LLVM: llvm.func @msmlir_mpi_reduce_scatter_sum_24xf32
// LLVM:   llvm.mlir.addressof @ompi_mpi_op_sum
// LLVM:   llvm.call @MPI_Reduce_scatter_block(
// LLVM: llvm.func @msmlir_mpi_allgather_12xf32
// LLVM:   llvm.call @MPI_Allgather(
// LLVM: llvm.func @msmlir_mpi_allreduce_max_12xf32
// LLVM:   llvm.mlir.addressof @ompi_mpi_max
// LLVM:   llvm.call @MPI_Allreduce
func.func @f(%x: tensor<4x3xf32>, %i: tensor<4x3xi32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xi32>) {
  %m = mindir.all_reduce %x {op = #mindir.reduce_op<max>} : tensor<4x3xf32>
  %g = mindir.all_gather %m {group_size = 2 : i64} : tensor<4x3xf32> -> tensor<8x3xf32>
  %s = mindir.reduce_scatter %g {group_size = 2 : i64} : tensor<8x3xf32> -> tensor<4x3xf32>
  %b = mindir.broadcast %i {root = 1 : i64} : tensor<4x3xi32>
  return %m, %s, %b : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xi32>
}
