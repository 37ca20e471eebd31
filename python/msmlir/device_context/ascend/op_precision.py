"""`mindspore.device_context.ascend.op_precision`: CANN precision switches, recorded only
(msmlir's Ascend kernels compute in the graph's dtypes)."""
from .. import _check_bool, _check_choice, _record

__all__ = ["precision_mode", "op_precision_mode", "matmul_allow_hf32", "conv_allow_hf32"]

_MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype",
          "force_fp32", "allow_fp32_to_bf16", "allow_mix_precision_fp16",
          "allow_mix_precision_bf16", "force_lowerprecision", "cube_fp16in_fp32out")


def precision_mode(mode):
    _check_choice("precision_mode", mode, _MODES)
    _record("ascend", "precision_mode", mode)


def op_precision_mode(path):
    if not isinstance(path, str):
        raise TypeError(f"For 'op_precision_mode', the argument must be a str, but got "
                        f"{type(path).__name__}.")
    _record("ascend", "op_precision_mode", path)


def matmul_allow_hf32(value):
    _check_bool("matmul_allow_hf32", value)
    _record("ascend", "matmul_allow_hf32", value)


def conv_allow_hf32(value):
    _check_bool("conv_allow_hf32", value)
    _record("ascend", "conv_allow_hf32", value)
