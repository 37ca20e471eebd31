// mindir-expand-composites: each composite op becomes the basic ops of its
// lowering's formula (reduce_* with keep_dims, broadcasting elementwise ops,
// reshape, cast); `ops=` restricts which ops expand.
// RUN: ms-opt %s --mindir-expand-composites | FileCheck %s
// RUN: ms-opt %s --mindir-expand-composites="ops=softmax,mindir.gelu" | FileCheck %s --check-prefix=ONLY
// RUN: not ms-opt %s --mindir-expand-composites="ops=softmax,nope" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: mindir-expand-composites: no expander for nope (expandable: batch_norm, bias_add,

// CHECK-LABEL: func.func @softmax
// CHECK-NOT: mindir.softmax
// CHECK: %[[M:.*]] = mindir.reduce_max %arg0 {axes = array<i64: 0>, keep_dims = true} : (tensor<4x10xf32>) -> tensor<1x10xf32>
// CHECK: %[[D:.*]] = mindir.sub %arg0, %[[M]] : (tensor<4x10xf32>, tensor<1x10xf32>) -> tensor<4x10xf32>
// CHECK: %[[E:.*]] = mindir.exp %[[D]] : tensor<4x10xf32>
// CHECK: %[[S:.*]] = mindir.reduce_sum %[[E]] {axes = array<i64: 0>, keep_dims = true}
// CHECK: %[[Y:.*]] = mindir.div %[[E]], %[[S]] : (tensor<4x10xf32>, tensor<1x10xf32>) -> tensor<4x10xf32>
// CHECK: return %[[Y]]
// ONLY-LABEL: func.func @softmax
// ONLY-NOT: mindir.softmax
// ONLY: mindir.reduce_max
func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %y = mindir.softmax %x {axis = 0 : i64} : tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}

// Negative axes are normalized.
// CHECK-LABEL: func.func @log_softmax
// CHECK-NOT: mindir.log_softmax
// CHECK: %[[M:.*]] = mindir.reduce_max %arg0 {axes = array<i64: 2>, keep_dims = true} : (tensor<2x3x5xf32>) -> tensor<2x3x1xf32>
// CHECK: %[[D:.*]] = mindir.sub %arg0, %[[M]]
// CHECK: %[[E:.*]] = mindir.exp %[[D]]
// CHECK: %[[S:.*]] = mindir.reduce_sum %[[E]] {axes = array<i64: 2>, keep_dims = true}
// CHECK: %[[L:.*]] = mindir.log %[[S]] : tensor<2x3x1xf32>
// CHECK: %[[Y:.*]] = mindir.sub %[[D]], %[[L]] : (tensor<2x3x5xf32>, tensor<2x3x1xf32>) -> tensor<2x3x5xf32>
// CHECK: return %[[Y]]
// ONLY-LABEL: func.func @log_softmax
// ONLY: mindir.log_softmax
func.func @log_softmax(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %y = mindir.log_softmax %x {axis = -1 : i64} : tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// All three results: y, mean and rstd (keep_dims statistics).
// CHECK-LABEL: func.func @layer_norm
// CHECK-NOT: mindir.layer_norm
// CHECK: %[[MEAN:.*]] = mindir.reduce_mean %arg0 {axes = array<i64: 1, 2>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK: %[[XC:.*]] = mindir.sub %arg0, %[[MEAN]]
// CHECK: %[[SQ:.*]] = mindir.square %[[XC]]
// CHECK: %[[VAR:.*]] = mindir.reduce_mean %[[SQ]] {axes = array<i64: 1, 2>, keep_dims = true}
// CHECK: %[[EPS:.*]] = mindir.constant dense<1.000000e-03> : tensor<f32>
// CHECK: %[[VE:.*]] = mindir.add %[[VAR]], %[[EPS]]
// CHECK: %[[RSTD:.*]] = mindir.rsqrt %[[VE]] : tensor<2x1x1xf32>
// CHECK: %[[N:.*]] = mindir.mul %[[XC]], %[[RSTD]]
// CHECK: %[[G:.*]] = mindir.mul %[[N]], %arg1 : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[Y:.*]] = mindir.add %[[G]], %arg2 : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: return %[[Y]], %[[MEAN]], %[[RSTD]]
// ONLY-LABEL: func.func @layer_norm
// ONLY: mindir.layer_norm
func.func @layer_norm(%x: tensor<2x3x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %y, %m, %r = mindir.layer_norm %x, %g, %b {begin_norm_axis = 1 : i64, epsilon = 1.0e-3 : f64}
      : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %y, %m, %r : tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// Training: batch statistics over all dims but 1, returned as [C].
// CHECK-LABEL: func.func @batch_norm_training
// CHECK-NOT: mindir.batch_norm
// CHECK-DAG: %[[SC:.*]] = mindir.reshape %arg1 {shape = array<i64: 3, 1, 1>}
// CHECK-DAG: %[[BI:.*]] = mindir.reshape %arg2 {shape = array<i64: 3, 1, 1>}
// CHECK: %[[MEAN:.*]] = mindir.reduce_mean %arg0 {axes = array<i64: 0, 2, 3>, keep_dims = true} : (tensor<2x3x4x4xf32>) -> tensor<1x3x1x1xf32>
// CHECK: %[[XC:.*]] = mindir.sub %arg0, %[[MEAN]]
// CHECK: %[[SQ:.*]] = mindir.square %[[XC]]
// CHECK: %[[VAR:.*]] = mindir.reduce_mean %[[SQ]] {axes = array<i64: 0, 2, 3>, keep_dims = true}
// CHECK: %[[VE:.*]] = mindir.add %[[VAR]], %{{.*}}
// CHECK: %[[RSTD:.*]] = mindir.rsqrt %[[VE]]
// CHECK: %[[N:.*]] = mindir.mul %[[XC]], %[[RSTD]]
// CHECK: %[[G:.*]] = mindir.mul %[[N]], %[[SC]] : (tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32>
// CHECK: %[[Y:.*]] = mindir.add %[[G]], %[[BI]]
// CHECK: %[[M3:.*]] = mindir.reshape %[[MEAN]] {shape = array<i64: 3>}
// CHECK: %[[V3:.*]] = mindir.reshape %[[VAR]] {shape = array<i64: 3>}
// CHECK: return %[[Y]], %[[M3]], %[[V3]]
func.func @batch_norm_training(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>,
                               %m: tensor<3xf32>, %v: tensor<3xf32>)
    -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %bm, %bv = mindir.batch_norm %x, %s, %b, %m, %v {is_training = true}
      : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %bm, %bv : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// Inference: the given statistics normalize and are returned unchanged.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK-NOT: mindir.batch_norm
// CHECK: %[[VE:.*]] = mindir.add %arg4, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK: %[[R:.*]] = mindir.rsqrt %[[VE]] : tensor<3xf32>
// CHECK: %[[R3:.*]] = mindir.reshape %[[R]] {shape = array<i64: 3, 1, 1>}
// CHECK: %[[M3:.*]] = mindir.reshape %arg3 {shape = array<i64: 3, 1, 1>}
// CHECK: %[[XC:.*]] = mindir.sub %arg0, %[[M3]]
// CHECK: mindir.mul %[[XC]], %[[R3]]
// CHECK: %[[Y:.*]] = mindir.add
// CHECK: return %[[Y]], %arg3, %arg4
func.func @batch_norm_inference(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>,
                                %m: tensor<3xf32>, %v: tensor<3xf32>)
    -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %bm, %bv = mindir.batch_norm %x, %s, %b, %m, %v
      : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %bm, %bv : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// tanh form (the default): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NOT: mindir.gelu
// CHECK: %[[X2:.*]] = mindir.mul %arg0, %arg0
// CHECK: %[[X3:.*]] = mindir.mul %[[X2]], %arg0
// CHECK: %[[C:.*]] = mindir.constant dense<0.797884583> : tensor<f32>
// CHECK: %[[K:.*]] = mindir.constant dense<4.471500e-02> : tensor<f32>
// CHECK: %[[KX3:.*]] = mindir.mul %[[K]], %[[X3]]
// CHECK: %[[S:.*]] = mindir.add %arg0, %[[KX3]]
// CHECK: %[[IN:.*]] = mindir.mul %[[C]], %[[S]]
// CHECK: %[[H:.*]] = mindir.mul %{{.*}}, %arg0
// CHECK: %[[T:.*]] = mindir.tanh %[[IN]]
// CHECK: %[[P:.*]] = mindir.add %{{.*}}, %[[T]]
// CHECK: %[[Y:.*]] = mindir.mul %[[H]], %[[P]]
// CHECK: return %[[Y]]
// ONLY-LABEL: func.func @gelu_tanh
// ONLY-NOT: mindir.gelu
// ONLY: mindir.tanh
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = mindir.gelu %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// erf form; f16 computes in f32 as the lowering does (cast in, cast out).
// CHECK-LABEL: func.func @gelu_erf_f16
// CHECK-NOT: mindir.gelu
// CHECK: %[[X:.*]] = mindir.cast %arg0 : tensor<8xf16> to tensor<8xf32>
// CHECK: %[[H:.*]] = mindir.mul %{{.*}}, %[[X]]
// CHECK: %[[R:.*]] = mindir.constant dense<0.707106769> : tensor<f32>
// CHECK: %[[XS:.*]] = mindir.mul %[[X]], %[[R]]
// CHECK: %[[E:.*]] = mindir.erf %[[XS]] : tensor<8xf32>
// CHECK: %[[P:.*]] = mindir.add %{{.*}}, %[[E]]
// CHECK: %[[Y:.*]] = mindir.mul %[[H]], %[[P]]
// CHECK: %[[Y16:.*]] = mindir.cast %[[Y]] : tensor<8xf32> to tensor<8xf16>
// CHECK: return %[[Y16]]
func.func @gelu_erf_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %y = mindir.gelu %x {approximate = #mindir.approximate<none>} : tensor<8xf16>
  return %y : tensor<8xf16>
}

// CHECK-LABEL: func.func @sigmoid
// CHECK-NOT: mindir.sigmoid
// CHECK: %[[N:.*]] = mindir.neg %arg0
// CHECK: %[[E:.*]] = mindir.exp %[[N]]
// CHECK: %[[D:.*]] = mindir.add %{{.*}}, %[[E]]
// CHECK: %[[Y:.*]] = mindir.div %{{.*}}, %[[D]] : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK: return %[[Y]]
func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = mindir.sigmoid %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @silu
// CHECK-NOT: mindir.silu
// CHECK: %[[N:.*]] = mindir.neg %arg0
// CHECK: %[[E:.*]] = mindir.exp %[[N]]
// CHECK: %[[D:.*]] = mindir.add %{{.*}}, %[[E]]
// CHECK: %[[Y:.*]] = mindir.div %arg0, %[[D]]
// CHECK: return %[[Y]]
func.func @silu(%x: tensor<8xf64>) -> tensor<8xf64> {
  %y = mindir.silu %x : tensor<8xf64>
  return %y : tensor<8xf64>
}

// Stable: max(x, 0) + log1p(exp(-|x|)).
// CHECK-LABEL: func.func @softplus
// CHECK-NOT: mindir.softplus
// CHECK: %[[MX:.*]] = mindir.maximum %arg0, %{{.*}}
// CHECK: %[[A:.*]] = mindir.abs %arg0
// CHECK: %[[N:.*]] = mindir.neg %[[A]]
// CHECK: %[[E:.*]] = mindir.exp %[[N]]
// CHECK: %[[L:.*]] = mindir.log1p %[[E]]
// CHECK: %[[Y:.*]] = mindir.add %[[MX]], %[[L]]
// CHECK: return %[[Y]]
func.func @softplus(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = mindir.softplus %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @leaky_relu
// CHECK-NOT: mindir.leaky_relu
// CHECK: %[[GE:.*]] = mindir.greater_equal %arg0, %{{.*}} : (tensor<8xf32>, tensor<f32>) -> tensor<8xi1>
// CHECK: %[[A:.*]] = mindir.constant dense<0.00999999977> : tensor<f32>
// CHECK: %[[AX:.*]] = mindir.mul %[[A]], %arg0
// CHECK: %[[Y:.*]] = mindir.select %[[GE]], %arg0, %[[AX]]
// CHECK: return %[[Y]]
func.func @leaky_relu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = mindir.leaky_relu %x {alpha = 0.01 : f64} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @bias_add_nchw
// CHECK-NOT: mindir.bias_add
// CHECK: %[[B:.*]] = mindir.reshape %arg1 {shape = array<i64: 3, 1, 1>} : (tensor<3xi32>) -> tensor<3x1x1xi32>
// CHECK: %[[Y:.*]] = mindir.add %arg0, %[[B]] : (tensor<2x3x4x5xi32>, tensor<3x1x1xi32>) -> tensor<2x3x4x5xi32>
// CHECK: return %[[Y]]
func.func @bias_add_nchw(%x: tensor<2x3x4x5xi32>, %b: tensor<3xi32>) -> tensor<2x3x4x5xi32> {
  %y = mindir.bias_add %x, %b : (tensor<2x3x4x5xi32>, tensor<3xi32>) -> tensor<2x3x4x5xi32>
  return %y : tensor<2x3x4x5xi32>
}

// CHECK-LABEL: func.func @bias_add_nhwc
// CHECK-NOT: mindir.bias_add
// CHECK-NOT: mindir.reshape
// CHECK: %[[Y:.*]] = mindir.add %arg0, %arg1 : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
// CHECK: return %[[Y]]
func.func @bias_add_nhwc(%x: tensor<2x3x4x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x4x5xf32> {
  %y = mindir.bias_add %x, %b {data_format = #mindir.data_format<NHWC>}
      : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  return %y : tensor<2x3x4x5xf32>
}

// loss = -sum(labels * log_softmax), backprop = exp(x - max) / sum - labels.
// CHECK-LABEL: func.func @softmax_cross_entropy
// CHECK-NOT: mindir.softmax_cross_entropy_with_logits
// CHECK: %[[M:.*]] = mindir.reduce_max %arg0 {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[D:.*]] = mindir.sub %arg0, %[[M]]
// CHECK: %[[E:.*]] = mindir.exp %[[D]]
// CHECK: %[[S:.*]] = mindir.reduce_sum %[[E]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[L:.*]] = mindir.log %[[S]]
// CHECK: %[[LP:.*]] = mindir.sub %[[D]], %[[L]]
// CHECK: %[[T:.*]] = mindir.mul %arg1, %[[LP]]
// CHECK: %[[R:.*]] = mindir.reduce_sum %[[T]] {axes = array<i64: 1>} : (tensor<4x10xf32>) -> tensor<4xf32>
// CHECK: %[[LOSS:.*]] = mindir.neg %[[R]]
// CHECK: %[[P:.*]] = mindir.div %[[E]], %[[S]]
// CHECK: %[[BP:.*]] = mindir.sub %[[P]], %arg1
// CHECK: return %[[LOSS]], %[[BP]]
func.func @softmax_cross_entropy(%x: tensor<4x10xf32>, %l: tensor<4x10xf32>) -> (tensor<4xf32>, tensor<4x10xf32>) {
  %loss, %bp = mindir.softmax_cross_entropy_with_logits %x, %l
      : (tensor<4x10xf32>, tensor<4x10xf32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %loss, %bp : tensor<4xf32>, tensor<4x10xf32>
}

// The class labels become dense ones by an elementwise compare with an iota.
// CHECK-LABEL: func.func @sparse_softmax_cross_entropy
// CHECK-NOT: mindir.sparse_softmax_cross_entropy_with_logits
// CHECK: %[[IOTA:.*]] = mindir.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]> : tensor<10xi32>
// CHECK: %[[L2:.*]] = mindir.reshape %arg1 {shape = array<i64: 4, 1>} : (tensor<4xi32>) -> tensor<4x1xi32>
// CHECK: %[[EQ:.*]] = mindir.equal %[[L2]], %[[IOTA]] : (tensor<4x1xi32>, tensor<10xi32>) -> tensor<4x10xi1>
// CHECK: %[[LAB:.*]] = mindir.cast %[[EQ]] : tensor<4x10xi1> to tensor<4x10xf32>
// CHECK: mindir.reduce_max %arg0
// CHECK: %[[T:.*]] = mindir.mul %[[LAB]], %{{.*}}
// CHECK: %[[R:.*]] = mindir.reduce_sum %[[T]] {axes = array<i64: 1>}
// CHECK: %[[LOSS:.*]] = mindir.neg %[[R]]
// CHECK: %[[P:.*]] = mindir.div
// CHECK: %[[BP:.*]] = mindir.sub %[[P]], %[[LAB]]
// CHECK: return %[[LOSS]], %[[BP]]
func.func @sparse_softmax_cross_entropy(%x: tensor<4x10xf32>, %l: tensor<4xi32>) -> (tensor<4xf32>, tensor<4x10xf32>) {
  %loss, %bp = mindir.sparse_softmax_cross_entropy_with_logits %x, %l
      : (tensor<4x10xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %loss, %bp : tensor<4xf32>, tensor<4x10xf32>
}

// i8 labels cannot name class 128 or more: compared in i64.
// CHECK-LABEL: func.func @sparse_i8_many_classes
// CHECK: %[[L:.*]] = mindir.cast %arg1 : tensor<2xi8> to tensor<2xi64>
// CHECK: mindir.constant dense<{{.*}}> : tensor<200xi64>
// CHECK: mindir.reshape %[[L]]
func.func @sparse_i8_many_classes(%x: tensor<2x200xf32>, %l: tensor<2xi8>) -> (tensor<2xf32>, tensor<2x200xf32>) {
  %loss, %bp = mindir.sparse_softmax_cross_entropy_with_logits %x, %l
      : (tensor<2x200xf32>, tensor<2xi8>) -> (tensor<2xf32>, tensor<2x200xf32>)
  return %loss, %bp : tensor<2xf32>, tensor<2x200xf32>
}

// Nested regions are expanded in place.
// CHECK-LABEL: func.func @in_scf_for
// CHECK: scf.for
// CHECK-NOT: mindir.softmax
// CHECK: mindir.reduce_max
// CHECK: mindir.exp
// CHECK: mindir.div
// CHECK: scf.yield
func.func @in_scf_for(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<4x8xf32>) {
    %s = mindir.softmax %a : tensor<4x8xf32>
    scf.yield %s : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// Already basic ops (square, reciprocal, rsqrt) and ops without an expander
// (dropout, pooling grads) are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK: mindir.square
// CHECK: mindir.reciprocal
// CHECK: mindir.rsqrt
// CHECK: mindir.dropout
func.func @untouched(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %a = mindir.square %x : tensor<8xf32>
  %b = mindir.reciprocal %x : tensor<8xf32>
  %c = mindir.rsqrt %x : tensor<8xf32>
  %d, %m = mindir.dropout %x {keep_prob = 0.9 : f64} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %a, %b, %c, %d, %m : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
