"""`ops.Custom`: a user-written operator (MindSpore's custom op), func_type "pyfunc".

    def topk_mask(x):                       # numpy in, numpy out
        return (x >= np.sort(x, axis=-1)[..., -3:-2]).astype(np.float32)

    op = ops.Custom(topk_mask, out_shape=lambda s: s, out_dtype=lambda t: t,
                    func_type="pyfunc", bprop=None)
    y = op(x)

The function runs in the Python interpreter on numpy arrays: in PyNative mode
directly, in graph mode as a `mindir.host_callback` (see
msmlir/ops/host.py) whose result types are the declared `out_shape` /
`out_dtype` — no probing call at compile time, unlike JIT Fallback. `bprop`,
also a numpy function `bprop(*inputs, out, dout) -> tuple of input gradients`,
gives it a derivative (run as a host callback too); without it the op has no
gradient (a clear error). Kernel-language func_types ("akg", "hybrid", "aot",
...) are not supported: write compiled kernels with `@msmlir.kernel`.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as _dt
import msmlir.frontend.builder as _b
from ._base import to_tensor
from .host import host_call

__all__ = ["Custom"]

# How an op with a user bprop is emitted (msmlir.autodiff.custom.custom_call, registered
# by msmlir.autodiff: a higher layer). Until autodiff is loaded nothing can differentiate
# the op, so the forward host call alone is emitted.
_CUSTOM_CALL: list = []


def set_custom_call(custom_call) -> None:
    """Registers `custom_call(forward, backward, inputs, kwargs, name, key)`."""
    _CUSTOM_CALL[:] = [custom_call]


def _declared(spec, inputs):
    """out_shape / out_dtype: a value, or a callable of the inputs' shapes / dtypes."""
    return spec(*inputs) if callable(spec) else spec


class Custom:
    """ops.Custom(func, out_shape, out_dtype, func_type="pyfunc", bprop=None, reg_info=None)."""

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="hybrid", bprop=None,
                 reg_info=None):
        if func_type != "pyfunc":
            raise ValueError(f"ops.Custom: func_type {func_type!r} is not supported by msmlir (only "
                             f"'pyfunc'); write compiled kernels with @msmlir.kernel")
        if not callable(func):
            raise TypeError(f"ops.Custom: func must be callable, got {type(func).__name__}")
        if out_shape is None or out_dtype is None:
            raise ValueError("ops.Custom(func_type='pyfunc') needs out_shape and out_dtype")
        self.func, self.out_shape, self.out_dtype, self.bprop = func, out_shape, out_dtype, bprop
        self.name = getattr(func, "__name__", "custom")

    def _result_types(self, shapes, dtypes):
        shape = _declared(self.out_shape, shapes)
        dtype = _declared(self.out_dtype, dtypes)
        multi = isinstance(dtype, (tuple, list))
        shapes_ = list(shape) if multi else [shape]
        dtypes_ = list(dtype) if multi else [dtype]
        if len(shapes_) != len(dtypes_):
            _b.error(f"ops.Custom({self.name}): {len(shapes_)} out_shapes but {len(dtypes_)} "
                     f"out_dtypes")
        types = [(tuple(int(d) for d in s), _dt.get(t)) for s, t in zip(shapes_, dtypes_)]
        spec = ("tuple", tuple(("L",) for _ in types)) if multi else ("L",)
        return spec, types

    def __call__(self, *inputs):
        if _b.current() is None:
            return self._eager(inputs)
        ts = [to_tensor(x) for x in inputs]
        rtypes = self._result_types([t.shape for t in ts], [t.dtype for t in ts])
        what = f"ops.Custom({self.name})"

        def forward(*xs):
            return host_call(self.func, list(xs), {}, what=what, result_types=rtypes)

        if self.bprop is None or not _CUSTOM_CALL:
            return forward(*ts)

        in_types = (("tuple", tuple(("L",) for _ in ts)), [(t.shape, t.dtype) for t in ts])

        def backward(*xs_out_dout):
            return host_call(self.bprop, list(xs_out_dout), {}, what=f"{what} bprop",
                             result_types=in_types)

        return _CUSTOM_CALL[0](forward, backward, ts, {}, f"custom_{self.name}", id(self))

    def _eager(self, inputs):
        arrays = [np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x) for x in inputs]
        dts = [_dt.from_numpy(a.dtype) for a in arrays]
        spec, types = self._result_types([a.shape for a in arrays], dts)
        out = self.func(*arrays)
        outs = list(out) if spec[0] == "tuple" else [out]
        results = []
        for o, (shape, dt) in zip(outs, types):
            o = np.asarray(o)
            if o.shape != shape:
                raise ValueError(f"ops.Custom({self.name}) returned shape {list(o.shape)}, declared "
                                 f"{list(shape)}")
            results.append(o.astype(dt.to_numpy(), copy=False))
        wrap = next((type(x).__msmlir_wrap__ for x in inputs
                     if hasattr(type(x), "__msmlir_wrap__")), None)
        if wrap is not None:
            results = [wrap(r) for r in results]
        return tuple(results) if spec[0] == "tuple" else results[0]
