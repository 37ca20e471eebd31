// RUN: ms-opt %s --mskernel-outline-kernels | FileCheck %s

// A host function with parameter write-backs records its argument count: after
// buffer-results-to-out-params appends the results as arguments,
// msmlir-inplace-writeback finds each written-back result's out-parameter
// with it. A function without write-backs gets nothing.
// CHECK-LABEL: func.func @step
// CHECK-SAME:    attributes {msmlir.num_inputs = 2 : i64, msmlir.writeback = {{\[}}[0, 1]]}
// CHECK-LABEL: func.func @plain
// CHECK-NOT:     msmlir.num_inputs
// CHECK:         return
func.func @step(%g: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32>
    attributes {msmlir.writeback = [[0, 1]]} {
  %n = mskernel.fused(%g, %w) {kind = #mskernel.kind<elemwise>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%p: tensor<4xf32>, %q: tensor<4xf32>):
    %s = mindir.sub %q, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    mskernel.yield %s : tensor<4xf32>
  }
  return %n : tensor<4xf32>
}

func.func @plain(%g: tensor<4xf32>) -> tensor<4xf32> {
  return %g : tensor<4xf32>
}
