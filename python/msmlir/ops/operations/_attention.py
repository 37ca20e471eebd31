"""The transformer primitives of MindSpore 2.x that LLM code (mindformers) calls:
FlashAttentionScore, PagedAttention(Mask) over a block-wise KV cache,
ReshapeAndCache, ApplyRotaryPosEmb and GroupedMatmul(V4). On the NPU each is one
fused kernel; here each is a composition of the functional ops with the
documented formula (so it compiles inside jit, runs in PyNative and is
differentiated by the composition), not the NPU's blocked algorithm.
"""
from __future__ import annotations

import numpy as _np

from ... import dtype as _dt
from ... import ops as F
from ...frontend import builder as _b

_NEG = -1e30          # a masked score: exp underflows to 0 in float32 and float16 math


def _t(x):
    return F.to_tensor(x)


# ---- FlashAttentionScore ----------------------------------------------------------------------

def _to_bnsd(t, layout, heads, name, what):
    """(B, N, S, D) view of q/k/v in `layout` (BSH, SBH, BSND, BNSD)."""
    if layout in ("BSH", "SBH"):
        if t.ndim != 3 or t.shape[2] % heads:
            _b.error(f"For '{name}', {what} in layout {layout} must be 3-D with H divisible by "
                     f"its {heads} heads, got shape {tuple(t.shape)}", kind=ValueError)
        if layout == "SBH":
            t = F.transpose(t, (1, 0, 2))
        b, s, h = t.shape
        return F.transpose(F.reshape(t, (b, s, heads, h // heads)), (0, 2, 1, 3))
    if t.ndim != 4:
        _b.error(f"For '{name}', {what} in layout {layout} must be 4-D, got shape "
                 f"{tuple(t.shape)}", kind=ValueError)
    return F.transpose(t, (0, 2, 1, 3)) if layout == "BSND" else t


def _from_bnsd(t, layout):
    b, n, s, d = t.shape
    if layout == "BNSD":
        return t
    t = F.transpose(t, (0, 2, 1, 3))                                   # B S N D
    if layout == "BSND":
        return t
    t = F.reshape(t, (b, s, n * d))
    return F.transpose(t, (1, 0, 2)) if layout == "SBH" else t


def _band_mask(s1, s2, pre, nxt, sparse_mode):
    """(s1, s2) bool, True = masked, for sparse_mode 0 (pre/next tokens band), 2
    (causal from the top-left) and 3 (causal from the bottom-right)."""
    i = _np.arange(s1)[:, None]
    j = _np.arange(s2)[None, :]
    if sparse_mode == 2:
        m = j > i
    elif sparse_mode == 3:
        m = j > i + (s2 - s1)
    else:
        m = (j > i + nxt) | (j < i - pre)
    return m


def flash_attention_score(s, query, key, value, real_shift=None, drop_mask=None,
                          padding_mask=None, attn_mask=None, prefix=None, actual_seq_qlen=None,
                          actual_seq_kvlen=None):
    """(softmax_max, softmax_sum, softmax_out, attention_out): attention_out =
    softmax(q k^T * scale_value + real_shift, masked where attn_mask is 1 and outside
    the sparse band) v, in the query's layout; softmax_max / softmax_sum (B, N1, S1, 8)
    float32 are the row max and the row sum of exp(score - max), repeated 8 times."""
    name = "FlashAttentionScore"
    layout = s.input_layout
    if layout not in ("BSH", "SBH", "BSND", "BNSD"):
        _b.error(f"For '{name}', input_layout {layout!r} is not supported (BSH, SBH, BSND, "
                 f"BNSD; TND needs actual_seq_qlen and is not supported)", kind=ValueError)
    if s.sparse_mode not in (0, 2, 3):
        _b.error(f"For '{name}', sparse_mode {s.sparse_mode} is not supported (0, 2, 3)",
                 kind=ValueError)
    if s.keep_prob != 1.0 or drop_mask is not None:
        _b.error(f"For '{name}', attention dropout (keep_prob < 1 / drop_mask) is not "
                 f"supported; apply ops.dropout to the scores' consumer instead", kind=ValueError)
    if padding_mask is not None or prefix is not None or actual_seq_qlen is not None or \
            actual_seq_kvlen is not None:
        _b.error(f"For '{name}', padding_mask, prefix and actual_seq_qlen / actual_seq_kvlen "
                 f"are not supported", kind=ValueError)
    q, k, v = _t(query), _t(key), _t(value)
    n1 = int(s.head_num)
    qb = _to_bnsd(q, layout, n1, name, "query")
    b, _, s1, d = qb.shape
    if layout in ("BSH", "SBH"):
        kh = k.shape[2]
        if kh % d:
            _b.error(f"For '{name}', key's hidden size {kh} is not a multiple of the head dim {d}",
                     kind=ValueError)
        n2 = kh // d
    else:
        n2 = k.shape[2] if layout == "BSND" else k.shape[1]
    if n2 <= 0 or n1 % n2:
        _b.error(f"For '{name}', head_num {n1} must be a multiple of key's {n2} heads",
                 kind=ValueError)
    kb = _to_bnsd(k, layout, n2, name, "key")
    vb = _to_bnsd(v, layout, n2, name, "value")
    s2 = kb.shape[2]
    if n2 != n1:                                                        # grouped-query
        rep = n1 // n2
        kb = F.reshape(F.tile(F.expand_dims(kb, 2), (1, 1, rep, 1, 1)), (b, n1, s2, d))
        vb = F.reshape(F.tile(F.expand_dims(vb, 2), (1, 1, rep, 1, 1)), (b, n1, s2, vb.shape[3]))
    f32 = _dt.float64 if q.dtype == _dt.float64 else _dt.float32       # f16/bf16 in f32
    score = F.mul(F.batch_matmul(F.cast(qb, f32), F.cast(kb, f32), transpose_b=True),
                  float(s.scale_value))
    if real_shift is not None:
        score = F.add(score, F.cast(_t(real_shift), f32))
    masked = F.to_tensor(_band_mask(s1, s2, int(s.pre_tokens), int(s.next_tokens),
                                    int(s.sparse_mode)))
    if attn_mask is not None and s.sparse_mode == 0:
        masked = F.logical_or(masked, F.cast(_t(attn_mask), _dt.bool_))
    masked = F.broadcast_to(masked, score.shape)
    score = F.select(masked, F.fill(f32, score.shape, _NEG), score)
    mx = F.reduce_max(score, -1, True)
    ex = F.exp(F.sub(score, mx))
    sm = F.reduce_sum(ex, -1, True)
    prob = F.div(ex, sm)
    out = F.batch_matmul(prob, F.cast(vb, f32))
    out = F.cast(_from_bnsd(out, layout), q.dtype)
    rep8 = (1, 1, 1, 8)
    mx, sm = F.cast(mx, _dt.float32), F.cast(sm, _dt.float32)
    return (F.tile(F.stop_gradient(mx), rep8), F.tile(F.stop_gradient(sm), rep8),
            F.zeros((1,), q.dtype), out)


# ---- block-wise KV cache --------------------------------------------------------------------

def _cache_rows(cache, name):
    """The cache (num_blocks, block_size, heads, dim) or (num_blocks, block_size, hidden) as
    (num_blocks * block_size, hidden)."""
    c = _t(cache)
    if c.ndim not in (3, 4):
        _b.error(f"For '{name}', a cache must be (num_blocks, block_size, num_heads, head_dim) "
                 f"or (num_blocks, block_size, hidden), got shape {tuple(c.shape)}",
                 kind=ValueError)
    hidden = int(_np.prod(c.shape[2:]))
    return F.reshape(c, (c.shape[0] * c.shape[1], hidden)), c


def reshape_and_cache(s, key, value=None, key_cache=None, value_cache=None, slot_mapping=None):
    """Writes key[t] (and value[t]) into row slot_mapping[t] of the caches seen as
    (num_blocks * block_size, hidden) — block slot // block_size, offset slot %
    block_size; a negative slot (padding) writes nothing. The caches are Parameters
    updated in place; the output is key (as MindSpore)."""
    name = "ReshapeAndCache"
    if key_cache is None or slot_mapping is None:
        _b.error(f"For '{name}', key_cache and slot_mapping are required", kind=ValueError)
    slots = F.cast(_t(slot_mapping), _dt.int32)
    if slots.ndim != 1:
        _b.error(f"For '{name}', slot_mapping must be 1-D (num_tokens,), got shape "
                 f"{tuple(slots.shape)}", kind=ValueError)
    ntok = slots.shape[0]
    updates = []
    for src, cache, what in ((key, key_cache, "key"), (value, value_cache, "value")):
        if src is None or cache is None:
            continue
        rows, c = _cache_rows(cache, name)
        x = _t(src)
        size = int(_np.prod(x.shape))
        if size != ntok * rows.shape[1]:
            _b.error(f"For '{name}', {what} of shape {tuple(x.shape)} is not num_tokens "
                     f"({ntok}) x the cache's hidden size ({rows.shape[1]})", kind=ValueError)
        x = F.cast(F.reshape(x, (ntok, rows.shape[1])), c.dtype)
        nrows = rows.shape[0]
        # padding slots (< 0) go to one extra row that is cut off again
        dest = F.select(F.less(slots, 0), F.fill(_dt.int32, slots.shape, nrows), slots)
        grown = F.concat((rows, F.zeros((1, rows.shape[1]), c.dtype)), 0)
        new = F.tensor_scatter_update(grown, F.expand_dims(dest, 1), x)
        new = F.reshape(F.slice(new, (0, 0), (nrows, rows.shape[1])), tuple(c.shape))
        updates.append(F.assign(cache, new))
    out = _t(key)
    for u in updates:
        out = F.depend(out, u)
    return out


def _paged_attention(s, name, query, key_cache, value_cache, block_tables, context_lens,
                     antiquant_scale=None, antiquant_offset=None, attn_mask=None,
                     q_seq_lens=None, alibi_mask=None):
    """softmax(q k^T * scale_value (+ alibi_mask)) v over each sequence's first
    context_lens[b] cached tokens, found through block_tables[b]; query (B, S, N*D)
    or (B*S, N, D); with S > 1 the S query tokens are the last S positions of the
    context, each attending causally."""
    if antiquant_scale is not None or antiquant_offset is not None or \
            s.kv_cache_quant_mode not in ("DEFAULT", 0):
        _b.error(f"For '{name}', quantized KV caches (antiquant_scale/offset) are not supported",
                 kind=ValueError)
    if attn_mask is not None or q_seq_lens is not None:
        _b.error(f"For '{name}', attn_mask / q_seq_lens are not supported: the query tokens "
                 f"of a sequence attend causally to its context", kind=ValueError)
    if value_cache is None or int(getattr(s, "mla_v_dim", 0) or 0):
        _b.error(f"For '{name}', a value_cache is required (MLA's mla_v_dim is not supported)",
                 kind=ValueError)
    n = int(s.head_num)
    q = _t(query)
    bt = F.cast(_t(block_tables), _dt.int32)
    lens = F.cast(_t(context_lens), _dt.int32)
    if bt.ndim != 2 or lens.ndim != 1 or lens.shape[0] != bt.shape[0]:
        _b.error(f"For '{name}', block_tables must be (batch, max_blocks) and context_lens "
                 f"(batch,), got {tuple(bt.shape)} and {tuple(lens.shape)}", kind=ValueError)
    b, nblk = bt.shape
    krows, kc = _cache_rows(key_cache, name)
    vrows, vc = _cache_rows(value_cache, name)
    bs = kc.shape[1]
    kvh = int(s.kv_head_num) or n
    if krows.shape[1] % kvh or n % kvh:
        _b.error(f"For '{name}', the key cache's hidden size {krows.shape[1]} is not a multiple "
                 f"of kv_head_num ({kvh}), or head_num {n} is not a multiple of kv_head_num",
                 kind=ValueError)
    d = krows.shape[1] // kvh
    bsh = q.ndim == 3 and q.shape[0] == b and q.shape[2] == n * d
    if bsh:
        seq = q.shape[1]
    elif q.ndim == 3 and tuple(q.shape[1:]) == (n, d) and q.shape[0] % b == 0:
        seq = q.shape[0] // b
    else:
        _b.error(f"For '{name}', query must be (batch, seq, head_num * head_dim) or "
                 f"(batch * seq, head_num, head_dim) with batch {b}, head_num {n}, head_dim {d} "
                 f"(the key cache's), got {tuple(q.shape)}", kind=ValueError)
    qh = F.transpose(F.reshape(q, (b, seq, n, d)), (0, 2, 1, 3))        # B N S D
    L = nblk * bs
    slot = F.add(F.expand_dims(F.mul(bt, bs), -1),
                 F.to_tensor(_np.arange(bs, dtype=_np.int32).reshape(1, 1, bs)))
    slot = F.reshape(F.maximum(slot, 0), (b * L,))
    dv = vrows.shape[1] // kvh

    def heads(rows, dd):
        t = F.reshape(F.gather(rows, slot, 0), (b, L, kvh, dd))
        t = F.transpose(t, (0, 2, 1, 3))                                # B KVH L D
        if kvh != n:
            t = F.reshape(F.tile(F.expand_dims(t, 2), (1, 1, n // kvh, 1, 1)), (b, n, L, dd))
        return F.cast(t, cdt)

    cdt = _dt.float64 if q.dtype == _dt.float64 else _dt.float32
    kk, vv = heads(krows, d), heads(vrows, dv)
    score = F.mul(F.batch_matmul(F.cast(qh, cdt), kk, transpose_b=True),
                  float(s.scale_value))                                 # B N S L
    if alibi_mask is not None:
        am = F.cast(_t(alibi_mask), cdt)
        if am.shape[-1] < L:
            am = F.pad(am, (0, L - am.shape[-1]))
        elif am.shape[-1] > L:
            am = F.slice(am, (0,) * am.ndim, tuple(am.shape[:-1]) + (L,))
        score = F.add(score, am)
    # key j is visible to query token i (position len - seq + i) when j <= that position
    pos = F.to_tensor(_np.arange(L, dtype=_np.int32).reshape(1, 1, 1, L))
    last = F.add(F.reshape(F.sub(lens, seq), (b, 1, 1, 1)),
                 F.to_tensor(_np.arange(seq, dtype=_np.int32).reshape(1, 1, seq, 1)))
    visible = F.broadcast_to(F.less_equal(pos, last), score.shape)
    score = F.select(visible, score, F.fill(cdt, score.shape, _NEG))
    out = F.batch_matmul(F.softmax(score, -1), vv)                      # B N S Dv
    out = F.transpose(out, (0, 2, 1, 3))
    shape = (b, seq, n * dv) if bsh else (b * seq, n, dv)
    return F.cast(F.reshape(out, shape), q.dtype)


def paged_attention(s, query, key_cache, value_cache=None, block_tables=None, context_lens=None,
                    antiquant_scale=None, antiquant_offset=None, attn_mask=None, q_seq_lens=None,
                    alibi_mask=None):
    return _paged_attention(s, "PagedAttention", query, key_cache, value_cache, block_tables,
                            context_lens, antiquant_scale, antiquant_offset, attn_mask,
                            q_seq_lens, alibi_mask)


def paged_attention_mask(s, query, key_cache, value_cache, block_tables, context_lens,
                         antiquant_scale=None, antiquant_offset=None, alibi_mask=None):
    return _paged_attention(s, "PagedAttentionMask", query, key_cache, value_cache, block_tables,
                            context_lens, antiquant_scale, antiquant_offset, None, None,
                            alibi_mask)


# ---- rotary position embedding ------------------------------------------------------------------

def _rotate(x, interleaved):
    d = x.shape[-1]
    if interleaved:                      # pairs (x0, x1) -> (-x1, x0)
        pairs = F.reshape(x, tuple(x.shape[:-1]) + (d // 2, 2))
        a, b = F.split(pairs, 1, -1)
        return F.reshape(F.concat((F.neg(b), a), -1), tuple(x.shape))
    a, b = F.split(x, d // 2, -1)        # halves (x1, x2) -> (-x2, x1)
    return F.concat((F.neg(b), a), -1)


def apply_rotary_pos_emb(s, query, key, cos, sin, position_ids, cos_format=None):
    """(q * cos + rotate(q) * sin, the same for key) per head: query/key (tokens,
    N*D) or (B, S, N*D); cos/sin (tokens, D) for cos_format 2/3, or (max_seq, D)
    gathered at position_ids (one per token) for 0/1; formats 0/2 rotate halves,
    1/3 interleaved pairs."""
    name = "ApplyRotaryPosEmb"
    fmt = s.cos_format if cos_format is None else cos_format
    if fmt not in (0, 1, 2, 3):
        _b.error(f"For '{name}', cos_format must be 0, 1, 2 or 3, got {fmt!r}", kind=ValueError)
    c, sn = _t(cos), _t(sin)
    if c.ndim != 2 or tuple(sn.shape) != tuple(c.shape) or c.shape[1] % 2:
        _b.error(f"For '{name}', cos and sin must be equal 2-D (rows, head_dim) with an even "
                 f"head_dim, got {tuple(c.shape)} and {tuple(sn.shape)}", kind=ValueError)
    d = c.shape[1]
    outs = []
    for x, what in ((query, "query"), (key, "key")):
        t = _t(x)
        if t.ndim not in (2, 3) or t.shape[-1] % d:
            _b.error(f"For '{name}', {what} must be (tokens, N*D) or (batch, seq, N*D) with D = "
                     f"{d}, got {tuple(t.shape)}", kind=ValueError)
        tokens = int(_np.prod(t.shape[:-1]))
        if fmt in (0, 1):
            pid = F.cast(F.reshape(_t(position_ids), (-1,)), _dt.int32)
            if pid.shape[0] != tokens:
                _b.error(f"For '{name}', cos_format {fmt} gathers cos/sin at position_ids, one "
                         f"per token: need {tokens}, got {pid.shape[0]} (prefill with per-batch "
                         f"sequence lengths is not supported)", kind=ValueError)
            cc, ss = F.gather(c, pid, 0), F.gather(sn, pid, 0)
        else:
            if c.shape[0] != tokens:
                _b.error(f"For '{name}', cos_format {fmt} needs cos/sin with one row per token "
                         f"({tokens}), got {c.shape[0]}", kind=ValueError)
            cc, ss = c, sn
        heads = t.shape[-1] // d
        h = F.reshape(t, (tokens, heads, d))
        cc = F.cast(F.expand_dims(cc, 1), t.dtype)
        ss = F.cast(F.expand_dims(ss, 1), t.dtype)
        r = F.add(F.mul(h, cc), F.mul(_rotate(h, fmt in (1, 3)), ss))
        outs.append(F.reshape(r, tuple(t.shape)))
    return tuple(outs)


# ---- grouped matmul ---------------------------------------------------------------------------

def _seq(v):
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _mm(x, w, ta, tb):
    return F.matmul(F.transpose(x, (1, 0)) if ta else x,
                    F.transpose(w, (1, 0)) if tb else w)


def _grouped_matmul(name, x, weight, bias, quant, group_list, split_item, group_type,
                    group_list_type, transpose_a, transpose_b):
    """y = x @ w (+ b) per group: group_type -1: one product per (x_i, w_i); 0: the rows
    of one x split by group_list (cumulative ends, or counts with group_list_type 1)
    among the experts' weights; split_item 0/1: a tuple of outputs, 2/3: one."""
    if any(q is not None for q in quant):
        _b.error(f"For '{name}', quantized matmul (scale, offset, antiquant_*) is not supported",
                 kind=ValueError)
    if split_item not in (0, 1, 2, 3) or group_type not in (-1, 0):
        _b.error(f"For '{name}', split_item must be 0-3 and group_type -1 or 0 (2, K-split, is "
                 f"not supported), got {split_item}, {group_type}", kind=ValueError)
    xs, ws, bs = [_t(v) for v in _seq(x)], [_t(v) for v in _seq(weight)], \
        [_t(v) for v in _seq(bias)]
    if len(ws) == 1 and ws[0].ndim == 3:
        ws = [F.squeeze(F.slice(ws[0], (i, 0, 0), (1,) + tuple(ws[0].shape[1:])), 0)
              for i in range(ws[0].shape[0])]
    if len(bs) == 1 and bs[0].ndim == 2 and len(ws) > 1:
        bs = [F.squeeze(F.slice(bs[0], (i, 0), (1, bs[0].shape[1])), 0)
              for i in range(bs[0].shape[0])]
    if bs and len(bs) != len(ws):
        _b.error(f"For '{name}', {len(bs)} biases for {len(ws)} weights", kind=ValueError)
    if group_type == -1:
        if len(xs) != len(ws):
            _b.error(f"For '{name}', group_type -1 multiplies x[i] by weight[i]: got {len(xs)} x "
                     f"and {len(ws)} weights", kind=ValueError)
        ys = [_mm(a, w, transpose_a, transpose_b) for a, w in zip(xs, ws)]
        if bs:
            ys = [F.add(y, b) for y, b in zip(ys, bs)]
        if split_item in (2, 3):
            return (F.concat(ys, 0),)
        return tuple(ys)
    # group_type 0: the rows of x belong to consecutive groups
    xt = xs[0] if len(xs) == 1 else F.concat(xs, 0)
    if transpose_a:
        _b.error(f"For '{name}', transpose_a is not supported with group_type 0", kind=ValueError)
    m, e = xt.shape[0], len(ws)
    if group_list is None:
        _b.error(f"For '{name}', group_type 0 needs group_list", kind=ValueError)
    if isinstance(group_list, (list, tuple)):
        ends = _np.asarray(group_list, dtype=_np.int64)
        if group_list_type == 1:
            ends = _np.cumsum(ends)
        if len(ends) != e or (len(ends) > 1 and _np.any(_np.diff(ends) < 0)) or ends[-1] > m:
            _b.error(f"For '{name}', group_list {list(group_list)} must give {e} non-decreasing "
                     f"row ends <= {m}", kind=ValueError)
        starts = _np.concatenate([[0], ends[:-1]])
        ys = []
        for i in range(e):
            part = F.slice(xt, (int(starts[i]), 0), (int(ends[i] - starts[i]), xt.shape[1]))
            y = _mm(part, ws[i], False, transpose_b)
            ys.append(F.add(y, bs[i]) if bs else y)
        if split_item in (2, 3):
            return (F.concat(ys, 0),)
        return tuple(ys)
    if split_item in (0, 1):
        _b.error(f"For '{name}', split_item {split_item} with a Tensor group_list gives outputs "
                 f"of data-dependent shapes; use split_item 3 (one output) or a tuple group_list",
                 kind=ValueError)
    gl = F.cast(_t(group_list), _dt.int32)
    ends = F.cumsum(gl, 0) if group_list_type == 1 else gl
    starts = F.concat((F.zeros((1,), _dt.int32), F.slice(ends, (0,), (e - 1,))), 0) if e > 1 \
        else F.zeros((1,), _dt.int32)
    rows = F.to_tensor(_np.arange(m, dtype=_np.int32).reshape(m, 1))
    out = None
    for i in range(e):
        lo = F.slice(starts, (i,), (1,))
        hi = F.slice(ends, (i,), (1,))
        inside = F.logical_and(F.greater_equal(rows, lo), F.less(rows, hi))     # (m, 1)
        y = _mm(xt, ws[i], False, transpose_b)
        if bs:
            y = F.add(y, bs[i])
        y = F.select(F.broadcast_to(inside, y.shape), y, F.zeros_like(y))
        out = y if out is None else F.add(out, y)
    return (out,)


def grouped_matmul(s, x, weight, bias=None, scale=None, offset=None, antiquant_scale=None,
                   antiquant_offset=None, group_list=None):
    return _grouped_matmul("GroupedMatmul", x, weight, bias,
                           (scale, offset, antiquant_scale, antiquant_offset), group_list,
                           int(s.split_item), int(s.group_type), 0, bool(s.transpose_a),
                           bool(s.transpose_b))


def grouped_matmul_v4(s, x, weight, bias=None, scale=None, offset=None, antiquant_scale=None,
                      antiquant_offset=None, pre_token_scale=None, group_list=None,
                      activation_input=None, activation_quant_scale=None,
                      activation_quant_offset=None, split_item=0, group_type=-1,
                      group_list_type=0, act_type=0, output_dtype=None):
    if int(act_type) != 0 or activation_input is not None:
        _b.error("For 'GroupedMatmulV4', fused activations (act_type != 0) are not supported",
                 kind=ValueError)
    if int(group_list_type) not in (0, 1):
        _b.error(f"For 'GroupedMatmulV4', group_list_type must be 0 (cumulative) or 1 (counts), "
                 f"got {group_list_type}", kind=ValueError)
    return _grouped_matmul("GroupedMatmulV4", x, weight, bias,
                           (scale, offset, antiquant_scale, antiquant_offset, pre_token_scale,
                            activation_quant_scale, activation_quant_offset), group_list,
                           int(split_item), int(group_type), int(group_list_type), False, False)
