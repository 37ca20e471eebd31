"""`mindspore.device_context` (MindSpore 2.5+): per-device settings by module path.

`cpu`, `gpu` and `ascend` each have `is_available()` / `device_count()` and
setters under `op_precision` / `op_tuning`. msmlir keeps every setting in one
place (`get_settings()`); the ones its compiler reads are said where they are
set (GPU `matmul_allow_tf32` selects TF32 MMA in msmlir-gpu-pipeline, CPU
`threads_num` is context key `runtime_num_threads`); the others are recorded
only, as msmlir has no kernel choice they would steer.
"""
from __future__ import annotations

__all__ = ["get_settings", "cpu", "gpu", "ascend"]

_SETTINGS: dict = {}


def _record(device: str, key: str, value) -> None:
    _SETTINGS[(device, key)] = value


def _check_bool(name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the argument must be a bool, but got "
                        f"{type(value).__name__}.")


def _check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"For '{name}', the argument must be one of {list(choices)}, but got "
                         f"{value!r}.")


def get_settings() -> dict:
    """{(device, setting): value} of every setter called so far."""
    return dict(_SETTINGS)


from . import ascend, cpu, gpu  # noqa: E402,F401  (after the helpers they import)
