"""More of the most-used MindSpore primitives msmlir lacked (issue 12's usage count):
CTCLoss (against a brute-force sum over all alignments, PyTorch's ctc_loss and finite
differences), CropAndResize (against a transcription of TensorFlow's kernel, and its
gradients), the fused Adam / AdamWeightDecay steps, LRN, Swiglu, ScalarToArray."""
import itertools

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn
from msmlir.ops import operations as P

RNG = np.random.default_rng(12)


# ---- CTCLoss --------------------------------------------------------------------------------

def _sparse(labels):
    idx = np.array([[b, i] for b, lab in enumerate(labels) for i in range(len(lab))], np.int64)
    vals = np.array([v for lab in labels for v in lab], np.int32)
    return idx.reshape(-1, 2), vals


def _brute_force(x, label, n, merge=True, collapse=False):
    """-log of the summed probability of every length-n path that reduces to label."""
    c = x.shape[-1]
    blank = c - 1
    p = np.exp(x[:n] - x[:n].max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    if collapse:
        label = [v for i, v in enumerate(label) if i == 0 or v != label[i - 1]]
    total = 0.0
    for path in itertools.product(range(c), repeat=n):
        seq = [k for i, k in enumerate(path) if not (merge and i and k == path[i - 1])]
        if [k for k in seq if k != blank] == list(label):
            total += np.prod(p[np.arange(n), path])
    return -np.log(total)


@pytest.mark.parametrize("merge, collapse", [(True, False), (False, False), (True, True)])
def test_ctc_loss_matches_the_sum_over_alignments(merge, collapse):
    x = RNG.standard_normal((5, 3, 4))
    labels = [[1, 1], [0, 2, 1], [2]]
    seq = np.array([5, 4, 3], np.int32)
    idx, vals = _sparse(labels)
    loss, _ = P.CTCLoss(collapse, merge)(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(vals),
                                         ms.Tensor(seq))
    ref = [_brute_force(x[:, b], labels[b], seq[b], merge, collapse) for b in range(3)]
    np.testing.assert_allclose(loss.asnumpy(), ref, rtol=1e-10)


def _ctc_case():
    t, b, c = 12, 3, 6
    x = RNG.standard_normal((t, b, c)).astype(np.float32)
    labels = [[1, 2, 2], [0], [3, 1, 4, 4, 0]]
    return x, labels, np.array([12, 7, 10], np.int32)


def test_ctc_loss_matches_torch():
    torch = pytest.importorskip("torch")
    x, labels, seq = _ctc_case()
    idx, vals = _sparse(labels)
    loss, grad = P.CTCLoss()(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(vals), ms.Tensor(seq))
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ref = torch.nn.functional.ctc_loss(
        torch.log_softmax(xt, -1), torch.tensor(vals.astype(np.int64)),
        torch.tensor(seq.astype(np.int64)), torch.tensor([len(v) for v in labels]),
        blank=x.shape[-1] - 1, reduction="none")
    ref.sum().backward()
    np.testing.assert_allclose(loss.asnumpy(), ref.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(grad.asnumpy(), xt.grad.numpy(), atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_ctc_loss_gradient(mode):
    x, labels, seq = _ctc_case()
    x = x.astype(np.float64)
    idx, vals = _sparse(labels)
    op = P.CTCLoss()
    w = RNG.standard_normal(3)

    def loss(a):
        out = op(a, ms.Tensor(idx), ms.Tensor(vals), ms.Tensor(seq))[0]
        return (out * ms.Tensor(w)).sum()

    g = ms.grad(loss)
    g = ms.jit(g) if mode == ms.GRAPH_MODE else g
    got = g(ms.Tensor(x)).asnumpy()

    def f(a):
        return float(loss(ms.Tensor(a)).asnumpy())

    num = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = 1e-6
        num[i] = (f(x + d) - f(x - d)) / 2e-6
    np.testing.assert_allclose(got, num, atol=1e-6)
    assert not got[seq[1]:, 1].any()                      # past sequence_length: no gradient


def test_ctc_loss_errors_and_ignore_longer():
    x = RNG.standard_normal((3, 2, 4)).astype(np.float32)
    seq = ms.Tensor(np.array([3, 3], np.int32))
    idx, vals = _sparse([[1, 1, 2], [0]])                 # 1 1 2 needs 4 steps
    with pytest.raises(ValueError, match=r"not enough time .*required: 4, available: 3"):
        P.CTCLoss()(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(vals), seq)
    loss, grad = P.CTCLoss(ignore_longer_outputs_than_inputs=True)(
        ms.Tensor(x), ms.Tensor(idx), ms.Tensor(vals), seq)
    assert loss.asnumpy()[0] == 0 and not grad.asnumpy()[:, 0].any() and loss.asnumpy()[1] > 0
    idx, vals = _sparse([[3], [0]])                        # 3 = num_classes - 1: the blank
    with pytest.raises(ValueError, match=r"labels must be in \[0, num_classes - 1 = 3\)"):
        P.CTCLoss()(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(vals), seq)

    def f(a, i, v, s):
        return P.CTCLoss()(a, i, v, s)

    with pytest.raises(ms.HostCallbackError, match="labels must be in"):
        ms.jit(f)(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(vals), seq)
    with pytest.raises(ms.CompileError, match=r"inputs must be \(max_time, batch, num_classes\)"):
        ms.jit(f)(ms.Tensor(x[0]), ms.Tensor(idx), ms.Tensor(vals), seq)


# ---- CropAndResize -------------------------------------------------------------------------

def crop_and_resize_ref(image, boxes, box_index, crop_size, method="bilinear", extrap=0.0):
    """TensorFlow's CropAndResize CPU kernel, in its float32 arithmetic."""
    f = np.float32
    _, h, w, d = image.shape
    ch, cw = crop_size
    out = np.zeros((len(boxes), ch, cw, d))
    for n, (y1, x1, y2, x2) in enumerate(boxes.astype(f)):
        bi = box_index[n]
        hs = (y2 - y1) * f(h - 1) / f(ch - 1) if ch > 1 else f(0)
        ws = (x2 - x1) * f(w - 1) / f(cw - 1) if cw > 1 else f(0)
        for y in range(ch):
            in_y = y1 * f(h - 1) + f(y) * hs if ch > 1 else f(0.5) * (y1 + y2) * f(h - 1)
            if in_y < 0 or in_y > h - 1:
                out[n, y] = extrap
                continue
            for x in range(cw):
                in_x = x1 * f(w - 1) + f(x) * ws if cw > 1 else f(0.5) * (x1 + x2) * f(w - 1)
                if in_x < 0 or in_x > w - 1:
                    out[n, y, x] = extrap
                elif method == "nearest":
                    out[n, y, x] = image[bi, int(np.floor(in_y + f(.5))), int(np.floor(in_x + f(.5)))]
                else:
                    ty, by, lx, rx = (int(np.floor(in_y)), int(np.ceil(in_y)), int(np.floor(in_x)),
                                      int(np.ceil(in_x)))
                    yl, xl = in_y - ty, in_x - lx
                    top = image[bi, ty, lx] + (image[bi, ty, rx] - image[bi, ty, lx]) * xl
                    bot = image[bi, by, lx] + (image[bi, by, rx] - image[bi, by, lx]) * xl
                    out[n, y, x] = top + (bot - top) * yl
    return out


IMG = RNG.standard_normal((2, 9, 8, 3)).astype(np.float32)
BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.1, 0.5, 1.3], [0.5, 0.5, 0.5, 0.5],
                  [0.9, 0.7, 0.2, 0.1]], np.float32)          # inside, partly off, a point, flipped
BOX_INDEX = np.array([0, 1, 1, 0], np.int32)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("crop", [(5, 4), (1, 3)])
def test_crop_and_resize_matches_tensorflow_kernel(method, crop):
    op = P.CropAndResize(method, -1.0)
    ref = crop_and_resize_ref(IMG.astype(np.float64), BOXES, BOX_INDEX, crop, method, -1.0)
    for run in (op, ms.jit(lambda a, b, c: op(a, b, c, crop))):
        args = (ms.Tensor(IMG), ms.Tensor(BOXES), ms.Tensor(BOX_INDEX))
        got = run(*args, crop) if run is op else run(*args)
        np.testing.assert_allclose(got.asnumpy(), ref, atol=1e-6)


def test_crop_and_resize_errors():
    args = (ms.Tensor(IMG), ms.Tensor(BOXES), ms.Tensor(BOX_INDEX), (2, 2))
    with pytest.raises(ms.CompileError, match="'bilinear_v2' is not supported"):
        P.CropAndResize("bilinear_v2")(*args)
    with pytest.raises(ms.CompileError, match=r"boxes \(num_boxes, 4\)"):
        P.CropAndResize()(ms.Tensor(IMG), ms.Tensor(BOXES[:, :3]), *args[2:])


def test_crop_and_resize_gradients():
    op = P.CropAndResize()
    boxes = np.array([[0.13, 0.21, 0.77, 0.86], [0.05, 0.32, 0.61, 0.94]], np.float32)
    bidx = np.array([1, 0], np.int32)
    cot = RNG.standard_normal((2, 4, 3, 3))

    def loss(img, bx):
        return (op(img, bx, ms.Tensor(bidx), (4, 3)) * ms.Tensor(cot.astype(np.float32))).sum()

    gi, gb = ms.grad(loss, grad_position=(0, 1))(ms.Tensor(IMG), ms.Tensor(boxes))

    def ref_loss(img, bx):
        return (crop_and_resize_ref(img, bx, bidx, (4, 3)) * cot).sum()

    # linear in the image: exact differences
    x = IMG.astype(np.float64)
    num_i = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = 1.0
        num_i[i] = (ref_loss(x + d, boxes) - ref_loss(x - d, boxes)) / 2
    np.testing.assert_allclose(gi.asnumpy(), num_i, atol=1e-5)
    num_b = np.zeros(boxes.shape)
    for i in np.ndindex(*boxes.shape):
        d = np.zeros(boxes.shape, np.float32)
        d[i] = 1e-3
        num_b[i] = (ref_loss(x, boxes + d) - ref_loss(x, boxes - d)) / 2e-3
    np.testing.assert_allclose(gb.asnumpy(), num_b, rtol=2e-3, atol=2e-3)


# ---- optimizer primitives, LRN, Swiglu, ScalarToArray --------------------------------------

class _Step(nn.Cell):
    def __init__(self, prim, n=5):
        super().__init__()
        self.prim = prim
        self.var = ms.Parameter(ms.Tensor(np.linspace(-1, 1, n).astype(np.float32)), name="var")
        self.m = ms.Parameter(ms.Tensor(np.full(n, 0.1, np.float32)), name="m")
        self.v = ms.Parameter(ms.Tensor(np.full(n, 0.2, np.float32)), name="v")

    def construct(self, *args):
        return self.prim(self.var, self.m, self.v, *args)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_primitive(mode, nesterov):
    ms.set_context(mode=mode)
    try:
        g = RNG.standard_normal(5).astype(np.float32)
        cell = _Step(P.Adam(use_nesterov=nesterov))
        var, m, v = (p.asnumpy().astype(np.float64) for p in (cell.var, cell.m, cell.v))
        b1p, b2p, lr, b1, b2, eps = 0.9 ** 3, 0.999 ** 3, 0.01, 0.9, 0.999, 1e-8
        for _ in range(2):
            cell(ms.Tensor(np.float32(b1p)), ms.Tensor(np.float32(b2p)), ms.Tensor(np.float32(lr)),
                 ms.Tensor(np.float32(b1)), ms.Tensor(np.float32(b2)), ms.Tensor(np.float32(eps)),
                 ms.Tensor(g))
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
            num = m * b1 + (1 - b1) * g if nesterov else m
            var = var - lr_t * num / (np.sqrt(v) + eps)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(cell.var.asnumpy(), var, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cell.m.asnumpy(), m, rtol=1e-5)
    np.testing.assert_allclose(cell.v.asnumpy(), v, rtol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_adam_weight_decay_primitive(mode):
    ms.set_context(mode=mode)
    try:
        g = RNG.standard_normal(5).astype(np.float32)
        cell = _Step(P.AdamWeightDecay())
        var, m, v = (p.asnumpy().astype(np.float64) for p in (cell.var, cell.m, cell.v))
        out = cell(ms.Tensor(np.float32(0.1)), ms.Tensor(np.float32(0.9)),
                   ms.Tensor(np.float32(0.999)), ms.Tensor(np.float32(1e-6)),
                   ms.Tensor(np.float32(0.01)), ms.Tensor(g))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    var = var - 0.1 * (m / (np.sqrt(v) + 1e-6) + 0.01 * var)
    np.testing.assert_allclose(cell.var.asnumpy(), var, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[0].asnumpy(), var, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cell.m.asnumpy(), m, rtol=1e-5)


def _lrn_ref(x, r, bias, alpha, beta):
    sq = np.pad(x ** 2, ((0, 0), (r, r), (0, 0), (0, 0)))
    return x / (bias + alpha * sum(sq[:, k:k + x.shape[1]] for k in range(2 * r + 1))) ** beta


def test_lrn_values_and_gradient():
    x = RNG.standard_normal((2, 7, 3, 4))
    op = P.LRN(2, 1.5, 0.3, 0.75)
    np.testing.assert_allclose(ms.jit(lambda a: op(a))(ms.Tensor(x)).asnumpy(),
                               _lrn_ref(x, 2, 1.5, 0.3, 0.75), rtol=1e-12)
    cot = RNG.standard_normal(x.shape)
    g = ms.grad(lambda a: (op(a) * ms.Tensor(cot)).sum())(ms.Tensor(x)).asnumpy()
    num = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = 1e-6
        num[i] = ((_lrn_ref(x + d, 2, 1.5, 0.3, 0.75) - _lrn_ref(x - d, 2, 1.5, 0.3, 0.75))
                  * cot).sum() / 2e-6
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)
    with pytest.raises(ms.CompileError, match="ACROSS_CHANNELS"):
        P.LRN(norm_region="WITHIN_CHANNEL")(ms.Tensor(x))


def test_swiglu_and_scalar_to_array():
    x = RNG.standard_normal((3, 8))
    a, b = x[:, :4], x[:, 4:]
    np.testing.assert_allclose(P.Swiglu()(ms.Tensor(x)).asnumpy(), a / (1 + np.exp(-a)) * b,
                               rtol=1e-12)
    np.testing.assert_allclose(P.Swiglu(0)(ms.Tensor(x[:2])).asnumpy(),
                               x[:1] / (1 + np.exp(-x[:1])) * x[1:2], rtol=1e-12)
    with pytest.raises(ms.CompileError, match="odd size 3"):
        P.Swiglu(0)(ms.Tensor(x))
    assert P.ScalarToArray()(3).dtype == ms.int32 and P.ScalarToArray()(2.5).dtype == ms.float32
    with pytest.raises(TypeError, match="int or float"):
        P.ScalarToArray()("3")
