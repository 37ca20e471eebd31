"""The LLM / MoE primitives of MindSpore's 200 most used (issue 12): MoE routing
(MoeGatingTopKSoftmax, MoeInitRouting(V2), MoeComputeExpertTokens, MoeFinalizeRouting,
MoeTokenUnpermute, GroupTopk, FusedAddTopKDiv, MoeDistributeDispatch/Combine),
FlashAttentionScore, PagedAttention(Mask), ReshapeAndCache, ApplyRotaryPosEmb and
GroupedMatmul(V4), each against a numpy transcription of its documented formula, in
PyNative and inside jit, gradients against finite differences, and a bad argument each."""
import numpy as np
import pytest
from support.gradcheck import fd

import msmlir as ms
from msmlir.ops import operations as P

RNG = np.random.default_rng(2026)


def T(a):
    return ms.Tensor(a)


def np_(t):
    return t.asnumpy() if hasattr(t, "asnumpy") else np.asarray(t)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)



# ---- MoE routing ---------------------------------------------------------------------------

def test_moe_gating_top_k_softmax():
    x = RNG.standard_normal((5, 8)).astype(np.float32)
    fin = np.array([False, True, False, False, True])
    y, idx, row = P.MoeGatingTopKSoftmax()(T(x), T(fin), 3)
    sm = softmax(x)
    ref_idx = np.argsort(-sm, -1, kind="stable")[:, :3]
    np.testing.assert_allclose(np_(y), np.take_along_axis(sm, ref_idx, -1), rtol=1e-6)
    ref_idx[fin] = 8                                   # finished rows: num_expert
    np.testing.assert_array_equal(np_(idx), ref_idx)
    np.testing.assert_array_equal(np_(row), np.arange(15).reshape(3, 5).T)
    assert np_(idx).dtype == np.int32 and np_(row).dtype == np.int32
    with pytest.raises(ValueError, match="k must be in"):
        P.MoeGatingTopKSoftmax()(T(x), None, 9)


def init_routing_ref(x, row_idx, expert_idx, active_num):
    """The numpy reference of torch_npu/CANN's MoeInitRouting documentation."""
    num_rows, k = x.shape[0], expert_idx.shape[-1]
    order = np.argsort(expert_idx.reshape(-1), kind="stable")
    expanded_expert_idx = np.sort(expert_idx.reshape(-1), kind="stable")
    dst_to_src = np.take_along_axis(row_idx.reshape(-1), order, -1)
    expanded_row_idx = np.zeros(dst_to_src.shape, np.int32)
    expanded_row_idx[dst_to_src] = np.arange(dst_to_src.shape[-1])
    active = min(active_num, num_rows) * k
    return x[dst_to_src[:active] % num_rows], expanded_row_idx, expanded_expert_idx


@pytest.mark.parametrize("active", [6, 4])
def test_moe_init_routing(active):
    n, k, e = 6, 2, 5
    x = RNG.standard_normal((n, 3)).astype(np.float32)
    expert = RNG.integers(0, e, (n, k)).astype(np.int32)
    row = np.arange(n * k, dtype=np.int32).reshape(k, n).T.copy()
    got = P.MoeInitRouting()(T(x), T(row), T(expert), active)
    for g, r in zip(got, init_routing_ref(x, row, expert, active)):
        np.testing.assert_array_equal(np_(g), r)
    with pytest.raises(ValueError, match="disagree"):
        P.MoeInitRouting()(T(x), T(row[:, :1]), T(expert), active)


@pytest.mark.parametrize("flag", [0, 1, 2])
def test_moe_init_routing_v2(flag):
    n, k, e = 7, 3, 4
    x = RNG.standard_normal((n, 5)).astype(np.float32)
    expert = RNG.integers(0, e, (n, k)).astype(np.int32)
    ex, rows, tokens, _ = P.MoeInitRoutingV2()(T(x), T(expert), 10, 0, e, 0, flag, False)
    order = np.argsort(expert.reshape(-1), kind="stable")
    np.testing.assert_array_equal(np_(ex), x[order[:10] // k])
    inv = np.empty_like(order)
    inv[order] = np.arange(n * k)
    np.testing.assert_array_equal(np_(rows), inv)
    counts = np.bincount(expert.reshape(-1), minlength=e)
    if flag:
        np.testing.assert_array_equal(np_(tokens), np.cumsum(counts) if flag == 1 else counts)
    with pytest.raises(ValueError, match="drop_pad_mode=1"):
        P.MoeInitRoutingV2()(T(x), T(expert), 0, 4, e, 1, 0, False)


def test_moe_compute_expert_tokens():
    s = np.sort(RNG.integers(0, 6, 20)).astype(np.int32)
    got = np_(P.MoeComputeExpertTokens()(T(s), 8))
    np.testing.assert_array_equal(got, np.searchsorted(s, np.arange(8), side="right"))
    with pytest.raises(ValueError, match="num_expert must be > 0"):
        P.MoeComputeExpertTokens()(T(s), 0)


def finalize_ref(ex, x1, x2, bias, scales, rows, experts):
    n, k = scales.shape
    out = x1 + x2
    for i in range(n):
        for j in range(k):
            out[i] += scales[i, j] * (ex[rows[i + j * n]] + bias[experts[i, j]])
    return out


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_moe_finalize_routing(mode):
    n, k, h, e = 4, 2, 3, 5
    ex = RNG.standard_normal((n * k, h))
    x1, x2 = RNG.standard_normal((n, h)), RNG.standard_normal((n, h))
    bias = RNG.standard_normal((e, h))
    scales = RNG.random((n, k))
    rows = RNG.permutation(n * k).astype(np.int32)
    experts = RNG.integers(0, e, (n, k)).astype(np.int32)
    op = P.MoeFinalizeRouting()

    def f(a, s):
        return op(a, T(x1), T(x2), T(bias), s, T(rows), T(experts))

    g = ms.jit(f) if mode == "jit" else f
    np.testing.assert_allclose(np_(g(T(ex), T(scales))),
                               finalize_ref(ex, x1, x2, bias, scales, rows, experts), rtol=1e-12)
    w = RNG.standard_normal((n, h))
    loss = lambda a, s: (f(a, s) * T(w)).sum()          # noqa: E731
    ga, gs = ms.grad(loss, (0, 1))(T(ex), T(scales))
    ref = lambda a, s: (finalize_ref(a, x1, x2, bias, s, rows, experts) * w).sum()  # noqa: E731
    np.testing.assert_allclose(np_(ga), fd(lambda a: ref(a, scales), ex), atol=1e-7)
    np.testing.assert_allclose(np_(gs), fd(lambda s: ref(ex, s), scales), atol=1e-7)
    with pytest.raises(ValueError, match="scales must have shape"):
        op(T(ex), T(x1), None, None, T(scales[:, :1]), T(rows))


def test_moe_token_unpermute_and_gradient():
    n, k, h = 4, 2, 3
    tok = RNG.standard_normal((n * k, h))
    idx = RNG.permutation(n * k).astype(np.int32)
    probs = RNG.random((n, k))
    op = P.MoeTokenUnpermute()
    ref = (tok[idx].reshape(n, k, h) * probs[..., None]).sum(1)
    np.testing.assert_allclose(np_(op(T(tok), T(idx), T(probs))), ref, rtol=1e-12)
    np.testing.assert_array_equal(np_(op(T(tok), T(idx))), tok[idx])
    w = RNG.standard_normal((n, h))
    gt, gp = ms.grad(lambda a, p: (op(a, T(idx), p) * T(w)).sum(), (0, 1))(T(tok), T(probs))
    fr = lambda a, p: ((a[idx].reshape(n, k, h) * p[..., None]).sum(1) * w).sum()  # noqa: E731
    np.testing.assert_allclose(np_(gt), fd(lambda a: fr(a, probs), tok), atol=1e-7)
    np.testing.assert_allclose(np_(gp), fd(lambda p: fr(tok, p), probs), atol=1e-7)
    with pytest.raises(ValueError, match="only padded_mode=False"):
        op(T(tok), T(idx), T(probs), True)


def group_mask_ref(x, groups, k, inner):
    n, e = x.shape
    score = -np.sort(-x.reshape(n, groups, e // groups), -1)[..., :inner].sum(-1)
    best = np.argsort(-score, -1, kind="stable")[:, :k]
    keep = np.zeros((n, groups), bool)
    np.put_along_axis(keep, best, True, -1)
    return np.repeat(keep, e // groups, -1)


def test_group_topk():
    x = RNG.standard_normal((6, 12)).astype(np.float32)
    got = np_(P.GroupTopk()(T(x), None, 4, 2, 2))
    np.testing.assert_array_equal(got, np.where(group_mask_ref(x, 4, 2, 2), x, 0))
    with pytest.raises(ValueError, match="group_num > 0 dividing"):
        P.GroupTopk()(T(x), None, 5, 2, 1)


def test_fused_add_top_k_div():
    x = RNG.standard_normal((5, 16)).astype(np.float32)
    add = RNG.standard_normal(16).astype(np.float32) * 0.1
    w, idx = P.FusedAddTopKDiv()(T(x), T(add), 4, 2, 2, 3, 0, True, 2.5)
    s = 1 / (1 + np.exp(-x.astype(np.float64)))
    b = s + add
    masked = np.where(group_mask_ref(b, 4, 2, 2), b, -np.inf)
    ref_idx = np.argsort(-masked, -1, kind="stable")[:, :3]
    np.testing.assert_array_equal(np_(idx), ref_idx)
    ws = np.take_along_axis(s, ref_idx, -1)
    np.testing.assert_allclose(np_(w), ws / ws.sum(-1, keepdims=True) * 2.5, rtol=1e-6)
    assert np_(w).dtype == np.float32 and np_(idx).dtype == np.int32
    with pytest.raises(ValueError, match="enable_expert_mapping"):
        P.FusedAddTopKDiv()(T(x), T(add), 4, 2, 2, 3, 0, True, 2.5, None, None, True)


def test_moe_distribute_dispatch_combine_one_rank():
    bs, k, h, e = 5, 2, 3, 4
    x = RNG.standard_normal((bs, h)).astype(np.float32)
    experts = np.array([[0, 2], [2, 1], [3, 0], [2, 3], [1, 2]], np.int32)
    scales = RNG.random((bs, k)).astype(np.float32)
    out = P.MoeDistributeDispatch()(T(x), T(experts), 1, 0, e, expert_token_nums_type=1)
    ex, _, idx, nums, recv = (np_(v) for v in out[:5])
    order = np.argsort(experts.reshape(-1), kind="stable")
    np.testing.assert_array_equal(ex, x[order // k])
    np.testing.assert_array_equal(nums, np.bincount(experts.reshape(-1), minlength=e))
    flat = experts.reshape(-1)
    np.testing.assert_array_equal(idx, [np.sum(flat[:i] == flat[i]) for i in range(bs * k)])
    # the experts double their tokens; combine weighs them back per token
    y = P.MoeDistributeCombine()(T(ex * 2), T(experts), T(idx), T(recv), T(scales), 1, 0, e)
    np.testing.assert_allclose(np_(y), 2 * x * scales.sum(1, keepdims=True), rtol=1e-6)
    with pytest.raises(ValueError, match="expert-parallel world of one rank"):
        P.MoeDistributeDispatch()(T(x), T(experts), 2, 0, e)


# ---- attention ------------------------------------------------------------------------------

def attention_ref(q, k, v, scale, masked, shift=None):
    """q (B, N, S1, D), k/v (B, N, S2, D); masked (S1, S2) or broadcastable bool."""
    s = np.einsum("bnid,bnjd->bnij", q, k) * scale
    if shift is not None:
        s = s + shift
    s = np.where(masked, -1e30, s)
    p = softmax(s)
    return np.einsum("bnij,bnjd->bnid", p, v), s.max(-1), np.exp(s - s.max(-1, keepdims=True)).sum(-1)


@pytest.mark.parametrize("layout", ["BSH", "BNSD", "SBH", "BSND"])
def test_flash_attention_score_layouts_gqa_and_mask(layout):
    b, n1, n2, s1, s2, d = 2, 4, 2, 3, 5, 4
    q = RNG.standard_normal((b, n1, s1, d)).astype(np.float32)
    k = RNG.standard_normal((b, n2, s2, d)).astype(np.float32)
    v = RNG.standard_normal((b, n2, s2, d)).astype(np.float32)
    mask = RNG.random((s1, s2)) < 0.3
    mask[:, 0] = False
    to = {"BNSD": lambda t: t, "BSND": lambda t: t.transpose(0, 2, 1, 3),
          "BSH": lambda t: t.transpose(0, 2, 1, 3).reshape(t.shape[0], t.shape[2], -1),
          "SBH": lambda t: t.transpose(2, 0, 1, 3).reshape(t.shape[2], t.shape[0], -1)}[layout]
    op = P.FlashAttentionScore(head_num=n1, scale_value=0.5, input_layout=layout)
    mx, sm, _, out = op(T(to(q)), T(to(k)), T(to(v)), None, None, None,
                        T(mask.astype(np.uint8).astype(np.int32)))
    kr, vr = np.repeat(k, 2, 1), np.repeat(v, 2, 1)
    ref, rmax, rsum = attention_ref(q, kr, vr, 0.5, mask)
    np.testing.assert_allclose(np_(out), to(ref), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(np_(mx), np.repeat(rmax[..., None], 8, -1), rtol=1e-5)
    np.testing.assert_allclose(np_(sm), np.repeat(rsum[..., None], 8, -1), rtol=1e-5)


def test_flash_attention_score_causal_modes_and_gradient():
    b, n, s1, s2, d = 1, 2, 3, 4, 3
    q = RNG.standard_normal((b, n, s1, d))
    k = RNG.standard_normal((b, n, s2, d))
    v = RNG.standard_normal((b, n, s2, d))
    shift = RNG.standard_normal((b, n, s1, s2))
    i, j = np.arange(s1)[:, None], np.arange(s2)[None, :]
    for mode, masked in ((2, j > i), (3, j > i + (s2 - s1))):
        op = P.FlashAttentionScore(n, scale_value=0.3, input_layout="BNSD", sparse_mode=mode)
        out = op(T(q), T(k), T(v), T(shift))[3]
        np.testing.assert_allclose(np_(out), attention_ref(q, k, v, 0.3, masked, shift)[0],
                                   rtol=1e-10)
    op = P.FlashAttentionScore(n, scale_value=0.3, input_layout="BNSD", next_tokens=0)
    w = RNG.standard_normal(q.shape)
    g = ms.jit(ms.grad(lambda a: (op(a, T(k), T(v))[3] * T(w)).sum()))(T(q))
    ref = lambda a: (attention_ref(a, k, v, 0.3, j > i)[0] * w).sum()     # noqa: E731
    np.testing.assert_allclose(np_(g), fd(ref, q), atol=1e-7)
    with pytest.raises(ValueError, match="input_layout 'TND'"):
        P.FlashAttentionScore(n, input_layout="TND")(T(q), T(k), T(v))
    with pytest.raises(ValueError, match="dropout"):
        P.FlashAttentionScore(n, keep_prob=0.9, input_layout="BNSD")(T(q), T(k), T(v))


def paged_ref(q, kc, vc, tables, lens, scale, kvh, alibi=None):
    """q (B, S, N, D); caches (blocks, bs, kvh, D): each query token s sees keys
    0..lens[b] - S + s."""
    b, s, n, d = q.shape
    bs = kc.shape[1]
    out = np.zeros((b, s, n, vc.shape[-1]))
    for i in range(b):
        keys = np.concatenate([kc[blk] for blk in tables[i]])[:lens[i]]
        vals = np.concatenate([vc[blk] for blk in tables[i]])[:lens[i]]
        keys = np.repeat(keys, n // kvh, 1)
        vals = np.repeat(vals, n // kvh, 1)
        for t in range(s):
            vis = lens[i] - s + t + 1
            sc = np.einsum("nd,jnd->nj", q[i, t], keys[:vis]) * scale
            if alibi is not None:
                sc = sc + alibi[i, :, t, :vis]
            out[i, t] = np.einsum("nj,jnd->nd", softmax(sc), vals[:vis])
    return out


@pytest.mark.parametrize("seq, kvh", [(1, 4), (2, 2)])
def test_paged_attention(seq, kvh):
    b, n, d, bs, blocks = 3, 4, 8, 4, 10
    kc = RNG.standard_normal((blocks, bs, kvh, d)).astype(np.float32)
    vc = RNG.standard_normal((blocks, bs, kvh, d)).astype(np.float32)
    tables = np.array([RNG.permutation(blocks)[:3] for _ in range(b)], np.int32)
    lens = np.array([5, 12, 2], np.int32)
    q = RNG.standard_normal((b, seq, n, d)).astype(np.float32)
    op = P.PagedAttention(n, scale_value=0.35, kv_head_num=kvh)
    got = op(T(q.reshape(b, seq, n * d)), T(kc), T(vc), T(tables), T(lens))
    ref = paged_ref(q, kc, vc, tables, lens, 0.35, kvh)
    np.testing.assert_allclose(np_(got), ref.reshape(b, seq, n * d), rtol=2e-5, atol=2e-6)
    got2 = op(T(q.reshape(b * seq, n, d)), T(kc.reshape(blocks, bs, kvh * d)), T(vc), T(tables),
              T(lens))
    np.testing.assert_allclose(np_(got2), ref.reshape(b * seq, n, d), rtol=2e-5, atol=2e-6)
    alibi = RNG.standard_normal((b, n, seq, 12)).astype(np.float32)
    got3 = P.PagedAttentionMask(n, scale_value=0.35, kv_head_num=kvh)(
        T(q.reshape(b, seq, n * d)), T(kc), T(vc), T(tables), T(lens), None, None, T(alibi))
    np.testing.assert_allclose(np_(got3), paged_ref(q, kc, vc, tables, lens, 0.35, kvh, alibi)
                               .reshape(b, seq, n * d), rtol=2e-5, atol=2e-6)
    with pytest.raises(ValueError, match="quantized KV caches"):
        op(T(q.reshape(b, seq, n * d)), T(kc), T(vc), T(tables), T(lens), T(np.ones(1)))


def test_reshape_and_cache_updates_the_parameters():
    tokens, heads, d, blocks, bs = 5, 2, 3, 4, 4
    key = RNG.standard_normal((tokens, heads, d)).astype(np.float32)
    val = RNG.standard_normal((tokens, heads, d)).astype(np.float32)
    k0 = RNG.standard_normal((blocks, bs, heads, d)).astype(np.float32)
    v0 = RNG.standard_normal((blocks, bs, heads, d)).astype(np.float32)
    kc, vc = ms.Parameter(T(k0.copy()), name="kc"), ms.Parameter(T(v0.copy()), name="vc")
    slots = np.array([3, 9, -1, 15, 0], np.int32)
    out = P.ReshapeAndCache()(T(key), T(val), kc, vc, T(slots))
    np.testing.assert_array_equal(np_(out), key)
    kr, vr = k0.reshape(-1, heads, d).copy(), v0.reshape(-1, heads, d).copy()
    for t, sl in enumerate(slots):
        if sl >= 0:
            kr[sl], vr[sl] = key[t], val[t]
    np.testing.assert_array_equal(kc.asnumpy(), kr.reshape(k0.shape))
    np.testing.assert_array_equal(vc.asnumpy(), vr.reshape(v0.shape))

    @ms.jit
    def step(k, v, s):
        return P.ReshapeAndCache()(k, v, kc, vc, s)

    step(T(val), T(key), T(np.array([1, 2, 4, 5, 6], np.int32)))
    assert np.array_equal(kc.asnumpy().reshape(-1, heads, d)[[1, 2, 4, 5, 6]], val)
    with pytest.raises(ValueError, match="is not num_tokens"):
        P.ReshapeAndCache()(T(key[:, :1]), None, kc, None, T(slots))


def rope_ref(x, cos, sin, interleaved):
    d = cos.shape[-1]
    h = x.reshape(x.shape[0], -1, d)
    if interleaved:
        rot = np.stack([-h[..., 1::2], h[..., 0::2]], -1).reshape(h.shape)
    else:
        rot = np.concatenate([-h[..., d // 2:], h[..., :d // 2]], -1)
    return (h * cos[:, None] + rot * sin[:, None]).reshape(x.shape)


@pytest.mark.parametrize("fmt", [0, 1, 2, 3])
def test_apply_rotary_pos_emb(fmt):
    tokens, heads, d, max_seq = 5, 3, 8, 16
    q = RNG.standard_normal((tokens, heads * d)).astype(np.float32)
    k = RNG.standard_normal((tokens, 2 * d)).astype(np.float32)
    pos = RNG.integers(0, max_seq, tokens).astype(np.int32)
    inv = 1.0 / 10000 ** (np.arange(0, d, 2) / d)
    ang = np.outer(np.arange(max_seq), inv)
    emb = np.repeat(ang, 2, -1) if fmt in (1, 3) else np.concatenate([ang, ang], -1)
    cos, sin = np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)
    c, s = (cos, sin) if fmt in (0, 1) else (cos[pos], sin[pos])
    qo, ko = P.ApplyRotaryPosEmb(fmt)(T(q), T(k), T(c), T(s), T(pos))
    np.testing.assert_allclose(np_(qo), rope_ref(q, cos[pos], sin[pos], fmt in (1, 3)), atol=1e-6)
    np.testing.assert_allclose(np_(ko), rope_ref(k, cos[pos], sin[pos], fmt in (1, 3)), atol=1e-6)
    with pytest.raises(ValueError, match="cos_format must be"):
        P.ApplyRotaryPosEmb(4)(T(q), T(k), T(c), T(s), T(pos))


# ---- grouped matmul ---------------------------------------------------------------------------

def test_grouped_matmul_lists():
    xs = [RNG.standard_normal((m, 4)) for m in (2, 3)]
    ws = [RNG.standard_normal((4, n)) for n in (5, 6)]
    bs = [RNG.standard_normal(n) for n in (5, 6)]
    ys = P.GroupedMatmul(split_item=0, group_type=-1)([T(a) for a in xs], [T(w) for w in ws],
                                                      [T(b) for b in bs])
    for y, a, w, b in zip(ys, xs, ws, bs):
        np.testing.assert_allclose(np_(y), a @ w + b, rtol=1e-12)
    with pytest.raises(ValueError, match="quantized"):
        P.GroupedMatmul()([T(xs[0])], [T(ws[0])], None, [T(bs[0])])


@pytest.mark.parametrize("counts", [False, True])
def test_grouped_matmul_v4_rows_by_group_list_and_gradient(counts):
    m, k, n, e = 7, 3, 4, 3
    x = RNG.standard_normal((m, k))
    w = RNG.standard_normal((e, k, n))
    sizes = np.array([2, 0, 4])                   # row 6 belongs to no group: zeros
    gl = sizes if counts else np.cumsum(sizes)
    op = P.GroupedMatmulV4()

    def f(a, b):
        return op([a], [b], group_list=T(gl.astype(np.int64)), split_item=3, group_type=0,
                  group_list_type=int(counts))[0]

    ends = np.cumsum(sizes)
    starts = ends - sizes

    def ref(a, b):
        y = np.zeros((m, n))
        for i in range(e):
            y[starts[i]:ends[i]] = a[starts[i]:ends[i]] @ b[i]
        return y

    np.testing.assert_allclose(np_(ms.jit(f)(T(x), T(w))), ref(x, w), rtol=1e-12)
    wt = RNG.standard_normal((m, n))
    gx, gw = ms.grad(lambda a, b: (f(a, b) * T(wt)).sum(), (0, 1))(T(x), T(w))
    np.testing.assert_allclose(np_(gx), fd(lambda a: (ref(a, w) * wt).sum(), x),
                               atol=1e-7)
    np.testing.assert_allclose(np_(gw), fd(lambda b: (ref(x, b) * wt).sum(), w),
                               atol=1e-7)
    # a static group_list splits into one output per group
    ys = P.GroupedMatmul(split_item=1, group_type=0)([T(x)], [T(w)], None, None, None, None,
                                                     None, [2, 3, 6])
    for y, lo, hi, i in zip(ys, (0, 2, 3), (2, 3, 6), range(3)):
        np.testing.assert_allclose(np_(y), x[lo:hi] @ w[i], rtol=1e-12)
    with pytest.raises(ValueError, match="data-dependent shapes"):
        op([T(x)], [T(w)], group_list=T(gl), split_item=0, group_type=0)


def test_ops_moe_token_permute_unpermute_round_trip():
    from msmlir import ops
    n, k, h = 6, 3, 4
    tokens = RNG.standard_normal((n, h))
    idx = RNG.integers(0, 4, (n, k)).astype(np.int32)
    p, s = ops.moe_token_permute(T(tokens), T(idx))
    first = np.argsort(idx.reshape(-1), kind="stable")
    want_s = np.argsort(first, kind="stable")                 # CANN: argsort(argsort(indices))
    np.testing.assert_array_equal(np_(s), want_s)
    want_p = np.empty((n * k, h))
    want_p[want_s] = tokens[np.arange(n * k) // k]
    np.testing.assert_array_equal(np_(p), want_p)
    probs = RNG.random((n, k))
    back = ops.moe_token_unpermute(p, s, T(probs))
    np.testing.assert_allclose(np_(back), tokens * probs.sum(1, keepdims=True), rtol=1e-12)
    p5, _ = ops.moe_token_permute(T(tokens), T(idx), 5)
    np.testing.assert_array_equal(np_(p5), want_p[:5])
    g = ms.grad(lambda t: ops.moe_token_unpermute(ops.moe_token_permute(t, T(idx))[0],
                                                  T(want_s.astype(np.int32)), T(probs)).sum())(
        T(tokens))
    np.testing.assert_allclose(np_(g), np.broadcast_to(probs.sum(1, keepdims=True), (n, h)),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="padded_mode must be False"):
        ops.moe_token_permute(T(tokens), T(idx), None, True)
