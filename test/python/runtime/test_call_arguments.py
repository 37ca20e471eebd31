"""CompiledModule.call checks its arguments against the signature (the check
the Ascend and sharded compiled modules share: runtime.compiled_module.checked_arguments)."""
import numpy as np
import pytest

from msmlir.compiler import compile_mlir

SRC = """
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "mindir.add"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}"""


def test_call_checks_count_shape_and_dtype():
    m = compile_mlir(SRC)
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(m.call("f", x)[0], x + x)
    with pytest.raises(TypeError, match="f takes 1 arguments, got 2"):
        m.call("f", x, x)
    with pytest.raises(TypeError, match=r"argument 0 of f: expected float32\[2, 3\], got float64\[2, 3\]"):
        m.call("f", x.astype(np.float64))
    with pytest.raises(TypeError, match=r"expected float32\[2, 3\], got float32\[3, 2\]"):
        m.call("f", np.ones((3, 2), np.float32))
