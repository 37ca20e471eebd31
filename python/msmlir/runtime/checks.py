"""Run-time checks of compiled code: an out-of-range gather index raises
IndexError at the user's line, as MindSpore does on the CPU, instead of being
clamped silently.

A lowering that needs a check records the op's location in the module
attribute `msmlir.check_sites` (an array of strings; the site number is the
index) and emits a call of `msmlir_check_failed(site, value, bound, count)`
under an `scf.if` on the failure. That symbol is bound here (linker.py) to a
ctypes callback that records the failure for the calling thread; the compiled
code goes on with clamped indices (never an out-of-bounds read), and
`CompiledModule.call` raises the first recorded failure when the call returns.
"""
from __future__ import annotations

import ctypes
import threading

SYMBOL = "msmlir_check_failed"
SITES_ATTR = "msmlir.check_sites"

_FAILED = threading.local()
_CALLBACK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                  ctypes.c_int64)


def _record(site: int, value: int, bound: int, count: int) -> None:
    failures = getattr(_FAILED, "list", None)
    if failures is None:
        failures = _FAILED.list = []
    failures.append((site, value, bound, count))


_CALLBACK = _CALLBACK_TYPE(_record)
ADDRESS = ctypes.cast(_CALLBACK, ctypes.c_void_p).value


def sites_of(module) -> list[str]:
    """The check sites a lowered module recorded (see the module docstring)."""
    attrs = module.operation.attributes
    if SITES_ATTR not in attrs:
        return []
    return [str(a.value) for a in attrs[SITES_ATTR]]


def clear() -> None:
    _FAILED.list = []


def raise_failures(sites: list[str]) -> None:
    """Raises IndexError for the first failure recorded since `clear()`."""
    failures, _FAILED.list = getattr(_FAILED, "list", None) or [], []
    if not failures:
        return
    raise failure_error(sites, *failures[0])


def failure_error(sites: list[str], site: int, value: int, bound: int, count: int) -> IndexError:
    """The IndexError of one failed check (also raised by the Ascend host runner)."""
    where = sites[site] if 0 <= site < len(sites) else "a compiled op"
    more = f" ({count} indices are out of range)" if count > 1 else ""
    return IndexError(f"{where}: index {value} is out of range for an axis of size {bound} "
                      f"(valid: {-bound} to {bound - 1}){more}")
