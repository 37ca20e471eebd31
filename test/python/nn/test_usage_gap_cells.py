"""nn cells added for the most-used MindSpore names msmlir lacked (issue 12's usage
count): Lamb, SyncBatchNorm, MatMul, ResizeBilinear, Conv2dBnAct/DenseBnAct,
PSNR, SSIM, and DistributedGradReducer exported from msmlir.nn."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, ops
from msmlir.common.parameter import Parameter

RNG = np.random.default_rng(11)


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _lamb_ref(ws, grads, lr, wd, flags, b1=0.9, b2=0.999, eps=1e-6):
    ws = [w.astype(np.float64) for w in ws]
    m = [np.zeros_like(w) for w in ws]
    v = [np.zeros_like(w) for w in ws]
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            mm, vv = m[i] / (1 - b1 ** t), v[i] / (1 - b2 ** t)
            wn, gn = np.linalg.norm(ws[i]), np.linalg.norm(g)
            gh = np.linalg.norm(mm / np.sqrt(vv + eps) + wd * ws[i])
            r = np.clip((wn / gh if gn > 0 else 1.0) if wn > 0 else 1.0, 0, 10)
            u = mm / (np.sqrt(vv) + eps) + (wd * ws[i] if flags[i] and wd > 0 else 0)
            ws[i] = ws[i] - lr * r * u
    return ws


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_lamb_matches_mindspore_update(mode, wd):
    w0 = RNG.standard_normal((3, 4)).astype(np.float32)
    b0 = np.zeros(4, np.float32)          # |w| = 0: trust ratio 1
    grads = [(RNG.standard_normal((3, 4)).astype(np.float32),
              RNG.standard_normal(4).astype(np.float32)) for _ in range(3)]
    w, b = Parameter(ms.Tensor(w0), name="w"), Parameter(ms.Tensor(b0), name="beta")
    opt = nn.Lamb([w, b], learning_rate=0.1, weight_decay=wd)
    for gs in grads:
        opt(tuple(ms.Tensor(g) for g in gs))
    rw, rb = _lamb_ref([w0, b0], grads, 0.1, wd, (True, False))   # 'beta': no decay
    np.testing.assert_allclose(w.asnumpy(), rw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), rb, rtol=1e-5, atol=1e-6)
    assert int(opt.global_step.asnumpy()[0]) == 3


def test_lamb_rejects_bad_beta():
    with pytest.raises(ValueError, match="beta1"):
        nn.Lamb([Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")], 0.1, beta1=1.5)


def test_sync_batchnorm_is_batchnorm_in_one_process(mode):
    x = RNG.standard_normal((4, 3, 5, 5)).astype(np.float32)
    sb, bn = nn.SyncBatchNorm(3), nn.BatchNorm2d(3)
    sb.set_train()
    bn.set_train()
    np.testing.assert_allclose(sb(ms.Tensor(x)).asnumpy(), bn(ms.Tensor(x)).asnumpy(), atol=1e-6)
    np.testing.assert_allclose(sb.moving_variance.asnumpy(), bn.moving_variance.asnumpy(),
                               atol=1e-7)
    x2 = RNG.standard_normal((6, 3)).astype(np.float32)
    s2 = nn.SyncBatchNorm(3)
    s2.set_train()
    np.testing.assert_allclose(s2(ms.Tensor(x2)).asnumpy(),
                               (x2 - x2.mean(0)) / np.sqrt(x2.var(0) + 1e-5), atol=1e-5)
    with pytest.raises(ValueError, match="2-D or 4-D"):
        s2(ms.Tensor(np.ones((2, 3, 4), np.float32)))


def test_matmul_cell(mode):
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((5, 4)).astype(np.float32)
    out = nn.MatMul(transpose_x2=True)(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(out, a @ b.T, rtol=1e-5, atol=1e-6)
    out = nn.MatMul(transpose_x1=True)(ms.Tensor(a), ms.Tensor(a)).asnumpy()
    np.testing.assert_allclose(out, a.transpose(0, 2, 1) @ a, rtol=1e-5, atol=1e-5)


def test_resize_bilinear_cell(mode):
    x = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    by_scale = nn.ResizeBilinear()(ms.Tensor(x), scale_factor=2).asnumpy()
    by_size = nn.ResizeBilinear()(ms.Tensor(x), size=(6, 8)).asnumpy()
    np.testing.assert_array_equal(by_scale, by_size)
    # align_corners=False, no half-pixel centres: source = dst * in / out
    ref = np.empty((1, 2, 6, 8), np.float64)
    for i in range(6):
        for j in range(8):
            sy, sx = i * 3 / 6, j * 4 / 8
            y0, x0 = int(np.floor(sy)), int(np.floor(sx))
            y1, x1 = min(y0 + 1, 2), min(x0 + 1, 3)
            fy, fx = sy - y0, sx - x0
            top = x[..., y0, x0] * (1 - fx) + x[..., y0, x1] * fx
            bot = x[..., y1, x0] * (1 - fx) + x[..., y1, x1] * fx
            ref[..., i, j] = top * (1 - fy) + bot * fy
    np.testing.assert_allclose(by_size, ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="exactly one of 'size' and 'scale_factor'"):
        nn.ResizeBilinear()(ms.Tensor(x))


def test_conv2d_bn_act_and_dense_bn_act(mode):
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    net = nn.Conv2dBnAct(3, 4, 3, has_bn=True, activation="relu")
    net.set_train(False)
    ref = ops.relu(net.batchnorm(net.conv(ms.Tensor(x)))).asnumpy()
    out = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    assert out.shape == (2, 4, 6, 6) and out.min() >= 0
    d = nn.DenseBnAct(3, 5, activation="leakyrelu", alpha=0.3)
    x2 = RNG.standard_normal((4, 3)).astype(np.float32)
    y = d.dense(ms.Tensor(x2)).asnumpy()
    np.testing.assert_allclose(d(ms.Tensor(x2)).asnumpy(), np.where(y > 0, y, 0.3 * y),
                               rtol=1e-5, atol=1e-6)
    assert d.batchnorm is None


def test_psnr_and_ssim(mode):
    a = RNG.uniform(0, 1, (2, 3, 16, 16)).astype(np.float32)
    b = np.clip(a + 0.05 * RNG.standard_normal(a.shape), 0, 1).astype(np.float32)
    psnr = nn.PSNR(max_val=1.0)(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(psnr, 10 * np.log10(1.0 / ((a - b) ** 2).mean((1, 2, 3))),
                               rtol=1e-5)
    ssim = nn.SSIM()(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(ssim, _ssim_ref(a, b), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nn.SSIM()(ms.Tensor(a), ms.Tensor(a)).asnumpy(), [1, 1],
                               rtol=1e-5)
    with pytest.raises(ValueError, match="4-D"):
        nn.PSNR()(ms.Tensor(a[0]), ms.Tensor(b[0]))


def _ssim_ref(a, b, size=11, sigma=1.5, k1=0.01, k2=0.03):
    c = np.arange(size) - (size - 1) / 2
    g = np.exp(-0.5 * (c[None] ** 2 + c[:, None] ** 2) / sigma ** 2)
    g /= g.sum()

    def blur(x):
        n = x.shape[-1] - size + 1
        out = np.zeros(x.shape[:-2] + (n, n))
        for i in range(size):
            for j in range(size):
                out += g[i, j] * x[..., i:i + n, j:j + n]
        return out
    a, b = a.astype(np.float64), b.astype(np.float64)
    ma, mb = blur(a), blur(b)
    sa, sb, sab = blur(a * a) - ma ** 2, blur(b * b) - mb ** 2, blur(a * b) - ma * mb
    c1, c2 = k1 ** 2, k2 ** 2
    s = (2 * ma * mb + c1) * (2 * sab + c2) / ((ma ** 2 + mb ** 2 + c1) * (sa + sb + c2))
    return s.mean((1, 2, 3))


def test_distributed_grad_reducer_is_exported():
    from msmlir.nn.distributed import DistributedGradReducer
    assert nn.DistributedGradReducer is DistributedGradReducer


def _conv3d_ref(x, w, b, stride, dil, pads, group=1):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + tuple(pads))
    n, c, d, h, wd = x.shape
    o, cg, kd, kh, kw = w.shape
    od = (d - (kd - 1) * dil[0] - 1) // stride[0] + 1
    oh = (h - (kh - 1) * dil[1] - 1) // stride[1] + 1
    ow = (wd - (kw - 1) * dil[2] - 1) // stride[2] + 1
    out = np.zeros((n, o, od, oh, ow))
    og = o // group
    for g in range(group):
        for i in range(kd):
            for j in range(kh):
                for k in range(kw):
                    patch = x[:, g * cg:(g + 1) * cg,
                              i * dil[0]:i * dil[0] + stride[0] * (od - 1) + 1:stride[0],
                              j * dil[1]:j * dil[1] + stride[1] * (oh - 1) + 1:stride[1],
                              k * dil[2]:k * dil[2] + stride[2] * (ow - 1) + 1:stride[2]]
                    out[:, g * og:(g + 1) * og] += np.einsum(
                        "ncdhw,oc->nodhw", patch, w[g * og:(g + 1) * og, :, i, j, k])
    return out + (0 if b is None else b.reshape(1, -1, 1, 1, 1))


def test_conv3d(mode):
    x = RNG.standard_normal((2, 4, 7, 6, 5)).astype(np.float32)
    net = nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 2), pad_mode="pad",
                    padding=(1, 0, 1, 1, 0, 2), dilation=(1, 2, 1), group=2, has_bias=True)
    ref = _conv3d_ref(x, net.weight.asnumpy(), net.bias.asnumpy(), (2, 1, 2), (1, 2, 1),
                      ((1, 0), (1, 1), (0, 2)), 2)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    same = nn.Conv3d(4, 3, 3, stride=2)          # 'same': out = ceil(in / stride)
    out = same(ms.Tensor(x)).asnumpy()
    ref = _conv3d_ref(x, same.weight.asnumpy(), None, (2, 2, 2), (1, 1, 1),
                      ((1, 1), (0, 1), (1, 1)))
    assert out.shape == (2, 3, 4, 3, 3)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    valid = nn.Conv3d(4, 2, 2, pad_mode="valid")
    np.testing.assert_allclose(valid(ms.Tensor(x)).asnumpy(),
                               _conv3d_ref(x, valid.weight.asnumpy(), None, (1, 1, 1),
                                           (1, 1, 1), ((0, 0),) * 3), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="5-D"):
        valid(ms.Tensor(x[0]))
    with pytest.raises(ValueError, match="padding"):
        nn.Conv3d(4, 2, 2, pad_mode="same", padding=1)


def test_conv3d_gradient():
    x = RNG.standard_normal((1, 2, 4, 4, 4)).astype(np.float32)
    net = nn.Conv3d(2, 3, 3, pad_mode="valid")
    w = net.weight.asnumpy()
    g = ms.grad(lambda t: ops.reduce_sum(net(t) * net(t)))(ms.Tensor(x)).asnumpy()

    def f(xx):
        y = _conv3d_ref(xx, w, None, (1, 1, 1), (1, 1, 1), ((0, 0),) * 3)
        return (y * y).sum()
    for idx in [(0, 0, 1, 2, 3), (0, 1, 0, 0, 0), (0, 1, 3, 2, 1)]:
        e = np.zeros_like(x, dtype=np.float64)
        e[idx] = 1e-4
        fd = (f(x + e) - f(x - e)) / 2e-4
        np.testing.assert_allclose(g[idx], fd, rtol=1e-3, atol=1e-3)
