"""P.ROIAlign against a loop-for-loop numpy transcription of MindSpore's CPU kernel
(roi_align_cpu_kernel.cc), PyNative and compiled, its gradient against finite
differences, MindSpore's documented example, and its errors."""
import numpy as np
import pytest

import msmlir as ms
from msmlir.ops import operations as P


def roi_align_ref(x, rois, ph, pw, scale, sn, mode):
    """MindSpore's CPU kernel: bin_box + bilinear_interpolate, one sample at a time."""
    n, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw))
    for r, roi in enumerate(rois):
        b = int(np.rint(roi[0]))
        sw, sh = roi[1] * scale, roi[2] * scale
        rw, rh = (roi[3] + mode) * scale - sw, (roi[4] + mode) * scale - sh
        if mode == 0:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        for i in range(ph):
            for j in range(pw):
                acc = 0.0
                for iy in range(sn):
                    y = sh + i * bh + (iy + .5) * bh / sn
                    for ix in range(sn):
                        xx = sw + j * bw + (ix + .5) * bw / sn
                        if y < -1 or y > h or xx < -1 or xx > w:
                            continue
                        yy, xc = max(y, 0.0), max(xx, 0.0)
                        yl, xl = int(np.floor(yy)), int(np.floor(xc))
                        if yl >= h - 1:
                            yl = yh = h - 1
                            yy = float(yl)
                        else:
                            yh = yl + 1
                        if xl >= w - 1:
                            xl = xh = w - 1
                            xc = float(xl)
                        else:
                            xh = xl + 1
                        ly, lx = yy - yl, xc - xl
                        acc = acc + ((1 - ly) * (1 - lx) * x[b, :, yl, xl]
                                     + (1 - ly) * lx * x[b, :, yl, xh]
                                     + ly * (1 - lx) * x[b, :, yh, xl] + ly * lx * x[b, :, yh, xh])
                out[r, :, i, j] = acc / (sn * sn)
    return out


RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 3, 9, 11)).astype(np.float32)
# inside, partly outside (negative), beyond the map, tiny, on the last row/column
ROIS = np.array([[0, 1, 2, 7, 6], [1, -3, -2, 4, 5], [1, 5, 3, 25, 30], [0, 2.5, 2.5, 2.7, 2.6],
                 [1, 16, 14, 21, 17]], np.float32)


def test_mindspore_doc_example():
    f = ms.Tensor(np.array([[[[1., 2.], [3., 4.]]]], np.float32))
    r = ms.Tensor(np.array([[0, 0.2, 0.3, 0.2, 0.3]], np.float32))
    np.testing.assert_allclose(P.ROIAlign(2, 2, 0.5, 2)(f, r).asnumpy(),
                               [[[[1.775, 2.025], [2.275, 2.525]]]], rtol=1e-6)


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("sample_num", [1, 2, 3])
def test_matches_kernel_pynative(mode, sample_num):
    got = P.ROIAlign(3, 4, 0.5, sample_num, mode)(ms.Tensor(X), ms.Tensor(ROIS)).asnumpy()
    ref = roi_align_ref(X.astype(np.float64), ROIS.astype(np.float64), 3, 4, 0.5, sample_num,
                        mode)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=2e-6)


def test_matches_kernel_compiled_and_four_column_rois():
    op = P.ROIAlign(2, 2, 0.25, 2)
    f = ms.jit(lambda x, r: op(x, r))
    np.testing.assert_allclose(f(ms.Tensor(X), ms.Tensor(ROIS)).asnumpy(),
                               roi_align_ref(X, ROIS, 2, 2, 0.25, 2, 1), rtol=1e-5, atol=2e-6)
    rois4 = ROIS[:, 1:]                       # (R, 4): every ROI on image 0
    ref = roi_align_ref(X, np.concatenate([np.zeros((5, 1), np.float32), rois4], 1), 2, 2,
                        0.25, 2, 1)
    np.testing.assert_allclose(f(ms.Tensor(X), ms.Tensor(rois4)).asnumpy(), ref, rtol=1e-5,
                               atol=2e-6)


def test_gradient_matches_finite_differences():
    op = P.ROIAlign(2, 3, 0.5, 2)
    x = X.astype(np.float64)
    cot = RNG.standard_normal((len(ROIS), 3, 2, 3))

    def loss(feat, rois):
        return (op(feat, rois) * ms.Tensor(cot.astype(np.float32))).sum()

    gx, gr = ms.grad(loss, grad_position=(0, 1))(ms.Tensor(X), ms.Tensor(ROIS))
    # ROIAlign is linear in the features: central differences are exact up to rounding
    num = np.zeros_like(x)
    eps = 1e-3
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        num[idx] = ((roi_align_ref(x + d, ROIS, 2, 3, 0.5, 2, 1)
                     - roi_align_ref(x - d, ROIS, 2, 3, 0.5, 2, 1)) * cot).sum() / (2 * eps)
    np.testing.assert_allclose(gx.asnumpy(), num, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(gr.asnumpy(), 0)        # MindSpore: no gradient for rois


@pytest.mark.parametrize("args, x, r, msg", [
    ((2, 2, 1.0, 0), X, ROIS, "sample_num > 0"),
    ((2, 2, 1.0, 2, 2), X, ROIS, "roi_end_mode must be 0 or 1"),
    ((2, 2, 1.0, 2), X[0], ROIS, r"features must be \(N, C, H, W\)"),
    ((2, 2, 1.0, 2), X, ROIS[:, :3], r"rois \(R, 5\) or \(R, 4\)"),
])
def test_errors(args, x, r, msg):
    op = P.ROIAlign(*args)
    with pytest.raises(ms.CompileError, match=msg):
        op(ms.Tensor(x), ms.Tensor(r))

    def f(a, b):
        return op(a, b)

    with pytest.raises(ms.CompileError, match=msg) as e:
        ms.jit(f)(ms.Tensor(x), ms.Tensor(r))
    assert e.value.filename == __file__ and e.value.lineno == f.__code__.co_firstlineno + 1
