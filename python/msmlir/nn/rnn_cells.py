"""Recurrent cells: mindspore.nn.RNNCell, GRUCell, LSTMCell, and the one-step
functions the multi-layer nn.RNN / nn.GRU / nn.LSTM (rnn.py) are unrolled from.

Every step is composed of msmlir.ops (matmul, sigmoid, tanh, relu, slicing), so a
cell runs op by op in PyNative mode, compiles inside `jit`/GRAPH_MODE and is
differentiated by `grad` like any other construct. Weights, names and gate
order are MindSpore's (= PyTorch's): weight_ih (G*hidden, input), weight_hh
(G*hidden, hidden), bias_ih / bias_hh (G*hidden,), gates (i, f, g, o) for LSTM
and (r, z, n) for GRU, all initialised U(-1/sqrt(hidden), 1/sqrt(hidden)).
"""
from __future__ import annotations

import math
import numbers

from .. import dtype as mstype
from ..common.initializer import Uniform, initializer
from ..common.parameter import Parameter
from .cell import Cell
# one step of each recurrence: shared with the recurrent primitives (P.LSTM, DynamicRNN, ...),
# so they live below nn, in msmlir/ops/operations/_recurrent.py
from ..ops.operations._recurrent import (STEPS, _hidden_proj, _input_proj,  # noqa: F401
                                         gru_step, lstm_step, rnn_relu_step, rnn_tanh_step)

__all__ = ["RNNCell", "GRUCell", "LSTMCell"]

_FLOATS = (mstype.float32, mstype.float16)


# ---- argument checks (MindSpore's messages: "For 'LSTM', the 'x' ...") ----------------------
def _check_positive_int(value, name, cls_name):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"For '{cls_name}', the '{name}' must be an int, "
                        f"but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{cls_name}', the '{name}' must be a positive int, but got {value}.")
    return int(value)


def _check_bool(value, name, cls_name):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls_name}', the '{name}' must be a bool, "
                        f"but got {type(value).__name__}.")
    return value


def _check_tensor(value, name, cls_name):
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        raise TypeError(f"For '{cls_name}', the '{name}' must be a Tensor, "
                        f"but got {type(value).__name__}.")


def _check_dtype(value, name, cls_name, allowed=_FLOATS):
    if value.dtype not in allowed:
        names = ", ".join(str(a) for a in allowed)
        raise TypeError(f"For '{cls_name}', the dtype of '{name}' must be one of [{names}], "
                        f"but got {value.dtype}.")


def _check_shape(value, expected, name, cls_name):
    if tuple(value.shape) != tuple(expected):
        raise ValueError(f"For '{cls_name}', the shape of '{name}' must be {tuple(expected)}, "
                         f"but got {tuple(value.shape)}.")


def _uniform_param(shape, bound, name, dtype):
    return Parameter(initializer(Uniform(bound), shape, dtype), name=name)


# ---- the single-step cells -------------------------------------------------------------------
class _RNNCellBase(Cell):
    _mode = ""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        self.input_size = _check_positive_int(input_size, "input_size", cls)
        self.hidden_size = _check_positive_int(hidden_size, "hidden_size", cls)
        self.has_bias = _check_bool(has_bias, "has_bias", cls)
        gate = STEPS[self._mode][1] * self.hidden_size
        stdv = 1.0 / math.sqrt(self.hidden_size)
        self.weight_ih = _uniform_param((gate, self.input_size), stdv, "weight_ih", dtype)
        self.weight_hh = _uniform_param((gate, self.hidden_size), stdv, "weight_hh", dtype)
        if self.has_bias:
            self.bias_ih = _uniform_param((gate,), stdv, "bias_ih", dtype)
            self.bias_hh = _uniform_param((gate,), stdv, "bias_hh", dtype)
        else:
            self.bias_ih = None
            self.bias_hh = None

    def _check_inputs(self, x, hs):
        cls = type(self).__name__
        _check_tensor(x, "x", cls)
        _check_dtype(x, "x", cls)
        if len(x.shape) != 2 or x.shape[1] != self.input_size:
            raise ValueError(f"For '{cls}', the shape of 'x' must be (batch_size, "
                             f"{self.input_size}), but got {tuple(x.shape)}.")
        for name, h in hs:
            _check_tensor(h, name, cls)
            _check_dtype(h, name, cls)
            _check_shape(h, (x.shape[0], self.hidden_size), name, cls)

    def _step(self, x, hx):
        step = STEPS[self._mode][0]
        xw = _input_proj(x, self.weight_ih, self.bias_ih)
        return step(xw, hx, self.weight_hh, self.bias_hh)

    def extend_repr(self):
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_RNNCellBase):
    """mindspore.nn.RNNCell(input_size, hidden_size, has_bias=True, nonlinearity='tanh',
    dtype=mstype.float32): h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh).
    construct(x (batch, input_size), hx (batch, hidden_size)) -> h'."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=mstype.float32):
        if not isinstance(nonlinearity, str):
            raise TypeError(f"For 'RNNCell', the 'nonlinearity' must be a str, "
                            f"but got {type(nonlinearity).__name__}.")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', the 'nonlinearity' must be in ['tanh', 'relu'], "
                             f"but got '{nonlinearity}'.")
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        self._check_inputs(x, (("hx", hx),))
        return self._step(x, hx)


class GRUCell(_RNNCellBase):
    """mindspore.nn.GRUCell(input_size, hidden_size, has_bias=True, dtype=mstype.float32):
    construct(x (batch, input_size), hx (batch, hidden_size)) -> h'. Gates r, z, n."""
    _mode = "GRU"

    def construct(self, x, hx):
        self._check_inputs(x, (("hx", hx),))
        return self._step(x, hx)


class LSTMCell(_RNNCellBase):
    """mindspore.nn.LSTMCell(input_size, hidden_size, has_bias=True, dtype=mstype.float32):
    construct(x (batch, input_size), hx=(h, c), each (batch, hidden_size)) -> (h', c').
    Gates i, f, g, o."""
    _mode = "LSTM"

    def construct(self, x, hx):
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError(f"For 'LSTMCell', the 'hx' must be a tuple of two Tensors (h, c), "
                            f"but got {type(hx).__name__}.")
        self._check_inputs(x, (("hx[0]", hx[0]), ("hx[1]", hx[1])))
        return self._step(x, (hx[0], hx[1]))
