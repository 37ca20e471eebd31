// Result-type inference through the C API (the path the Python frontend
// uses): ops built without result types and without their default-valued
// attributes, and inference errors raised as Python exceptions.
// RUN: %python %S/Inputs/infer_from_python.py | FileCheck %s

// CHECK-LABEL: func.func @infer
// CHECK: mindir.reduce_sum %arg0 : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: mindir.reduce_mean %arg0 {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK: mindir.add %arg0, %arg1 : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: mindir.conv2d %arg2, %arg3 : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
// CHECK: mindir.max_pool2d %arg2 {kernel_size = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
// CHECK: mindir.argmax %arg0 : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
// CHECK: mindir.layer_norm %arg0, %arg1, %arg1 : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
// CHECK: mindir.split %arg4 {output_num = 3 : i64} : (tensor<6x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)

// CHECK: error: {{.*}}shapes [2, 3] and [4] cannot be broadcast together
// CHECK: error: {{.*}}operand must be a statically shaped tensor, got 'tensor<?xf32>'
// CHECK: error: {{.*}}cannot reshape [2, 3] (6 elements) to [4, -1]
