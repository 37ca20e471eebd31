// RUN: ms-opt %s --split-input-file --verify-diagnostics --mindir-embed-parameters | FileCheck %s

// Arguments carrying msmlir.embed_value become constants and leave the signature;
// the others keep their position and attributes.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32> {foo.keep}) -> tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = mindir.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[M:.*]] = mindir.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[P:.*]] = mindir.mul %[[X]], %[[W]]
// CHECK: mindir.select %[[M]], %[[P]], %[[X]]
func.func @step(%x: tensor<2xf32> {foo.keep},
                %w: tensor<2xf32> {msmlir.embed_value = dense<[1.0, 2.0]> : tensor<2xf32>},
                %m: tensor<2xi1> {msmlir.embed_value = dense<[true, false]> : tensor<2xi1>})
    -> tensor<2xf32> {
  %p = mindir.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = mindir.select %m, %p, %x : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Without the attribute nothing changes.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<f32>) -> tensor<f32>
// CHECK-NOT: mindir.constant
func.func @plain(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{argument 0 of @wrong_type has type tensor<2xf32>, but its msmlir.embed_value has type tensor<3xf32>}}
func.func @wrong_type(%w: tensor<2xf32> {msmlir.embed_value = dense<1.0> : tensor<3xf32>}) -> tensor<2xf32> {
  return %w : tensor<2xf32>
}

// -----

// expected-error @+1 {{cannot embed the arguments of @callee: it is called in the module}}
func.func @callee(%w: tensor<f32> {msmlir.embed_value = dense<1.0> : tensor<f32>}) -> tensor<f32> {
  return %w : tensor<f32>
}
func.func @caller(%x: tensor<f32>) -> tensor<f32> {
  %r = func.call @callee(%x) : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
