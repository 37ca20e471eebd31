// Input of errors.mlir: a syntax error on line 4.
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.exp %a : tensor<2x3xf32>
  %1 = mindir.exp %0 tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
