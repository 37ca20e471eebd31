// Round trip of mindir.host_callback (JIT Fallback): inputs, results, none.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s
// The op has side effects: canonicalize/cse keep both identical calls and the
// result-less one.
// RUN: ms-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @calls
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @calls(%x: tensor<4xf32>) -> tensor<2xi64> {
  // CHECK: mindir.host_callback @msmlir_host_0 "print (a.py:3)"() : () -> ()
  mindir.host_callback @msmlir_host_0 "print (a.py:3)" () : () -> ()
  // CHECK: %{{.*}}:2 = mindir.host_callback @msmlir_host_1 "np.f (a.py:4)"(%[[X]], %[[X]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<2xi64>, tensor<f32>)
  %a:2 = mindir.host_callback @msmlir_host_1 "np.f (a.py:4)" (%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<2xi64>, tensor<f32>)
  %b:2 = mindir.host_callback @msmlir_host_1 "np.f (a.py:4)" (%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<2xi64>, tensor<f32>)
  return %a#0 : tensor<2xi64>
}
// KEEP-LABEL: func.func @calls
// KEEP: mindir.host_callback @msmlir_host_0
// KEEP-COUNT-2: mindir.host_callback @msmlir_host_1
// KEEP: return
