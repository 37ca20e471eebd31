"""The kernels this session's mappings make, run through the in-process host
runtime (msmlir.gpu.host) against fake_cuda.c: the double-buffered FMA
matmul (cp.async), the f16 convolution as an implicit GEMM on the tensor
cores, and a split reduction (two kernels). The fake loads every image
(cubins when ptxas is there), records every launch, and runs no kernel: the
launches (entry, grid, block, dynamic shared memory) must be those of the
compiled program, in order, and the buffers between them device buffers.
Nothing here ran on a GPU."""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

from msmlir.gpu import compile_gpu
from msmlir.gpu.host import compile_host, load
from msmlir.gpu.ptxas import find_ptxas

HERE = os.path.dirname(os.path.abspath(__file__))


def _t(shape, dt="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


MATMUL = f"""
func.func @f(%a: {_t([256, 512])}, %b: {_t([512, 384])}) -> {_t([256, 384])} {{
  %r = mindir.matmul %a, %b : ({_t([256, 512])}, {_t([512, 384])}) -> {_t([256, 384])}
  return %r : {_t([256, 384])}
}}"""

CONV = f"""
func.func @f(%x: {_t([4, 16, 34, 34], "f16")}, %w: {_t([32, 16, 3, 3], "f16")}) -> {_t([4, 32, 32, 32], "f16")} {{
  %r = mindir.conv2d %x, %w : ({_t([4, 16, 34, 34], "f16")}, {_t([32, 16, 3, 3], "f16")}) -> {_t([4, 32, 32, 32], "f16")}
  return %r : {_t([4, 32, 32, 32], "f16")}
}}"""

SPLIT = f"""
func.func @f(%x: {_t([8, 200003])}) -> {_t([8])} {{
  %r = mindir.reduce_sum %x {{axes = array<i64: 1>, keep_dims = false}} : ({_t([8, 200003])}) -> {_t([8])}
  return %r : {_t([8])}
}}"""

CASES = {
    "fma-cp-async": (MATMUL, [(256, 512), (512, 384)], np.float32, "cp.async.cg"),
    "conv-implicit-gemm": (CONV, [(4, 16, 34, 34), (32, 16, 3, 3)], np.float16, "mma.sync"),
    "split-reduction": (SPLIT, [(8, 200003)], np.float32, "bar.sync"),   # (sums in f64: no shuffles)
}


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for the fake CUDA library")
    out = str(tmp_path_factory.mktemp("fake_cuda_launches") / "libfake_cuda.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", out, os.path.join(HERE, "fake_cuda.c")],
                   check=True)
    lib = ctypes.CDLL(out)
    lib.fake_log.restype = ctypes.c_char_p
    return out, lib


@pytest.mark.parametrize("key", list(CASES))
@pytest.mark.parametrize("device_io", [False, True])
def test_launches_on_a_fake_driver(key, device_io, fake, monkeypatch):
    text, shapes, dtype, marker = CASES[key]
    path, lib = fake
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    # sm_80: the fake is a compute capability 8.0 device
    want = compile_gpu(text, chip="sm_80", features="+ptx70")
    assert any(marker in ptx for ptx in want.ptx.values())
    lib.fake_clear()
    compiled = load(compile_host(text, chip="sm_80", features="+ptx70", device_io=device_io))
    log = lib.fake_log().decode().splitlines()
    loads = [ln for ln in log if ln.startswith("module_load")]
    assert len(loads) == len(want.objects)
    if find_ptxas() is not None:
        assert all(ln.startswith("module_load cubin") for ln in loads)
    inputs = [np.ones(s, dtype) for s in shapes]
    lib.fake_clear()
    out, = compiled.call("f", *inputs)
    log = lib.fake_log().decode().splitlines()
    launched = [ln.split() for ln in log if ln.startswith("launch")]
    assert [(g[1],) + tuple(int(v) for v in g[2:9]) for g in launched] == \
        [(l.entry,) + l.grid + l.block + (l.shared,) for l in want.launches]
    copies = [ln.split() for ln in log if ln.startswith("memcpy")]
    htod = [int(c[1]) for c in copies if c[2] == "htod"]
    assert htod[:len(inputs)] == [a.nbytes for a in inputs]      # the inputs, once
    dtoh = [int(c[1]) for c in copies if c[2] == "dtoh"]
    # the result: copied back by the host code, or (device_io) left in managed memory
    assert dtoh == ([] if device_io else [out.nbytes])
    assert log[-2:] == ["sync", "stream_destroy"]
