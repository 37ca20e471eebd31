"""`mindspore.common.api`: `jit` (and its old name `ms_function`), `jit_class`,
`_pynative_executor` (tests call `_pynative_executor.sync()` after eager ops),
and `mutable`.

msmlir runs every eager op to completion before returning (the compiled kernel
is called synchronously), so `sync()` has nothing to wait for. `mutable(x)`
marks a value whose changes should not recompile in MindSpore; msmlir keys
compiled functions by shapes and dtypes, not tensor values, so it returns its
input (a tuple/list of tensors stays a tuple/list).
"""
from __future__ import annotations

from ..frontend.jit import jit

__all__ = ["jit", "ms_function", "jit_class", "ms_class", "mutable", "_pynative_executor",
           "_PyNativeExecutor", "JitConfig", "run_check"]

ms_function = jit


def jit_class(cls):
    """Marks a class whose instances compiled code may use (MindSpore's
    `jit_class`): msmlir reads any object's attributes at compile time."""
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    cls.__ms_class__ = True
    return cls


ms_class = jit_class


class _PyNativeExecutor:
    """The PyNative executor's Python-visible surface."""

    def sync(self):
        """Waits for the queued eager ops: msmlir's run synchronously."""
        return None

    def set_grad_flag(self, flag):
        self._grad_flag = bool(flag)

    def grad_flag(self):
        return getattr(self, "_grad_flag", False)

    def set_jit_compile_status(self, *args, **kwargs):
        return None

    def real_run_op(self, *args, **kwargs):
        raise RuntimeError("msmlir has no separate op runner: call the primitive directly")


_pynative_executor = _PyNativeExecutor()


def mutable(input_data, dynamic_len=False):
    """Returns `input_data` (see the module docstring); checks MindSpore's
    argument rules: a tensor, or a tuple/list/dict of them."""
    def ok(v):
        if isinstance(v, (tuple, list)):
            return all(ok(e) for e in v)
        if isinstance(v, dict):
            return all(ok(e) for e in v.values())
        return hasattr(v, "shape") or isinstance(v, (int, float))
    if not ok(input_data):
        raise TypeError(f"For 'mutable', the 'input_data' should be one of (int, float, Tensor, "
                        f"tuple, list, dict) of them, but got {type(input_data).__name__}")
    return input_data


class JitConfig:
    """MindSpore's `JitConfig(jit_level, exc_mode, jit_syntax_level, ...)`: accepted
    and kept (`jit_config` in set_context / jit); msmlir's compilation does not
    depend on these options."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode,
                                "jit_syntax_level": jit_syntax_level,
                                "debug_level": debug_level, "infer_boost": infer_boost, **kwargs}


def run_check():
    """Checks the installation (mindspore.run_check): compiles and runs one op."""
    import numpy as np
    from .. import __version__
    from .. import ops
    out = ops.add(np.ones(3, np.float32), np.ones(3, np.float32))
    if not np.array_equal(np.asarray(out), np.full(3, 2, np.float32)):
        raise RuntimeError("msmlir run_check: a compiled add returned wrong values")
    print(f"msmlir version: {__version__}")
    print("The result of the compiled add is correct: msmlir is installed successfully.")
