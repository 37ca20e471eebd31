"""msmlir-cpu-conv-to-matmul's direct kernels (no im2col): forward
convolutions with a short reduction and long output rows (a first layer), and
filter gradients with long kernel rows (a first layer's), compiled through
the CPU pipeline and compared with numpy (float64): odd row lengths (masked
power-of-two vectors), filter blocks (F > F_BLOCK), strides and dilations
along the height, threads; plus the IR the path gives."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with
from test_conv_to_matmul import _ids, conv_grads_ref, conv_module, conv_ref

RNG = np.random.default_rng(11)

FWD = [
    # (x shape, w shape, stride, dilation, pad_mode, pad): fwd_direct_ok holds
    ((4, 1, 32, 32), (6, 1, 5, 5), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # LeNet conv1: 28 -> 32 lanes
    ((2, 3, 19, 21), (12, 3, 3, 3), (2, 1), (1, 2), "pad", (1, 1, 2, 2)),      # F = 2 blocks of 6, 21 wide
    ((2, 2, 40, 40), (4, 2, 3, 3), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # 38 wide: rows of 19
    ((1, 1, 18, 34), (3, 1, 3, 3), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # 32 wide: unmasked
]

DW = [
    # the filter gradient's "kernel" is the output image: >= 16 wide -> direct
    ((4, 1, 32, 32), (6, 1, 5, 5), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # LeNet conv1: 28 lanes
    ((2, 2, 24, 24), (12, 2, 5, 5), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),    # 20 lanes, F = 2 x 6
]


def _check(case, names, threads=1):
    x_shape, w_shape, stride, dilation, mode, pad = case
    text, o_shape = conv_module(*case)
    cm = compile_with(text, codegen=True, threads=threads)
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    d = RNG.standard_normal(o_shape).astype(np.float32)
    refs = {"fwd": ((x, w), conv_ref(x, w, stride, dilation, mode, pad)),
            "dw": ((d, x), conv_grads_ref(x, w, d, stride, dilation, mode, pad)[1])}
    for name in names:
        args, ref = refs[name]
        got = cm.call(name, *args)
        got = got[0] if isinstance(got, (list, tuple)) else got
        scale = np.abs(ref).max() + 1
        np.testing.assert_allclose(got, ref, rtol=2e-6 * scale, atol=2e-6 * scale, err_msg=name)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", FWD, ids=[_ids(c) for c in FWD])
def test_direct_forward(case, threads):
    _check(case, ["fwd"], threads)


@pytest.mark.parametrize("case", DW, ids=[_ids(c) for c in DW])
def test_direct_filter_grad(case):
    _check(case, ["dw"])


def _func(ir_text: str, name: str) -> str:
    start = ir_text.index(f"func.func @{name}(")
    end = ir_text.find("func.func @", start + 1)
    return ir_text[start:end if end > 0 else None]


def test_direct_forward_ir():
    """LeNet's first convolution: no im2col, no matmul; one forall over
    (image, output row), the six filters' rows as six masked 32-lane FMAs
    per window position, contiguous reads (no gathers)."""
    out, remarks = codegen_ir(conv_module(*FWD[0])[0])
    assert not [r for r in remarks if "conv-to-matmul" in r], remarks
    fwd = _func(out, "fwd")
    assert "linalg.conv" not in fwd and "vector.contract" not in fwd
    assert "scf.forall" in fwd and "in (4, 28)" in fwd
    assert fwd.count("math.fma") == 6 and "vector<32xf32>" in fwd
    assert "vector.gather" not in fwd
