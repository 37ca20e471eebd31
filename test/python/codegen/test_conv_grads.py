"""msmlir-cpu-conv-to-matmul's gradient forms, compared with numpy (float64):

* the input gradient as dcol = W^T dY (a matmul) + col2im (the convolution of
  the zero-padded dout with the flipped filter is gone), over strides (unit
  width stride: contiguous reads; other: gathers), dilations, padding modes,
  odd sizes, 1x1 kernels and images, batch chunks, a dcol whose rows cannot
  be read past their ends (the gather form);
* the direct filter gradient of first layers (few outputs, long kernel rows);
* a matmul with a reshape folded into it, collapsed back to 2-D."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with
from test_conv_to_matmul import _ids, conv_grads_ref, conv_module

from msmlir.passes.registry import option_defaults

RNG = np.random.default_rng(11)

DX_CASES = [
    # (x shape, w shape, stride, dilation, pad_mode, pad)
    ((8, 6, 14, 14), (16, 6, 5, 5), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),    # LeNet conv2
    ((3, 5, 13, 11), (7, 5, 3, 4), (2, 1), (1, 1), "pad", (1, 2, 0, 3)),       # row stride 2, odd
    ((2, 4, 15, 17), (6, 4, 3, 3), (1, 2), (2, 1), "same", (0, 0, 0, 0)),      # width stride: gathers
    ((2, 3, 16, 16), (5, 3, 3, 3), (2, 2), (2, 2), "pad", (2, 2, 2, 2)),
    ((2, 3, 12, 13), (4, 3, 3, 5), (1, 1), (2, 3), "same", (0, 0, 0, 0)),      # dilations
    ((8, 16, 8, 8), (24, 16, 1, 1), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),    # 1x1 kernel
    ((64, 32, 1, 1), (48, 32, 1, 1), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),   # 1x1 images
    ((1, 64, 7, 7), (64, 64, 3, 3), (1, 1), (3, 3), "valid", (0, 0, 0, 0)),    # P = 1 < dilation:
    #                                             rows cannot be read past their ends: gathers
    ((4, 16, 9, 10), (16, 16, 2, 3), (3, 1), (1, 1), "pad", (3, 0, 2, 4)),     # padding > reach
]


def _dx(case, chunk=None):
    text, o_shape = conv_module(*case)
    text = text[text.index("func.func @dx"):text.index("func.func @dw")]
    if chunk is None:
        cm = compile_with(text, codegen=True)
        ir_text, remarks = codegen_ir(text)
    else:
        with option_defaults("msmlir-cpu-conv-to-matmul", {"col-chunk": chunk}):
            cm = compile_with(text, codegen=True)
            ir_text, remarks = codegen_ir(text)
    x = RNG.standard_normal(case[0]).astype(np.float32)
    w = RNG.standard_normal(case[1]).astype(np.float32)
    d = RNG.standard_normal(o_shape).astype(np.float32)
    ref, _ = conv_grads_ref(x, w, d, *case[2:])
    got = cm.call("dx", d, w)
    got = got[0] if isinstance(got, (list, tuple)) else got
    scale = np.abs(ref).max() + 1
    np.testing.assert_allclose(got, ref, rtol=2e-5 * scale, atol=2e-5 * scale)
    return ir_text, remarks


@pytest.mark.parametrize("case", DX_CASES, ids=[_ids(c) for c in DX_CASES])
def test_input_grad_matmul_col2im(case):
    ir_text, remarks = _dx(case)
    assert not [r for r in remarks if "conv-to-matmul" in r], remarks
    assert "linalg.conv" not in ir_text
    if case == DX_CASES[3]:
        # dcol (27 x 162 x 5) is below MATMUL_MIN_WORK: the convolution of the
        # zero-interleaved dout (K = 45, 16-wide rows) takes the direct kernel
        assert "math.fma" in ir_text and "msmlir.conv_input_grad" not in ir_text
    else:
        assert "vector.contract" in ir_text      # dcol = W^T dY, packed
    if case[2][1] == 1 and case[0][2] * case[0][3] > 1 and case != DX_CASES[7]:
        assert "vector.gather" not in ir_text    # contiguous col2im rows


@pytest.mark.parametrize("case", [DX_CASES[0], DX_CASES[1], DX_CASES[2]],
                         ids=[_ids(c) for c in DX_CASES[:3]])
def test_input_grad_batch_chunks(case):
    ir_text, _ = _dx(case, chunk=1024)
    assert "scf.for" in ir_text and "linalg.conv" not in ir_text


DW_CASES = [
    ((8, 1, 32, 32), (6, 1, 5, 5), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # LeNet conv1
    ((2, 2, 70, 70), (4, 2, 3, 3), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # 68-wide rows: 4 x 17
    ((2, 3, 40, 37), (4, 3, 3, 3), (2, 1), (2, 1), "pad", (1, 2, 0, 3)),
    ((3, 2, 24, 24), (3, 2, 4, 4), (1, 1), (1, 2), "same", (0, 0, 0, 0)),
]


@pytest.mark.parametrize("case", DW_CASES, ids=[_ids(c) for c in DW_CASES])
def test_filter_grad_direct(case):
    text, o_shape = conv_module(*case)
    text = text[text.index("func.func @dw"):]
    ir_text, remarks = codegen_ir(text)
    assert not [r for r in remarks if "conv-to-matmul" in r], remarks
    assert "linalg.conv" not in ir_text and "vector.contract" not in ir_text
    cm = compile_with(text, codegen=True)
    x = RNG.standard_normal(case[0]).astype(np.float32)
    w = RNG.standard_normal(case[1]).astype(np.float32)
    d = RNG.standard_normal(o_shape).astype(np.float32)
    _, ref = conv_grads_ref(x, w, d, *case[2:])
    got = cm.call("dw", d, x)
    got = got[0] if isinstance(got, (list, tuple)) else got
    scale = np.abs(ref).max() + 1
    np.testing.assert_allclose(got, ref, rtol=2e-5 * scale, atol=2e-5 * scale)


MM_CASES = [
    ("(tensor<64x120xf32>, tensor<120x400xf32>) -> tensor<64x400xf32>", "",
     (64, 120), (120, 400), (64, 16, 5, 5), lambda a, b: a @ b),
    ("(tensor<48x40xf32>, tensor<36x40xf32>) -> tensor<48x36xf32>", "{transpose_b = true}",
     (48, 40), (36, 40), (6, 8, 6, 6), lambda a, b: a @ b.T),
]


@pytest.mark.parametrize("case", MM_CASES, ids=["flatten_grad", "transposed_b"])
def test_matmul_reshape_collapsed(case):
    sig, attrs, sa, sb, out, ref = case
    mm = sig.split(" -> ")[1]
    o = "tensor<" + "x".join(map(str, out)) + "xf32>"
    text = f"""func.func @f(%a: tensor<{'x'.join(map(str, sa))}xf32>, %b: tensor<{'x'.join(map(str, sb))}xf32>) -> {o} {{
  %r = mindir.matmul %a, %b {attrs} : {sig}
  %1 = mindir.reshape %r {{shape = array<i64: {', '.join(map(str, out))}>}} : ({mm}) -> {o}
  return %1 : {o}
}}"""
    ir_text, _ = codegen_ir(text)
    assert "vector.contract" in ir_text          # the packed micro-kernel
    cm = compile_with(text, codegen=True)
    a = RNG.standard_normal(sa).astype(np.float32)
    b = RNG.standard_normal(sb).astype(np.float32)
    got = cm.call("f", a, b)
    got = got[0] if isinstance(got, (list, tuple)) else got
    np.testing.assert_allclose(got, ref(a.astype(np.float64), b.astype(np.float64)).reshape(out),
                               rtol=1e-4, atol=1e-4)
