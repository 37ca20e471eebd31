"""mindspore.nn.RNN, nn.GRU, nn.LSTM: multi-layer, optionally bidirectional recurrent
networks, unrolled over the time steps when the construct is run or compiled.

Semantics are MindSpore's (mindspore/nn/layer/rnns.py), which follow PyTorch's:

* `net(x, hx=None, seq_length=None)`; x (seq_len, batch, input_size), or
  (batch, seq_len, input_size) with batch_first=True; hx (num_layers *
  num_directions, batch, hidden_size) (a tuple (h_0, c_0) for LSTM), zeros when
  None; returns (output, h_n) — (output, (h_n, c_n)) for LSTM — with output
  (seq_len, batch, num_directions * hidden_size).
* Parameters weight_ih_l{k}{_reverse} (G*hidden, layer_input), weight_hh_l{k}{_reverse}
  (G*hidden, hidden), bias_ih_l{k}{_reverse} / bias_hh_l{k}{_reverse} (G*hidden,),
  G = 4 (LSTM gates i, f, g, o), 3 (GRU gates r, z, n), 1 (RNN); U(-1/sqrt(hidden),
  1/sqrt(hidden)).
* seq_length (batch,) int32/int64: the state of sequence b is only updated at steps
  t < seq_length[b], and output[t, b] is zero for t >= seq_length[b]; the reverse
  direction reads each sequence's valid part backwards (MindSpore's ReverseSequence),
  so h_n holds each sequence's state at its own end — as PyTorch's packed sequences.
* dropout (a float in [0, 1)) is applied to the outputs of every layer but the last,
  in training mode only.

Time loop: up to UNROLL_MAX (16) steps it is a Python loop over seq_len (a static
shape), so a graph holds one copy of the step per time step, layer and direction;
longer sequences run one tensor `while` loop per layer and direction (scf.while when
compiled, differentiated by mindir-autodiff's loop rule), so compile time does not
grow with seq_len. The input projections of all time steps are one matmul per layer
and direction either way.
"""
from __future__ import annotations

import math
import numbers

from .. import dtype as mstype
from .. import ops
from .cell import Cell
from .layer.basic import Dropout
from .rnn_cells import (STEPS, _check_bool, _check_dtype, _check_positive_int, _check_shape,
                        _check_tensor, _uniform_param)

__all__ = ["RNN", "GRU", "LSTM"]

# sequences up to this many steps are unrolled (one copy of the step per time step: the
# fastest code, compile time linear in seq_len); longer ones run as one tensor `while`
# loop (scf.while when compiled: constant compile time, slower backward, whose saved
# values go to run-time-sized stacks)
UNROLL_MAX = 16
_MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


def _masked(cond, new, old):
    return ops.select(cond, new, old)


def _as(t, dtype):
    return t if t.dtype == dtype else ops.cast(t, dtype)


class _RNNBase(Cell):
    """The stacked recurrence of nn.RNN / GRU / LSTM (MindSpore's _RNNBase)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0., bidirectional=False, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        if mode not in _MODES:
            raise ValueError(f"For '{cls}', the 'mode' must be in {list(_MODES)}, but got {mode}.")
        self.input_size = _check_positive_int(input_size, "input_size", cls)
        self.hidden_size = _check_positive_int(hidden_size, "hidden_size", cls)
        self.num_layers = _check_positive_int(num_layers, "num_layers", cls)
        self.has_bias = _check_bool(has_bias, "has_bias", cls)
        self.batch_first = _check_bool(batch_first, "batch_first", cls)
        self.bidirectional = _check_bool(bidirectional, "bidirectional", cls)
        if not isinstance(dropout, numbers.Real) or isinstance(dropout, bool):
            raise TypeError(f"For '{cls}', the 'dropout' must be a float, "
                            f"but got {type(dropout).__name__}.")
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{cls}', the 'dropout' must be a number in range [0, 1) "
                             f"representing the probability of an element being zeroed, "
                             f"but got {dropout}.")
        self.dropout = float(dropout)
        self.mode = mode
        self.is_lstm = mode == "LSTM"
        self.num_directions = 2 if self.bidirectional else 1
        self.dropout_op = Dropout(p=self.dropout)
        gate = STEPS[mode][1] * self.hidden_size
        stdv = 1.0 / math.sqrt(self.hidden_size)
        names = []
        for layer in range(self.num_layers):
            for direction in range(self.num_directions):
                layer_input = (self.input_size if layer == 0
                               else self.hidden_size * self.num_directions)
                suffix = "_reverse" if direction == 1 else ""
                w_ih, w_hh = f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"
                b_ih, b_hh = f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"
                setattr(self, w_ih, _uniform_param((gate, layer_input), stdv, w_ih, dtype))
                setattr(self, w_hh, _uniform_param((gate, self.hidden_size), stdv, w_hh, dtype))
                if self.has_bias:
                    setattr(self, b_ih, _uniform_param((gate,), stdv, b_ih, dtype))
                    setattr(self, b_hh, _uniform_param((gate,), stdv, b_hh, dtype))
                names.append((w_ih, w_hh, b_ih, b_hh))
        self._weight_names = tuple(names)

    # ---- checks --------------------------------------------------------------------------------
    def _check_inputs(self, x, hx, seq_length):
        cls = type(self).__name__
        _check_tensor(x, "x", cls)
        _check_dtype(x, "x", cls)
        shape = tuple(x.shape)
        if len(shape) != 3:
            layout = "(batch, seq_len, input_size)" if self.batch_first \
                else "(seq_len, batch, input_size)"
            raise ValueError(f"For '{cls}', the 'x' must be a 3-D Tensor {layout}, "
                             f"but got shape {shape}.")
        if shape[2] != self.input_size:
            raise ValueError(f"For '{cls}', the last dim of 'x' must be input_size "
                             f"{self.input_size}, but got shape {shape}.")
        batch = shape[0] if self.batch_first else shape[1]
        state_shape = (self.num_layers * self.num_directions, batch, self.hidden_size)
        if hx is not None:
            if self.is_lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise TypeError(f"For '{cls}', the 'hx' must be a tuple of two Tensors "
                                    f"(h_0, c_0), but got {type(hx).__name__}.")
                states = (("hx[0]", hx[0]), ("hx[1]", hx[1]))
            else:
                states = (("hx", hx),)
            for name, h in states:
                _check_tensor(h, name, cls)
                _check_dtype(h, name, cls)
                _check_shape(h, state_shape, name, cls)
        if seq_length is not None:
            _check_tensor(seq_length, "seq_length", cls)
            _check_dtype(seq_length, "seq_length", cls, (mstype.int32, mstype.int64))
            _check_shape(seq_length, (batch,), "seq_length", cls)
        return batch, state_shape

    # ---- the recurrence ------------------------------------------------------------------------
    def _direction(self, x, h0, names, reverse, valid):
        """One layer, one direction over x (T, B, I): returns (outputs (T, B, H), final state).
        valid[t]: (B, 1) bool mask (t < seq_length) or None."""
        step = STEPS[self.mode][0]
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        b_ih = getattr(self, names[2]) if self.has_bias else None
        b_hh = getattr(self, names[3]) if self.has_bias else None
        steps, batch = x.shape[0], x.shape[1]
        xw = ops.matmul(ops.reshape(x, (steps * batch, x.shape[2])), ops.transpose(w_ih, (1, 0)))
        if b_ih is not None:
            xw = xw + b_ih
        xw = ops.reshape(xw, (steps, batch, w_ih.shape[0]))
        order = list(range(steps))
        if reverse:
            order = order[::-1]
        state = h0
        outs = [None] * steps
        for t in order:
            new = step(xw[t], state, w_hh, b_hh)
            if valid is None:
                state = new
                outs[t] = new[0] if self.is_lstm else new
            else:
                m = valid[t]
                if self.is_lstm:
                    state = (_masked(m, new[0], state[0]), _masked(m, new[1], state[1]))
                    outs[t] = _masked(m, new[0], ops.zeros_like(new[0]))
                else:
                    state = _masked(m, new, state)
                    outs[t] = _masked(m, new, ops.zeros_like(new))
        return ops.stack(outs, 0), state

    def _direction_loop(self, x, h0, names, reverse, lengths):
        """_direction as one tensor `while` loop over the time steps (scf.while when
        compiled): the graph holds one step whatever seq_len is. lengths: (B, 1) int32
        (seq_length) or None."""
        step = STEPS[self.mode][0]
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        b_ih = getattr(self, names[2]) if self.has_bias else None
        b_hh = getattr(self, names[3]) if self.has_bias else None
        steps, batch, hidden = x.shape[0], x.shape[1], self.hidden_size
        xw = ops.matmul(ops.reshape(x, (steps * batch, x.shape[2])), ops.transpose(w_ih, (1, 0)))
        if b_ih is not None:
            xw = xw + b_ih
        xw = ops.reshape(xw, (steps, batch, w_ih.shape[0]))
        if self.is_lstm:
            h, c = _as(h0[0], xw.dtype), _as(h0[1], xw.dtype)
        else:
            h = _as(h0, xw.dtype)
            c = h
        outs = ops.zeros((steps, batch, hidden), xw.dtype)
        zero = ops.zeros((batch, hidden), xw.dtype)
        t = ops.zeros((), mstype.int32)
        while t < steps:
            idx = (steps - 1) - t if reverse else t
            xt = ops.gather(xw, idx, 0)
            if self.is_lstm:
                h2, c2 = step(xt, (h, c), w_hh, b_hh)
            else:
                h2 = step(xt, h, w_hh, b_hh)
                c2 = c
            if lengths is None:
                h, c, out = h2, c2, h2
            else:
                m = ops.broadcast_to(lengths > idx, (batch, hidden))
                h = ops.select(m, h2, h)
                c = ops.select(m, c2, c)
                out = ops.select(m, h2, zero)
            outs = ops.tensor_scatter_update(outs, ops.reshape(idx, (1, 1)),
                                             ops.expand_dims(out, 0))
            t = t + 1
        return outs, ((h, c) if self.is_lstm else h)

    def construct(self, x, hx=None, seq_length=None):
        batch, state_shape = self._check_inputs(x, hx, seq_length)
        x_dtype = x.dtype
        if hx is None:
            zero = ops.zeros(state_shape, x.dtype)
            hx = (zero, zero) if self.is_lstm else zero
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        steps = x.shape[0]
        valid = None
        lens = None
        if seq_length is not None:
            lengths = ops.reshape(seq_length, (batch, 1))
            if steps > UNROLL_MAX:
                lens = ops.cast(lengths, mstype.int32)
            else:
                valid = [ops.broadcast_to(lengths > t, (batch, self.hidden_size))
                         for t in range(steps)]
        h_n = []
        c_n = []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                h0 = (hx[0][k], hx[1][k]) if self.is_lstm else hx[k]
                if steps > UNROLL_MAX:
                    out, state = self._direction_loop(layer_in, h0, self._weight_names[k], d == 1,
                                                      lens)
                else:
                    out, state = self._direction(layer_in, h0, self._weight_names[k], d == 1,
                                                 valid)
                outs.append(out)
                if self.is_lstm:
                    h_n.append(state[0])
                    c_n.append(state[1])
                else:
                    h_n.append(state)
            out = outs[0] if self.num_directions == 1 else ops.concat(outs, 2)
            if self.dropout != 0 and layer < self.num_layers - 1:
                out = self.dropout_op(out)
            layer_in = out
        output = layer_in
        if self.batch_first:
            output = ops.transpose(output, (1, 0, 2))
        # as MindSpore: the results in x's dtype (float16 x with float32 weights computes in
        # float32)
        if self.is_lstm:
            return (_as(output, x_dtype),
                    (_as(ops.stack(h_n, 0), x_dtype), _as(ops.stack(c_n, 0), x_dtype)))
        return _as(output, x_dtype), _as(ops.stack(h_n, 0), x_dtype)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
                f"batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """mindspore.nn.RNN(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32, nonlinearity='tanh'):
    h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu. As MindSpore's,
    `nonlinearity` is keyword-only (positional arguments are _RNNBase's)."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if not isinstance(nonlinearity, str) or nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], "
                             f"but got {nonlinearity!r}.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class GRU(_RNNBase):
    """mindspore.nn.GRU(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32): gates r, z, n."""

    def __init__(self, *args, **kwargs):
        if "nonlinearity" in kwargs:
            raise TypeError("For 'GRU', got an unexpected keyword argument 'nonlinearity'.")
        super().__init__("GRU", *args, **kwargs)


class LSTM(_RNNBase):
    """mindspore.nn.LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32): gates i, f, g, o;
    net(x, hx=(h_0, c_0), seq_length) -> (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        if "nonlinearity" in kwargs:
            raise TypeError("For 'LSTM', got an unexpected keyword argument 'nonlinearity'.")
        super().__init__("LSTM", *args, **kwargs)
