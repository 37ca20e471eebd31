"""The in-process GPU host runtime (msmlir.gpu.host): the host functions on
device buffers through MLIR's CUDA runtime, JIT-compiled in this process.

No GPU here: the compiled host module is checked as IR (inputs copied to the
device once, intermediates in device memory, outputs copied back once), the
no-device cases raise GpuUnavailableError, and the whole path (LLVM
translation with the embedded kernel images, JIT, the global constructor that
loads them, the calls, the launches) runs against fake_cuda.c: a stand-in
for libcuda and libmlir_cuda_runtime.so that records what the host code asks
for and runs no kernel. That the kernels compute the right numbers on a GPU
is not verified by this suite."""
import ctypes
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from msmlir.gpu import GpuUnavailableError, compile_gpu
from msmlir.gpu.host import compile_host, load
from msmlir.gpu.ptxas import find_ptxas

HERE = os.path.dirname(os.path.abspath(__file__))

GRAPH = """
func.func @f(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %m = mindir.matmul %x, %w : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %r = mindir.relu %m : tensor<64x32xf32>
  %s = "mindir.softmax"(%r) {axis = -1 : i64} : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %s : tensor<64x32xf32>
}"""


@pytest.fixture(scope="module")
def host_prog():
    return compile_host(GRAPH)


def test_host_module_keeps_buffers_on_the_device(host_prog):
    text = str(host_prog.module)
    assert "func.func" not in text and "memref." not in text
    assert "llvm.call @malloc" not in text and "llvm.call @aligned_alloc" not in text
    body = text[text.index("llvm.func @msmlir_gpu__f("):]
    body = body[:body.index("\n  }\n")]
    copies = re.findall(r"llvm\.call @mgpuMemcpy\((%\w+), (%\w+),", body)
    to_device = [c for c in copies if c[1].startswith("%arg")]
    to_host = [c for c in copies if c[0].startswith("%arg")]
    assert len(to_device) == 2 and len(to_host) == 1      # x, w in; the result out
    assert all(not (a.startswith("%arg") or b.startswith("%arg")) for a, b in copies
               if (a, b) not in to_device + to_host)      # the rest device to device
    launches = body.count("gpu.launch_func")
    assert launches == len(compile_gpu(GRAPH).launches) >= 3
    assert body.count("llvm.call @mgpuMemAlloc") == body.count("llvm.call @mgpuMemFree")
    assert body.count("llvm.call @mgpuStreamCreate") == 1      # one stream for the graph
    assert text.count("gpu.binary") == launches


def test_load_without_a_driver_is_gpu_unavailable(host_prog, monkeypatch):
    monkeypatch.setenv("MSMLIR_LIBCUDA", "libmsmlir-no-such-cuda.so")
    with pytest.raises(GpuUnavailableError, match="libmsmlir-no-such-cuda.so"):
        load(host_prog)


@pytest.fixture(scope="module")
def fake_cuda(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for the fake CUDA library")
    out = str(tmp_path_factory.mktemp("fake_cuda") / "libfake_cuda.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", out, os.path.join(HERE, "fake_cuda.c")],
                   check=True)
    lib = ctypes.CDLL(out)
    lib.fake_log.restype = ctypes.c_char_p
    return out, lib


def test_load_without_the_runtime_library_is_gpu_unavailable(host_prog, fake_cuda, monkeypatch):
    monkeypatch.setenv("MSMLIR_LIBCUDA", fake_cuda[0])               # a device...
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", "/nonexistent/libmlir_cuda_runtime.so")
    with pytest.raises(GpuUnavailableError, match="cannot load MLIR's CUDA runtime"):
        load(host_prog)


def _log(lib) -> list[str]:
    return lib.fake_log().decode().splitlines()


def test_host_runtime_against_a_fake_driver(fake_cuda, monkeypatch):
    path, lib = fake_cuda
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    lib.fake_clear()
    prog = compile_host(GRAPH)
    compiled = load(prog)
    want = compile_gpu(GRAPH).launches
    loads = [ln for ln in _log(lib) if ln.startswith("module_load")]
    assert len(loads) == len(want)                # every image loaded at initialize()
    if find_ptxas() is not None:
        assert all(ln.startswith("module_load cubin") for ln in loads)
    lib.fake_clear()
    x = np.random.rand(64, 128).astype(np.float32)
    w = np.random.rand(128, 32).astype(np.float32)
    out, = compiled.call("f", x, w)
    assert out.shape == (64, 32) and out.dtype == np.float32
    log = _log(lib)
    assert log[0] == "stream" and log[-2:] == ["sync", "stream_destroy"]
    launched = [ln.split() for ln in log if ln.startswith("launch")]
    assert [(int(g[2]), int(g[3]), int(g[4]), int(g[5]), int(g[6]), int(g[7]), int(g[8]))
            for g in launched] == [l.grid + l.block + (l.shared,) for l in want]
    assert [g[1] for g in launched] == [l.entry for l in want]
    copies = [int(ln.split()[1]) for ln in log if ln.startswith("memcpy")]
    # in: x (32 KiB), w (16 KiB); the result (8 KiB) device to device, then to the host
    assert copies[:2] == [64 * 128 * 4, 128 * 32 * 4] and copies[-1] == 64 * 32 * 4
    # device buffers come from the caching allocator (msmlir.gpu.allocator): the
    # host code's frees keep them; a second call allocates nothing from the driver
    assert "free" not in log
    lib.fake_clear()
    again, = compiled.call("f", x, w)
    log2 = _log(lib)
    assert not [ln for ln in log2 if ln.startswith("alloc") or ln == "free"], log2
    assert [int(ln.split()[1]) for ln in log2 if ln.startswith("memcpy")] == copies
    assert [ln for ln in log2 if ln.startswith("launch")] == \
        [ln for ln in log if ln.startswith("launch")]


def test_jit_on_the_gpu_target_runs_in_process_with_a_device(fake_cuda, monkeypatch):
    path, lib = fake_cuda
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    ms.set_context(device_target="GPU")
    try:
        @ms.jit
        def f(x):
            return ops.exp(x) * 2.0

        lib.fake_clear()
        out = f(np.ones((8, 16), np.float32))
        assert out.shape == (8, 16)
        log = _log(lib)
        assert any(ln.startswith("launch") for ln in log) and "sync" in log
        if find_ptxas() is not None:     # compiled for the device's chip: the fake's sm_80
            assert any(ln.startswith("module_load cubin") for ln in log)
    finally:
        ms.set_context(device_target="CPU")


def test_device_target_follows_the_compute_capability(fake_cuda, monkeypatch):
    from msmlir.gpu.device import device_target
    monkeypatch.setenv("MSMLIR_LIBCUDA", fake_cuda[0])
    assert device_target() == ("sm_80", "+ptx70", "bin")      # the fake is an 8.0 device


def test_ptx_images_are_loaded_for_the_driver_to_compile(fake_cuda, monkeypatch):
    path, lib = fake_cuda
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    lib.fake_clear()
    load(compile_host(GRAPH, format="isa"))
    loads = [ln for ln in _log(lib) if ln.startswith("module_load")]
    assert loads and all(ln == "module_load ptx" for ln in loads)
