// Round trip of the creation ops: parse, print, parse the printed form again.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// The generic form round-trips to the same custom form.
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xi32>, tensor<i1>, tensor<3xbf16>, tensor<f16>, tensor<2xf64>, tensor<2xi64>, tensor<2xi8>) {
  // CHECK: mindir.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = mindir.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: mindir.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  %1 = mindir.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK: mindir.constant dense<true> : tensor<i1>
  %2 = mindir.constant dense<true> : tensor<i1>
  // CHECK: mindir.constant dense<5.000000e-01> : tensor<3xbf16>
  %3 = mindir.constant dense<0.5> : tensor<3xbf16>
  // CHECK: mindir.constant dense<-2.000000e+00> : tensor<f16>
  %4 = mindir.constant dense<-2.0> : tensor<f16>
  // CHECK: mindir.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf64>
  %5 = mindir.constant dense<[0.1, 0.2]> : tensor<2xf64>
  // CHECK: mindir.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  %6 = mindir.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  // CHECK: mindir.constant dense<[-128, 127]> : tensor<2xi8>
  %7 = mindir.constant dense<[-128, 127]> : tensor<2xi8>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2xf32>, tensor<2x2xi32>, tensor<i1>, tensor<3xbf16>, tensor<f16>, tensor<2xf64>, tensor<2xi64>, tensor<2xi8>
}

// CHECK-LABEL: func.func @fill
func.func @fill() -> (tensor<2x3xf32>, tensor<4xi32>, tensor<2xi1>, tensor<0xf16>) {
  // CHECK: mindir.fill 1.500000e+00 : f32 : tensor<2x3xf32>
  %0 = mindir.fill 1.5 : f32 : tensor<2x3xf32>
  // CHECK: mindir.fill -7 : i32 : tensor<4xi32>
  %1 = mindir.fill -7 : i32 : tensor<4xi32>
  // CHECK: mindir.fill true : tensor<2xi1>
  %2 = mindir.fill true : tensor<2xi1>
  // CHECK: mindir.fill 0.000000e+00 : f16 : tensor<0xf16>
  %3 = mindir.fill 0.0 : f16 : tensor<0xf16>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<4xi32>, tensor<2xi1>, tensor<0xf16>
}

// CHECK-LABEL: func.func @like
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4xi1>)
func.func @like(%x: tensor<2x3xf32>, %b: tensor<4xi1>) -> (tensor<2x3xf32>, tensor<4xi1>) {
  // CHECK: mindir.zeros_like %[[X]] : tensor<2x3xf32>
  %0 = mindir.zeros_like %x : tensor<2x3xf32>
  // CHECK: mindir.ones_like %[[B]] : tensor<4xi1>
  %1 = mindir.ones_like %b : tensor<4xi1>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi1>
}

// CHECK-LABEL: func.func @arange
func.func @arange() -> (tensor<5xi32>, tensor<4xf32>, tensor<3xf64>, tensor<0xi64>) {
  // Default delta (1.0) is elided.
  // CHECK: mindir.arange {limit = 5.000000e+00 : f64, start = 0.000000e+00 : f64} : tensor<5xi32>
  %0 = mindir.arange {start = 0.0 : f64, limit = 5.0 : f64} : tensor<5xi32>
  // CHECK: mindir.arange {delta = 5.000000e-01 : f64, limit = 2.000000e+00 : f64, start = 0.000000e+00 : f64} : tensor<4xf32>
  %1 = mindir.arange {start = 0.0 : f64, limit = 2.0 : f64, delta = 0.5 : f64} : tensor<4xf32>
  // Negative step: 3, 2, 1.
  // CHECK: mindir.arange {delta = -1.000000e+00 : f64, limit = 0.000000e+00 : f64, start = 3.000000e+00 : f64} : tensor<3xf64>
  %2 = mindir.arange {start = 3.0 : f64, limit = 0.0 : f64, delta = -1.0 : f64} : tensor<3xf64>
  // Empty range.
  // CHECK: mindir.arange {limit = 1.000000e+00 : f64, start = 4.000000e+00 : f64} : tensor<0xi64>
  %3 = mindir.arange {start = 4.0 : f64, limit = 1.0 : f64} : tensor<0xi64>
  return %0, %1, %2, %3 : tensor<5xi32>, tensor<4xf32>, tensor<3xf64>, tensor<0xi64>
}

// CHECK-LABEL: func.func @random
func.func @random() -> (tensor<4x4xf32>, tensor<8xbf16>, tensor<16xf32>, tensor<2xf64>) {
  // CHECK: mindir.random_uniform {seed = 42 : i64} : tensor<4x4xf32>
  %0 = mindir.random_uniform {seed = 42 : i64} : tensor<4x4xf32>
  // CHECK: mindir.random_uniform {minval = -1.000000e+00 : f64, seed = 0 : i64} : tensor<8xbf16>
  // An explicit default (maxval = 1.0) is elided when printed.
  %1 = mindir.random_uniform {seed = 0 : i64, minval = -1.0 : f64, maxval = 1.0 : f64} : tensor<8xbf16>
  // CHECK: mindir.random_normal {seed = 7 : i64, stddev = 2.000000e-02 : f64} : tensor<16xf32>
  %2 = mindir.random_normal {seed = 7 : i64, stddev = 0.02 : f64} : tensor<16xf32>
  // CHECK: mindir.random_normal {mean = 3.000000e+00 : f64, seed = -5 : i64} : tensor<2xf64>
  %3 = mindir.random_normal {seed = -5 : i64, mean = 3.0 : f64, stddev = 1.0 : f64} : tensor<2xf64>
  return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<8xbf16>, tensor<16xf32>, tensor<2xf64>
}
