"""set_context(device_target="GPU"): jitted graphs are compiled for the GPU and
their kernels checked by ptxas, then the call says why it cannot run here —
never a silent run on the CPU."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from msmlir.gpu import GpuUnavailableError
from msmlir.gpu.ptxas import find_ptxas


@pytest.fixture
def gpu_target(monkeypatch):
    monkeypatch.setenv("MSMLIR_LIBCUDA", "libmsmlir-no-such-cuda.so")   # no device, deterministic
    ms.set_context(device_target="GPU")
    yield
    ms.set_context(device_target="CPU")


def test_jit_on_the_gpu_target_compiles_checks_and_says_why_it_cannot_run(gpu_target):
    @ms.jit
    def f(x, w):
        return ops.softmax(ops.relu(ops.matmul(x, w)), axis=-1)

    x = np.random.rand(64, 128).astype(np.float32)
    w = np.random.rand(128, 32).astype(np.float32)
    with pytest.raises(GpuUnavailableError) as e:
        f(x, w)
    msg = str(e.value)
    assert "compiled" in msg and "for sm_90" in msg
    assert "no usable CUDA device" in msg and "libmsmlir-no-such-cuda.so" in msg
    assert "device_target='CPU'" in msg and "export_cubin" in msg
    if find_ptxas() is not None:
        assert "accepted by ptxas" in msg and "0 with spills" in msg


def test_back_on_the_cpu_the_same_function_runs(gpu_target):
    @ms.jit
    def f(x):
        return x * 2.0

    x = np.ones(4, np.float32)
    with pytest.raises(GpuUnavailableError):
        f(x)
    ms.set_context(device_target="CPU")          # the device target is part of the cache key
    np.testing.assert_array_equal(f(x), x * 2)
