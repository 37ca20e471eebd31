// RUN: ms-opt %s --inline --symbol-dce --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --msmlir-materialize-collectives | FileCheck %s

// all_to_all as python/msmlir/ops/comm.py emits it (the exchange function of
// mindir_to_linalg/collectives.py: define_alltoall): after autodiff the
// inliner folds the exchange into its caller and the unused bprop is
// dropped; bufferization leaves the helper call on the caller's buffers and
// msmlir-materialize-collectives gives the helper its MPI_Alltoall body.

// CHECK-NOT: func.func private @msmlir_alltoall_2_8xf32
// CHECK-LABEL: func.func @step(%arg0: memref<8xf32>) -> memref<8xf32> {
// CHECK:         %[[R:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    call @msmlir_mpi_alltoall_2_8xf32(%arg0, %[[R]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    return %[[R]] : memref<8xf32>
// CHECK-LABEL: func.func private @msmlir_mpi_alltoall_2_8xf32(%arg0: memref<8xf32>, %arg1: memref<8xf32>) {
// CHECK:         %[[N:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         llvm.call @MPI_Alltoall(%{{.*}}, %[[N]], %{{.*}}, %{{.*}}, %[[N]], %{{.*}}, %{{.*}})
func.func @step(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = func.call @msmlir_alltoall_2_8xf32(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func private @msmlir_alltoall_2_8xf32_bprop(%x: tensor<8xf32>, %y: tensor<8xf32>, %dy: tensor<8xf32>) -> tensor<8xf32> {
  %dx = func.call @msmlir_alltoall_2_8xf32(%dy) : (tensor<8xf32>) -> tensor<8xf32>
  return %dx : tensor<8xf32>
}
func.func private @msmlir_alltoall_2_8xf32(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mindir.bprop = @msmlir_alltoall_2_8xf32_bprop} {
  %s = bufferization.to_buffer %x read_only : tensor<8xf32> to memref<8xf32>
  %r = memref.alloc() : memref<8xf32>
  func.call @msmlir_mpi_alltoall_2_8xf32(%s, %r) : (memref<8xf32>, memref<8xf32>) -> ()
  %y = bufferization.to_tensor %r restrict writable : memref<8xf32> to tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func private @msmlir_mpi_alltoall_2_8xf32(memref<8xf32>, memref<8xf32>) attributes {msmlir.mpi = "alltoall_2"}
