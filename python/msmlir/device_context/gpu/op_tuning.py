"""`mindspore.device_context.gpu.op_tuning`: cuDNN algorithm choices. Recorded only:
msmlir generates its own convolution kernels (no cuDNN)."""
from .. import _check_choice, _record

__all__ = ["conv_fprop_algo", "conv_dgrad_algo", "conv_wgrad_algo"]

_FPROP = ("normal", "performance", "implicit_gemm", "precomp_gemm", "gemm", "direct", "fft",
          "fft_tiling", "winograd", "winograd_nonfused")
_DGRAD = ("normal", "performance", "algo_0", "algo_1", "fft", "fft_tiling", "winograd",
          "winograd_nonfused")
_WGRAD = ("normal", "performance", "algo_0", "algo_1", "fft", "algo_3", "fft_tiling",
          "winograd_nonfused")


def conv_fprop_algo(mode):
    _check_choice("conv_fprop_algo", mode, _FPROP)
    _record("gpu", "conv_fprop_algo", mode)


def conv_dgrad_algo(mode):
    _check_choice("conv_dgrad_algo", mode, _DGRAD)
    _record("gpu", "conv_dgrad_algo", mode)


def conv_wgrad_algo(mode):
    _check_choice("conv_wgrad_algo", mode, _WGRAD)
    _record("gpu", "conv_wgrad_algo", mode)
