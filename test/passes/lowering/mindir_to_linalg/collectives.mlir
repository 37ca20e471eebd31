// RUN: ms-opt %s --convert-mindir-to-linalg | FileCheck %s
// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-cpu-pipeline)" | FileCheck %s --check-prefix=LLVM

// Collectives become calls of MPI helper functions on 1-D buffers (declared
// here, given their `mpi` dialect bodies after bufferization by
// msmlir-materialize-collectives); all_gather places x at the rank's slice of
// zeros and sums; reduce_scatter keeps the rank's slice of the sum.

// CHECK-DAG: func.func private @msmlir_mpi_rank() -> i32 attributes {msmlir.mpi = "rank"}
// CHECK-DAG: func.func private @msmlir_mpi_allreduce_max_12xf32(memref<12xf32>, memref<12xf32>) attributes {msmlir.mpi = "allreduce_max"}
// CHECK-DAG: func.func private @msmlir_mpi_allreduce_sum_24xf32(memref<24xf32>, memref<24xf32>) attributes {msmlir.mpi = "allreduce_sum"}
// CHECK-LABEL: func.func @f
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x3xf32> into tensor<12xf32>
// CHECK:         %[[SEND:.*]] = bufferization.to_buffer %[[FLAT]] read_only
// CHECK:         %[[RECV:.*]] = memref.alloc() : memref<12xf32>
// CHECK:         call @msmlir_mpi_allreduce_max_12xf32(%[[SEND]], %[[RECV]])
// CHECK:         %[[R:.*]] = call @msmlir_mpi_rank() : () -> i32
// CHECK:         %[[RI:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK:         %[[OFF:.*]] = arith.muli %[[RI]], %c4
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[%[[OFF]], 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<8x3xf32>
// CHECK:         call @msmlir_mpi_allreduce_sum_24xf32
// CHECK:         call @msmlir_mpi_allreduce_sum_24xf32
// CHECK:         tensor.extract_slice %{{.*}}[%{{.*}}, 0] [4, 3] [1, 1] : tensor<8x3xf32> to tensor<4x3xf32>

// LLVM: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// LLVM-DAG: llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// LLVM-DAG: llvm.func @MPI_Comm_rank(!llvm.ptr, !llvm.ptr) -> i32
// LLVM: llvm.func @msmlir_mpi_allreduce_max_12xf32
// LLVM:   llvm.mlir.addressof @ompi_mpi_max
// LLVM:   llvm.call @MPI_Allreduce
func.func @f(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %m = mindir.all_reduce %x {op = #mindir.reduce_op<max>} : tensor<4x3xf32>
  %g = mindir.all_gather %m {group_size = 2 : i64} : tensor<4x3xf32> -> tensor<8x3xf32>
  %s = mindir.reduce_scatter %g {group_size = 2 : i64} : tensor<8x3xf32> -> tensor<4x3xf32>
  return %m, %s : tensor<4x3xf32>, tensor<4x3xf32>
}
