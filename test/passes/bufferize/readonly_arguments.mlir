// RUN: ms-opt %s --msmlir-readonly-arguments | FileCheck %s
// RUN: ms-opt %s --msmlir-readonly-arguments --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// Public functions' tensor arguments become non-writable (other argument
// attributes kept); private functions and non-tensor arguments are left alone.
// CHECK-LABEL: func.func @acc(
// CHECK-SAME:    %arg0: tensor<4xf32> {bufferization.writable = false, test.kept},
// CHECK-SAME:    %arg1: index)
// CHECK-LABEL: func.func private @helper(%arg0: tensor<4xf32>)

// A write into the argument goes to a new buffer, not into the caller's array.
// BUF-LABEL: func.func @acc(
// BUF:         %[[NEW:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// BUF:         memref.copy %arg0, %[[NEW]]
// BUF:         memref.store %{{.*}}, %[[NEW]][%arg1]
func.func @acc(%t: tensor<4xf32> {test.kept}, %i: index) -> tensor<4xf32> {
  %c = arith.constant 1.0 : f32
  %r = tensor.insert %c into %t[%i] : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func private @helper(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}
