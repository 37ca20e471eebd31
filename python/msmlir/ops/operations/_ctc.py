"""MindSpore's `P.CTCLoss` (TensorFlow's ctc_loss semantics): the loss per batch
element and its gradient w.r.t. the logits, by the forward-backward recursion of
Graves et al. in log space, on the host.

The recursion is sequential in time and its label sequences come as sparse
tensors (a data-dependent label length per batch element), so it runs as a host
computation: in PyNative directly, inside jit as a host callback with the op's
fixed output shapes (`ops.Custom(func_type="pyfunc")`, as NMSWithMask). Like
MindSpore's, the op returns the gradient as its second output and its bprop is
`gradient * dloss` (MindSpore's get_bprop_ctc_loss), so it is differentiable in
both modes. The blank label is num_classes - 1 (TensorFlow's convention).
"""
from __future__ import annotations

import numpy as np

__all__ = ["ctc_loss_numpy", "ctc_loss_bprop"]


def _lse(a, b):
    m = np.maximum(a, b)
    with np.errstate(invalid="ignore"):
        out = m + np.log1p(np.exp(-np.abs(a - b)))
    return np.where(np.isneginf(m), -np.inf, out)


def _labels(indices, values, batch):
    """The label sequence of each batch element from the sparse (indices, values)."""
    indices = np.asarray(indices).reshape(-1, 2)
    values = np.asarray(values).reshape(-1)
    if len(indices) != len(values):
        raise ValueError(f"For 'CTCLoss', labels_indices has {len(indices)} rows but "
                         f"labels_values {len(values)} values")
    if len(indices) and (indices[:, 0].min() < 0 or indices[:, 0].max() >= batch):
        raise ValueError(f"For 'CTCLoss', labels_indices[:, 0] must be batch indices in "
                         f"[0, {batch})")
    out = []
    for b in range(batch):
        rows = indices[:, 0] == b
        order = np.argsort(indices[rows, 1], kind="stable")
        out.append(values[rows][order].astype(np.int64))
    return out


def _one(logp, label, blank, merge):
    """(loss, d loss / d log-softmax-weights as TF's: alpha*beta / p per class) for one
    element: logp (T, C) log-softmax of its valid time steps, label (L,)."""
    t_len = logp.shape[0]
    lp = np.full(2 * len(label) + 1, blank, np.int64)
    lp[1::2] = label
    u = len(lp)
    stay = np.full(u, merge) | (lp == blank)                       # u -> u allowed
    skip = np.zeros(u, bool)                                       # u - 2 -> u allowed
    skip[2:] = (lp[2:] != blank) & ~(merge & (lp[2:] == lp[:-2]))
    alpha = np.full((t_len, u), -np.inf)
    alpha[0, 0] = logp[0, blank]
    if u > 1:
        alpha[0, 1] = logp[0, lp[1]]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        a = np.where(stay, prev, -np.inf)
        a[1:] = _lse(a[1:], prev[:-1])
        a[2:] = np.where(skip[2:], _lse(a[2:], prev[:-2]), a[2:])
        alpha[t] = a + logp[t, lp]
    beta = np.full((t_len, u), -np.inf)                            # excludes step t's emission
    beta[-1, -1] = 0.0
    if u > 1:
        beta[-1, -2] = 0.0
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1] + logp[t + 1, lp]
        b = np.where(stay, nxt, -np.inf)
        b[:-1] = _lse(b[:-1], nxt[1:])
        b[:-2] = np.where(skip[2:], _lse(b[:-2], nxt[2:]), b[:-2])
        beta[t] = b
    ab = alpha + beta
    log_p = ab[0, 0] if u == 1 else _lse(ab[0, 0], ab[0, 1])
    for k in range(2, u):
        log_p = _lse(log_p, ab[0, k])
    occupancy = np.zeros_like(logp)                                # sum_{u: l'_u = k} ab / p
    np.add.at(occupancy.T, lp, np.exp(ab.T - log_p))
    return -log_p, occupancy


def ctc_loss_numpy(x, indices, values, seq_len, preprocess_collapse_repeated=False,
                   ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
    """(loss (B,), gradient (T, B, C)) of CTCLoss for logits x (T, B, C)."""
    x = np.asarray(x)
    if x.ndim != 3:
        raise ValueError(f"For 'CTCLoss', inputs must be (max_time, batch, num_classes), got "
                         f"shape {x.shape}")
    t_max, batch, classes = x.shape
    seq_len = np.asarray(seq_len).reshape(-1)
    if seq_len.shape != (batch,):
        raise ValueError(f"For 'CTCLoss', sequence_length must have {batch} values, got "
                         f"{seq_len.shape[0]}")
    blank = classes - 1
    xf = x.astype(np.float64)
    logp_all = xf - xf.max(-1, keepdims=True)
    logp_all -= np.log(np.exp(logp_all).sum(-1, keepdims=True))
    loss = np.zeros(batch)
    grad = np.zeros_like(xf)
    for b, label in enumerate(_labels(indices, values, batch)):
        n = int(seq_len[b])
        if not 0 <= n <= t_max:
            raise ValueError(f"For 'CTCLoss', sequence_length[{b}] = {n} is not in [0, {t_max}]")
        if len(label) and (label.min() < 0 or label.max() >= blank):
            raise ValueError(f"For 'CTCLoss', labels must be in [0, num_classes - 1 = {blank}) "
                             f"(num_classes - 1 is the blank), got {label.tolist()} for batch "
                             f"element {b}")
        if preprocess_collapse_repeated and len(label):
            label = label[np.r_[True, label[1:] != label[:-1]]]
        repeats = int(np.sum(label[1:] == label[:-1])) if ctc_merge_repeated else 0
        if len(label) + repeats > n:
            if ignore_longer_outputs_than_inputs:
                continue                                           # loss 0, gradient 0
            raise ValueError(f"For 'CTCLoss', not enough time for the target sequence of batch "
                             f"element {b} (required: {len(label) + repeats}, available: {n}); "
                             f"ignore_longer_outputs_than_inputs=True skips it")
        if n == 0:
            continue
        logp = logp_all[:n, b]
        loss[b], occ = _one(logp, label, blank, ctc_merge_repeated)
        grad[:n, b] = np.exp(logp) - occ
    return loss.astype(x.dtype), grad.astype(x.dtype)


def ctc_loss_bprop(x, indices, values, seq_len, out, dout):
    """MindSpore's bprop: gradient * dloss (broadcast over time and classes)."""
    grad = np.asarray(out[1]) * np.asarray(dout[0])[None, :, None]
    return (grad.astype(np.asarray(x).dtype), np.zeros_like(indices), np.zeros_like(values),
            np.zeros_like(seq_len))
