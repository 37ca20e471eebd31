// RUN: ms-opt %s --msmlir-cpu-pipeline | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-pipeline=inline-kernels=true | FileCheck %s --check-prefix=INLINE

// inline-kernels=false (the default): each kernel stays a function of its own
// down to the LLVM dialect, called from the host function, which passes its
// own out-parameter to the kernel computing a returned result (no temporary
// and copy, msmlir-forward-call-outputs). inline-kernels=true: one function.

// CHECK-LABEL: llvm.func @f(
// CHECK-NOT:     llvm.call @malloc
// CHECK:         llvm.call @[[K1:cpu_[a-z_0-9]+]](
// CHECK:         llvm.call @[[K2:cpu_[a-z_0-9]+]](
// CHECK-NOT:     llvm.call @malloc
// CHECK:         llvm.return
// CHECK-DAG:   llvm.func @[[K1]](
// CHECK-DAG:   llvm.func @[[K2]](

// INLINE-LABEL: llvm.func @f(
// INLINE-NOT:     llvm.call @cpu_
// INLINE-NOT:   llvm.func @cpu_
func.func @f(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> (tensor<64x32xf32>, tensor<64x128xf32>) {
  %m = mindir.matmul %x, %w : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %s = mindir.softmax %x {axis = -1 : i64} : tensor<64x128xf32>
  return %m, %s : tensor<64x32xf32>, tensor<64x128xf32>
}
