"""Dense, Flatten, Dropout, Identity (mindspore.nn)."""
from __future__ import annotations

from ... import dtype as mstype
from ... import ops
from ..cell import Cell
from . import _init
from .activation import get_activation

__all__ = ["Dense", "Flatten", "Dropout", "Identity", "Pad"]


class Dense(Cell):
    """y = activation(x @ W^T + b); W: (out_channels, in_channels). Defaults as
    MindSpore 2.x: weight HeUniform(sqrt(5)), bias U(-1/sqrt(in), 1/sqrt(in))."""

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 activation=None, dtype=mstype.float32):
        super().__init__()
        self.in_channels = int(in_channels)
        self.out_channels = int(out_channels)
        self.has_bias = bool(has_bias)
        self.weight = _init.weight(weight_init, (self.out_channels, self.in_channels), "weight", dtype)
        if self.has_bias:
            self.bias = _init.bias(bias_init, (self.out_channels,), self.in_channels, "bias", dtype)
        self.activation = get_activation(activation) if isinstance(activation, str) else activation
        self.activation_flag = self.activation is not None

    def construct(self, x):
        if x.shape[-1] != self.in_channels:
            # ValueError as MindSpore's Dense (its P.MatMul); ops.matmul raises RuntimeError
            raise ValueError(f"For 'Dense', the last dim of the input ({x.shape[-1]}) must "
                             f"equal in_channels ({self.in_channels})")
        if x.ndim != 2:
            lead = x.shape[:-1]
            x = ops.reshape(x, (-1, self.in_channels))
            out = ops.matmul(x, ops.transpose(self.weight, (1, 0)))
            if self.has_bias:
                out = out + self.bias
            if self.activation_flag:
                out = self.activation(out)
            return ops.reshape(out, tuple(lead) + (self.out_channels,))
        out = ops.matmul(x, ops.transpose(self.weight, (1, 0)))
        if self.has_bias:
            out = out + self.bias
        if self.activation_flag:
            out = self.activation(out)
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"has_bias={self.has_bias}")


class Flatten(Cell):
    """Flattens dims start_dim..end_dim (default: all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Identity(Cell):
    def construct(self, x):
        return x


class Dropout(Cell):
    """Dropout(keep_prob=None, p=None): zeroes with probability p (default 0.5) in
    training, with a new mask at every call, also in a compiled (graph mode)
    train step; the identity in eval mode."""

    def __init__(self, keep_prob=None, p=None, dtype=mstype.float32):
        super().__init__()
        if keep_prob is not None and p is not None:
            raise ValueError("Dropout: give keep_prob or p, not both")
        if p is None:
            p = 0.5 if keep_prob is None else 1.0 - float(keep_prob)
        if not 0 <= p < 1:
            raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = float(p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout(x, p=self.p, training=True)

    def extend_repr(self):
        return f"p={self.p}"


class Pad(Cell):
    """mindspore.nn.Pad(paddings, mode="CONSTANT"): `paddings` is one (before,
    after) pair per dim of the input (dims not listed at the front are not
    padded). Only mode "CONSTANT" (zeros) is supported; "REFLECT"/"SYMMETRIC" are
    a clear error (msmlir.numpy.pad has them for graph code)."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if not isinstance(paddings, tuple) or not all(
                isinstance(p, tuple) and len(p) == 2 and
                all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in p)
                for p in paddings):
            raise TypeError(f"For 'Pad', 'paddings' must be a tuple of (before, after) pairs of "
                            f"non-negative ints, got {paddings!r}")
        if mode.upper() != "CONSTANT":
            raise ValueError(f"For 'Pad', only mode 'CONSTANT' is supported by msmlir, "
                             f"got {mode!r}")
        self.paddings = paddings
        self.mode = mode.upper()

    def construct(self, x):
        pairs = list(self.paddings)
        if len(pairs) > x.ndim:
            raise ValueError(f"For 'Pad', {len(pairs)} (before, after) pairs for a tensor of "
                             f"rank {x.ndim}")
        pairs = [(0, 0)] * (x.ndim - len(pairs)) + pairs
        flat = []
        for before, after in reversed(pairs):
            flat += [before, after]
        return ops.pad(x, tuple(flat))
