// RUN: ms-opt %s --convert-mindir-to-linalg | FileCheck %s
// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-cpu-pipeline)" | FileCheck %s --check-prefix=LLVM

// A collective of a group made by msmlir.communication.create_group (its
// `group` attribute) calls helpers of that group: the same MPI calls on the
// group's communicator, which the compiled code loads from the external
// global @msmlir_mpi_group_<name> that the runtime's linker binds to the
// group's cell (runtime/mpi.py).
// Names other than [A-Za-z0-9] are encoded byte-wise ("0-1" -> 0_2d1).

// CHECK-DAG: func.func private @msmlir_mpi_allgather_4xf32_g0(memref<4xf32>, memref<8xf32>) attributes {msmlir.mpi = "allgather", msmlir.mpi_group = "g0"}
// CHECK-DAG: func.func private @msmlir_mpi_allreduce_max_4xf32_0_2d1(memref<4xf32>, memref<4xf32>) attributes {msmlir.mpi = "allreduce_max", msmlir.mpi_group = "0-1"}
// CHECK-DAG: func.func private @msmlir_mpi_allreduce_sum_4xf32(memref<4xf32>, memref<4xf32>) attributes {msmlir.mpi = "allreduce_sum"}
// CHECK-LABEL: func.func @f
// CHECK:         call @msmlir_mpi_allgather_4xf32_g0
// CHECK:         call @msmlir_mpi_allreduce_max_4xf32_0_2d1
// CHECK:         call @msmlir_mpi_allreduce_sum_4xf32(

// LLVM-DAG: llvm.mlir.global external @msmlir_mpi_group_g0() {addr_space = 0 : i32} : i64
// LLVM-DAG: llvm.mlir.global external @msmlir_mpi_group_0_2d1() {addr_space = 0 : i32} : i64
// LLVM-LABEL: llvm.func @msmlir_mpi_allreduce_max_4xf32_0_2d1
// LLVM:         %[[A:.*]] = llvm.mlir.addressof @msmlir_mpi_group_0_2d1 : !llvm.ptr
// LLVM:         %[[H:.*]] = llvm.load %[[A]] : !llvm.ptr -> i64
// LLVM:         %[[C:.*]] = llvm.inttoptr %[[H]] : i64 to !llvm.ptr
// LLVM:         llvm.call @MPI_Allreduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C]])
// LLVM-LABEL: llvm.func @msmlir_mpi_allgather_4xf32_g0
// LLVM:         %[[A2:.*]] = llvm.mlir.addressof @msmlir_mpi_group_g0 : !llvm.ptr
// LLVM:         %[[H2:.*]] = llvm.load %[[A2]] : !llvm.ptr -> i64
// LLVM:         %[[C2:.*]] = llvm.inttoptr %[[H2]] : i64 to !llvm.ptr
// LLVM:         llvm.call @MPI_Allgather(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C2]])
// LLVM-NOT:     MPI_Comm_split
func.func @f(%x: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) {
  %g = mindir.all_gather %x {group = "g0", group_size = 2 : i64} : tensor<4xf32> -> tensor<8xf32>
  %m = mindir.all_reduce %x {group = "0-1", op = #mindir.reduce_op<max>} : tensor<4xf32>
  %w = mindir.all_reduce %x {op = #mindir.reduce_op<sum>} : tensor<4xf32>
  return %g, %m, %w : tensor<8xf32>, tensor<4xf32>, tensor<4xf32>
}

// A 0-d tensor goes to MPI as a 1-element buffer (it was an invalid collapse_shape).
// CHECK-LABEL: func.func @scalar
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:         call @msmlir_mpi_allreduce_sum_1xf32_g0
// CHECK:         tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  %s = mindir.all_reduce %x {group = "g0", op = #mindir.reduce_op<sum>} : tensor<f32>
  return %s : tensor<f32>
}
