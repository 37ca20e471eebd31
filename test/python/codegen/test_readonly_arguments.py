"""Compiled code never writes into the caller's input arrays: a hand-written
linalg convolution accumulating into an argument (`outs(%acc)`) returns the
sum in a new array and leaves `acc` as it was, on the plain and the codegen
path (before msmlir-readonly-arguments both overwrote it)."""
import numpy as np
import pytest

from cg_helpers import compile_with

CONV_ACC = """
func.func @f(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %acc: tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%acc : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %r : tensor<1x3x3x3xf32>
}
"""


@pytest.mark.parametrize("codegen", [False, True])
def test_accumulating_into_an_argument_leaves_it_unchanged(codegen):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    acc = rng.standard_normal((1, 3, 3, 3)).astype(np.float32)
    before = acc.copy()
    r = compile_with(CONV_ACC, codegen=codegen).call("f", x, w, acc)[0]
    np.testing.assert_array_equal(acc, before)
    want = before.astype(np.float64).copy()
    for f in range(3):
        for i in range(3):
            for j in range(3):
                want[0, f, i, j] += np.sum(x[0, :, i:i + 3, j:j + 3] * w[f])
    np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-5)
