"""Mixture-of-experts routing primitives of MindSpore 2.x (the Ascend-fused ops that
mindformers' MoE layers call), composed of the functional ops so they compile
inside jit, run in PyNative and differentiate where MindSpore has a bprop.

Semantics are the documented formulas of MindSpore's op docs (which are CANN's
aclnn ones): MoeGatingTopKSoftmax, MoeInitRouting(V2), MoeComputeExpertTokens,
MoeFinalizeRouting, MoeTokenUnpermute, GroupTopk, FusedAddTopKDiv, and
MoeDistributeDispatch / MoeDistributeCombine for an expert-parallel world of one
rank. Data-dependent sizes (tokens per expert) stay values, never shapes: every
output shape is known from the input shapes, as on the NPU.
"""
from __future__ import annotations

import numbers

import numpy as _np

from ... import dtype as _dt
from ... import ops as F
from ...frontend import builder as _b


def _t(x):
    return F.to_tensor(x)


def _int(v, what, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        _b.error(f"For '{name}', {what} must be a Python int, got {v!r}", kind=TypeError)
    return int(v)


def _rank(t, ranks, what, name):
    if t.ndim not in ranks:
        _b.error(f"For '{name}', {what} must be {' or '.join(f'{r}-D' for r in ranks)}, got shape "
                 f"{tuple(t.shape)}", kind=ValueError)


def _stable_sort_keys(keys):
    """(sorted keys, int32 positions) of a 1-D int tensor, stable (equal keys keep
    their order), as the NPU's key-value sort."""
    order = F.argsort(keys, 0)
    return F.gather(keys, order, 0), F.cast(order, _dt.int32)


def _inverse_permutation(perm, n):
    """inv[perm[i]] = i for a permutation perm of range(n)."""
    idx = F.reshape(F.cast(perm, _dt.int32), (n, 1))
    return F.scatter_nd(idx, F.to_tensor(_np.arange(n, dtype=_np.int32)), (n,))


# ---- gating ----------------------------------------------------------------------------------

def moe_gating_top_k_softmax(s, x, finished=None, k=1):
    """(y, expert_idx, row_idx): softmax over the last axis, its top k; row_idx[r, j] =
    j * rows + r; rows marked `finished` get expert index num_expert."""
    name = "MoeGatingTopKSoftmax"
    t = _t(x)
    _rank(t, (2, 3), "x", name)
    k = _int(k, "k", name)
    e = t.shape[-1]
    if not 0 < k <= min(e, 1024):
        _b.error(f"For '{name}', k must be in [1, min(num_expert={e}, 1024)], got {k}",
                 kind=ValueError)
    y, idx = F.topk(F.softmax(t, -1), k, -1)
    idx = F.cast(idx, _dt.int32)
    if finished is not None:
        fin = _t(finished)
        if tuple(fin.shape) != tuple(t.shape[:-1]):
            _b.error(f"For '{name}', finished must have shape {tuple(t.shape[:-1])}, got "
                     f"{tuple(fin.shape)}", kind=ValueError)
        idx = F.select(F.broadcast_to(F.expand_dims(F.cast(fin, _dt.bool_), -1), idx.shape),
                       F.fill(_dt.int32, idx.shape, e), idx)
    rows = int(_np.prod(t.shape[:-1]))
    row = _np.arange(rows * k, dtype=_np.int32).reshape(k, rows).T.reshape(idx.shape)
    return y, idx, F.to_tensor(row)


def group_topk(s, token, idx_arr=None, group_num=1, k=1, k_inner=1):
    """token (tokens, experts) with the experts in group_num equal groups: a group's
    score is the sum of its k_inner largest entries; outside the k best groups every
    entry becomes 0 (the NPU op writes token in place; here the result is returned)."""
    name = "GroupTopk"
    t = _t(token)
    _rank(t, (2,), "token", name)
    g, k, ki = (_int(v, w, name) for v, w in ((group_num, "group_num"), (k, "k"),
                                              (k_inner, "k_inner")))
    n, e = t.shape
    if g <= 0 or e % g or not 0 < k <= g or not 0 < ki <= e // g:
        _b.error(f"For '{name}', need group_num > 0 dividing the {e} experts, 0 < k <= "
                 f"group_num and 0 < k_inner <= experts per group, got group_num={g}, k={k}, "
                 f"k_inner={ki}", kind=ValueError)
    keep = _group_mask(t, g, k, ki)
    return F.select(keep, t, F.zeros_like(t))


def _group_mask(t, g, k, inner):
    """(tokens, experts) bool: the experts of each token's k best groups, a group
    scored by the sum of its `inner` largest entries (ties: the lower group)."""
    n, e = t.shape
    grouped = F.reshape(t, (n, g, e // g))
    score = F.reduce_sum(F.topk(grouped, inner, -1)[0], -1)             # (n, g)
    best = F.topk(score, k, -1)[1]                                      # (n, k)
    chosen = F.reduce_sum(F.one_hot(best, g, 1.0, 0.0), 1)                  # (n, g) 0/1
    mask = F.broadcast_to(F.expand_dims(F.greater(chosen, 0), -1), (n, g, e // g))
    return F.reshape(mask, (n, e))


def fused_add_top_k_div(s, x, add_num, group_num, group_topk, n, k, activate_type=0,
                        is_norm=True, scale=2.5, mapping_num=None, mapping_table=None,
                        enable_expert_mapping=False):
    """(weight f32, indices int32) of DeepSeek-style routing: s = sigmoid(x); the
    groups scored on s + add_num by their n largest entries; top k experts of
    s + add_num within the group_topk best groups; weight = s at those experts,
    divided by its row sum and times scale when is_norm."""
    name = "FusedAddTopKDiv"
    t = _t(x)
    _rank(t, (2,), "x", name)
    b = t.shape[1]
    bias = _t(add_num)
    if tuple(bias.shape) != (b,):
        _b.error(f"For '{name}', add_num must have shape ({b},), got {tuple(bias.shape)}",
                 kind=ValueError)
    g, gk, n, k = (_int(v, w, name) for v, w in ((group_num, "group_num"),
                                                 (group_topk, "group_topk"), (n, "n"), (k, "k")))
    if int(activate_type) != 0:
        _b.error(f"For '{name}', activate_type must be 0 (sigmoid), got {activate_type}",
                 kind=ValueError)
    if enable_expert_mapping:
        _b.error(f"For '{name}', enable_expert_mapping=True (logical experts) is not supported",
                 kind=ValueError)
    if g <= 0 or b % g or not 0 < gk <= g or not 0 < k <= b or not 0 < n <= b // g:
        _b.error(f"For '{name}', need b % group_num == 0, group_topk <= group_num, k <= b and "
                 f"n <= b / group_num; got b={b}, group_num={g}, group_topk={gk}, n={n}, k={k}",
                 kind=ValueError)
    sig = F.sigmoid(F.cast(t, _dt.float32))
    biased = F.add(sig, F.cast(bias, _dt.float32))
    keep = _group_mask(biased, g, gk, n)
    masked = F.select(keep, biased, F.fill(_dt.float32, biased.shape, -float("inf")))
    idx = F.cast(F.topk(masked, k, -1)[1], _dt.int32)
    w = F.gather_elements(sig, 1, idx)
    if is_norm:
        w = F.mul(F.div(w, F.reduce_sum(w, -1, True)), float(scale))
    return w, idx


# ---- routing ---------------------------------------------------------------------------------

def moe_init_routing(s, x, row_idx, expert_idx, active_num):
    """(expanded_x, expanded_row_idx, expanded_expert_idx): the (row, expert) pairs
    sorted by expert (stable), expanded_row_idx the inverse of that order, and
    expanded_x the rows x[sorted_row % rows] of the first min(active_num, rows) * k."""
    name = "MoeInitRouting"
    xt, ri, ei = _t(x), _t(row_idx), _t(expert_idx)
    _rank(xt, (2,), "x", name)
    _rank(ei, (2,), "expert_idx", name)
    rows, k = ei.shape
    if xt.shape[0] != rows or tuple(ri.shape) != (rows, k):
        _b.error(f"For '{name}', x (rows, H), row_idx and expert_idx (rows, k) disagree: "
                 f"{tuple(xt.shape)}, {tuple(ri.shape)}, {tuple(ei.shape)}", kind=ValueError)
    active = _int(active_num, "active_num", name)
    if active < 0:
        _b.error(f"For '{name}', active_num must be >= 0, got {active}", kind=ValueError)
    keys, order = _stable_sort_keys(F.reshape(F.cast(ei, _dt.int32), (rows * k,)))
    src = F.gather(F.reshape(F.cast(ri, _dt.int32), (rows * k,)), order, 0)
    expanded_row_idx = _inverse_permutation(src, rows * k)
    m = min(active, rows) * k
    take = F.slice(src, (0,), (m,))
    expanded_x = F.gather(xt, F.floor_mod(take, rows), 0)
    return expanded_x, expanded_row_idx, keys


def moe_init_routing_v2(s, x, expert_idx, active_num=0, expert_capacity=0, expert_num=0,
                        drop_pad_mode=0, expert_tokens_count_or_cumsum_flag=0,
                        expert_tokens_before_capacity_flag=False):
    """(expanded_x, expanded_row_idx, expert_tokens_count_or_cumsum,
    expert_tokens_before_capacity), dropless mode: the flattened (row, j) slots
    sorted by expert (stable); expanded_row_idx[slot] = its sorted position;
    expanded_x[i] = x[sorted_slot[i] // k] for the first active_num (0: all) rows;
    flag 1: per-expert cumulative counts, 2: counts."""
    name = "MoeInitRoutingV2"
    xt, ei = _t(x), _t(expert_idx)
    _rank(xt, (2,), "x", name)
    _rank(ei, (2,), "expert_idx", name)
    rows, k = ei.shape
    if xt.shape[0] != rows:
        _b.error(f"For '{name}', x has {xt.shape[0]} rows, expert_idx {rows}", kind=ValueError)
    if int(drop_pad_mode) != 0:
        _b.error(f"For '{name}', drop_pad_mode=1 (capacity with drop/pad) is not supported; "
                 f"use drop_pad_mode=0", kind=ValueError)
    flag = _int(expert_tokens_count_or_cumsum_flag, "expert_tokens_count_or_cumsum_flag", name)
    e = _int(expert_num, "expert_num", name)
    if flag not in (0, 1, 2) or (flag and e <= 0):
        _b.error(f"For '{name}', expert_tokens_count_or_cumsum_flag must be 0, 1 or 2 (1, 2 need "
                 f"expert_num > 0), got {flag} with expert_num={e}", kind=ValueError)
    n = rows * k
    active = _int(active_num, "active_num", name)
    m = n if active <= 0 else min(active, n)
    keys, order = _stable_sort_keys(F.reshape(F.cast(ei, _dt.int32), (n,)))
    expanded_row_idx = _inverse_permutation(order, n)
    expanded_x = F.gather(xt, F.floor_div(F.slice(order, (0,), (m,)), k), 0)
    counts = _expert_counts(keys, max(e, 1))
    if flag == 1:
        tokens = F.cumsum(counts, 0)
    elif flag == 2:
        tokens = counts
    else:
        tokens = F.zeros((max(e, 1),), _dt.int32)
    before = F.zeros((max(e, 1),), _dt.int32)
    return expanded_x, expanded_row_idx, tokens, before


def _expert_counts(experts, e):
    """(e,) int32: how many entries of the 1-D int tensor `experts` equal each expert."""
    return F.reduce_sum(F.one_hot(F.cast(experts, _dt.int32), e, 1.0, 0.0), 0)


def moe_compute_expert_tokens(s, sorted_experts, num_expert):
    """(num_expert,) int32: out[e] = the number of entries <= e of the sorted expert
    ids (the end row of expert e's block: the grouped matmul's group_list)."""
    name = "MoeComputeExpertTokens"
    t = _t(sorted_experts)
    _rank(t, (1,), "sorted_experts", name)
    e = _int(num_expert, "num_expert", name)
    if e <= 0:
        _b.error(f"For '{name}', num_expert must be > 0, got {e}", kind=ValueError)
    ids = F.to_tensor(_np.arange(e, dtype=_np.int32).reshape(1, e))
    le = F.less_equal(F.reshape(F.cast(t, _dt.int32), (t.shape[0], 1)), ids)
    return F.reduce_sum(F.cast(le, _dt.int32), 0)


def moe_finalize_routing(s, expanded_x, x1, x2=None, bias=None, scales=None,
                         expanded_row_idx=None, expanded_expert_idx=None):
    """out[i] = x1[i] + x2[i] + sum_k scales[i, k] * (expanded_x[expanded_row_idx[i + k *
    rows]] + bias[expanded_expert_idx[i, k]])."""
    name = "MoeFinalizeRouting"
    ex, a = _t(expanded_x), _t(x1)
    _rank(ex, (2,), "expanded_x", name)
    _rank(a, (2,), "x1", name)
    rows, h = a.shape
    if expanded_row_idx is None:
        _b.error(f"For '{name}', expanded_row_idx is required", kind=ValueError)
    ri = F.cast(_t(expanded_row_idx), _dt.int32)
    if ri.ndim != 1 or ri.shape[0] % rows:
        _b.error(f"For '{name}', expanded_row_idx must be 1-D of rows * k = a multiple of "
                 f"{rows}, got shape {tuple(ri.shape)}", kind=ValueError)
    k = ri.shape[0] // rows
    picked = F.reshape(F.gather(ex, ri, 0), (k, rows, h))             # [k, i] = ex[ri[i+k*rows]]
    picked = F.transpose(picked, (1, 0, 2))                            # (rows, k, h)
    if bias is not None:
        if expanded_expert_idx is None:
            _b.error(f"For '{name}', bias needs expanded_expert_idx", kind=ValueError)
        picked = F.add(picked, F.gather(_t(bias), F.cast(_t(expanded_expert_idx), _dt.int32), 0))
    if scales is not None:
        sc = _t(scales)
        if tuple(sc.shape) != (rows, k):
            _b.error(f"For '{name}', scales must have shape ({rows}, {k}), got "
                     f"{tuple(sc.shape)}", kind=ValueError)
        picked = F.mul(picked, F.expand_dims(F.cast(sc, picked.dtype), -1))
    out = F.add(a, F.reduce_sum(picked, 1))
    if x2 is not None:
        out = F.add(out, _t(x2))
    return out


def moe_token_unpermute(s, permuted_tokens, sorted_indices, probs=None, padded_mode=False,
                        restore_shape=None):
    """out[i] = sum_j permuted_tokens[sorted_indices[i * topk + j]] * probs[i, j]
    (probs None: topk = 1, no weights)."""
    name = "MoeTokenUnpermute"
    if padded_mode:
        _b.error(f"For '{name}', only padded_mode=False is supported (as MindSpore)",
                 kind=ValueError)
    p = _t(permuted_tokens)
    _rank(p, (2,), "permuted_tokens", name)
    si = F.cast(_t(sorted_indices), _dt.int32)
    if si.ndim != 1 or si.shape[0] != p.shape[0]:
        _b.error(f"For '{name}', sorted_indices must be 1-D of length {p.shape[0]}, got "
                 f"{tuple(si.shape)}", kind=ValueError)
    rows = F.gather(p, si, 0)
    if probs is None:
        return rows
    pr = _t(probs)
    if pr.ndim != 2 or pr.shape[0] * pr.shape[1] != p.shape[0]:
        _b.error(f"For '{name}', probs must be (num_tokens, topk) with num_tokens * topk = "
                 f"{p.shape[0]}, got {tuple(pr.shape)}", kind=ValueError)
    n, k = pr.shape
    rows = F.reshape(rows, (n, k, p.shape[1]))
    return F.reduce_sum(F.mul(rows, F.expand_dims(F.cast(pr, p.dtype), -1)), 1)


# ---- expert-parallel dispatch / combine (one rank) ------------------------------------------

def _ep_world(name, ep_world_size, ep_rank_id, tp_world_size=0):
    if _int(ep_world_size, "ep_world_size", name) != 1 or int(ep_rank_id) != 0 or \
            int(tp_world_size) > 1:
        _b.error(f"For '{name}', only an expert-parallel world of one rank (ep_world_size=1, "
                 f"ep_rank_id=0, tp_world_size<=1) is supported: the all-to-all exchange "
                 f"between NPUs (MC2) has no msmlir collective yet", kind=ValueError)


def moe_distribute_dispatch(s, x, expert_ids, ep_world_size, ep_rank_id, moe_expert_num,
                            expert_scales=None, scales=None, x_active_mask=None, group_ep=None,
                            group_tp=None, tp_world_size=0, tp_rank_id=0, expert_shard_type=0,
                            shared_expert_num=0, shared_expert_rank_num=0, quant_mode=0,
                            global_bs=0, expert_token_nums_type=1):
    """(expand_x, dynamic_scales, expand_idx, expert_token_nums, ep_recv_counts,
    tp_recv_counts, expand_scales) on one rank: the (token, j) slots grouped by expert
    (stable); expand_idx[b*K+j] = how many earlier slots go to the same expert (the
    row of slot (b, j) within its expert's block); expert_token_nums: counts (type 1) or
    cumulative counts (type 0); ep_recv_counts: cumulative counts."""
    name = "MoeDistributeDispatch"
    _ep_world(name, ep_world_size, ep_rank_id, tp_world_size)
    if int(quant_mode) != 0 or int(shared_expert_num) or int(shared_expert_rank_num):
        _b.error(f"For '{name}', quant_mode != 0 and shared experts are not supported",
                 kind=ValueError)
    xt, ei = _t(x), F.cast(_t(expert_ids), _dt.int32)
    _rank(xt, (2,), "x", name)
    _rank(ei, (2,), "expert_ids", name)
    bs, k = ei.shape
    e = _int(moe_expert_num, "moe_expert_num", name)
    n = bs * k
    flat = F.reshape(ei, (n,))
    keys, order = _stable_sort_keys(flat)
    expand_x = F.gather(xt, F.floor_div(order, k), 0)
    onehot = F.one_hot(flat, e, 1.0, 0.0)                                  # (n, e)
    before = F.sub(F.cumsum(onehot, 0), onehot)                        # earlier slots, same e
    expand_idx = F.reduce_sum(F.mul(before, onehot), 1)
    counts = F.reduce_sum(onehot, 0)
    cum = F.cumsum(counts, 0)
    nums = counts if int(expert_token_nums_type) == 1 else cum
    dyn = F.zeros((n,), _dt.float32)
    es = F.zeros((n,), _dt.float32) if expert_scales is None else \
        F.gather(F.reshape(F.cast(_t(expert_scales), _dt.float32), (n,)), order, 0)
    return expand_x, dyn, F.cast(expand_idx, _dt.int32), nums, cum, \
        F.fill(_dt.int32, (1,), n), es


def moe_distribute_combine(s, expand_x, expert_ids, expand_idx, ep_send_counts, expert_scales,
                           ep_world_size, ep_rank_id, moe_expert_num, tp_send_counts=None,
                           x_active_mask=None, activation_scale=None, weight_scale=None,
                           group_list=None, expand_scales=None, group_ep=None, group_tp=None,
                           tp_world_size=0, tp_rank_id=0, expert_shard_type=0,
                           shared_expert_num=0, shared_expert_rank_num=0, global_bs=0,
                           out_dtype=0, common_quant_mode=0, group_list_type=0):
    """x (bs, H): x[b] = sum_j expert_scales[b, j] * expand_x[start(e) + expand_idx[b*K+j]]
    with e = expert_ids[b, j] and start(e) = ep_send_counts[e-1] (0 for e = 0), the
    inverse of MoeDistributeDispatch on one rank."""
    name = "MoeDistributeCombine"
    _ep_world(name, ep_world_size, ep_rank_id, tp_world_size)
    ex = _t(expand_x)
    ei = F.cast(_t(expert_ids), _dt.int32)
    _rank(ei, (2,), "expert_ids", name)
    bs, k = ei.shape
    e = _int(moe_expert_num, "moe_expert_num", name)
    cum = F.cast(_t(ep_send_counts), _dt.int32)
    start = F.concat((F.zeros((1,), _dt.int32), F.slice(cum, (0,), (e - 1,))), 0) if e > 1 \
        else F.zeros((1,), _dt.int32)
    flat = F.reshape(ei, (bs * k,))
    row = F.add(F.gather(start, flat, 0), F.cast(_t(expand_idx), _dt.int32))
    picked = F.reshape(F.gather(ex, row, 0), (bs, k, ex.shape[1]))
    w = F.expand_dims(F.cast(_t(expert_scales), ex.dtype), -1)
    return F.reduce_sum(F.mul(picked, w), 1)


def moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """(permuted_tokens, sorted_indices): the token copies (one per selected expert)
    grouped by expert (stable); sorted_indices[slot] = the row slot (token-major, token
    * topk + j) went to, i.e. argsort(argsort(flattened indices)); permuted_tokens keeps
    the first num_out_tokens rows (None or 0: all)."""
    name = "moe_token_permute"
    if padded_mode:
        _b.error(f"For '{name}', padded_mode must be False (as MindSpore)", kind=ValueError)
    t, idx = _t(tokens), _t(indices)
    _rank(t, (2,), "tokens", name)
    _rank(idx, (1, 2), "indices", name)
    if not idx.dtype.is_int or idx.dtype.is_bool:
        _b.error(f"For '{name}', indices must be int32 or int64, got {idx.dtype}",
                 kind=TypeError)
    if idx.shape[0] != t.shape[0]:
        _b.error(f"For '{name}', tokens ({t.shape[0]}) and indices ({idx.shape[0]}) differ in "
                 f"their first dimension", kind=RuntimeError)
    k = idx.shape[1] if idx.ndim == 2 else 1
    if k > 512:
        _b.error(f"For '{name}', the second dim of indices must be <= 512, got {k}",
                 kind=ValueError)
    n = t.shape[0] * k
    out = n if not num_out_tokens else _int(num_out_tokens, "num_out_tokens", name)
    if not 0 < out <= n:
        _b.error(f"For '{name}', num_out_tokens must be in [0, {n}], got {num_out_tokens}",
                 kind=ValueError)
    _, order = _stable_sort_keys(F.reshape(F.cast(idx, _dt.int32), (n,)))
    sorted_indices = _inverse_permutation(order, n)
    permuted = F.gather(t, F.floor_div(F.slice(order, (0,), (out,)), k), 0)
    return permuted, sorted_indices


def moe_token_unpermute_fn(permuted_tokens, sorted_indices, probs=None, padded_mode=False,
                           restore_shape=None):
    """ops.moe_token_unpermute: P.MoeTokenUnpermute's composition."""
    return moe_token_unpermute(None, permuted_tokens, sorted_indices, probs, padded_mode,
                               restore_shape)
