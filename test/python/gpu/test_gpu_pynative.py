"""Results that stay on the device (msmlir.gpu.resident, device_io): what
set_context(device_target="GPU") compiles takes every argument as a device
buffer; results come back in CUDA managed memory (numpy arrays over a
ManagedBuffer), so a graph's or a PyNative op's result that feeds the next
call is read where it is, and a host read is the sync (the driver migrates
the pages). Run against fake_cuda.c (device memory is host memory; copies
are logged with their direction, managed allocations as alloc_managed):
these tests count what crosses the bus. Nothing here ran on a GPU."""
import ctypes
import gc
import os
import shutil
import subprocess

import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor, ops
from msmlir.gpu import resident
from msmlir.gpu.graph import compile_graph

HERE = os.path.dirname(os.path.abspath(__file__))

GRAPH = """
func.func @f(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = mindir.exp %x : tensor<64x128xf32>
  %c = mindir.constant dense<2.0> : tensor<f32>
  %r = mindir.mul %e, %c : (tensor<64x128xf32>, tensor<f32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}"""


def _fake(tmp_path_factory, name):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for the fake CUDA library")
    out = str(tmp_path_factory.mktemp(name) / "libfake_cuda.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", out, os.path.join(HERE, "fake_cuda.c")],
                   check=True)
    lib = ctypes.CDLL(out)
    lib.fake_log.restype = ctypes.c_char_p
    return out, lib


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    return _fake(tmp_path_factory, "fake_cuda_pynative")


def _log(lib):
    return lib.fake_log().decode().splitlines()


def _copies(lib):
    return [(int(ln.split()[1]), ln.split()[2]) for ln in _log(lib) if ln.startswith("memcpy")]


def test_a_result_feeds_the_next_call_where_it_is(fake, monkeypatch):
    path, lib = fake
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    compiled = compile_graph(GRAPH)
    x = np.ones((64, 128), np.float32)
    lib.fake_clear()
    y, = compiled.call("f", x)                   # a host array: uploaded once
    assert _copies(lib) == [(x.nbytes, "htod")]
    assert resident.is_managed(y) and y.shape == (64, 128) and y.dtype == np.float32
    assert y.flags.c_contiguous and y.flags.writeable
    lib.fake_clear()
    z, = compiled.call("f", y)                   # a managed result: passed as it is
    assert _copies(lib) == [] and resident.is_managed(z)
    assert any(ln.startswith("launch") for ln in _log(lib))
    # the host reads and writes managed memory directly (the fake ran no kernel:
    # zeros); a host write is what the next call reads
    np.testing.assert_array_equal(z, 0)
    z[:] = 3.0
    lib.fake_clear()
    compiled.call("f", z)
    assert _copies(lib) == []
    # a view that does not start at the allocation is an ordinary host array
    lib.fake_clear()
    compiled.call("f", np.ascontiguousarray(z[::-1]))
    assert _copies(lib) == [(x.nbytes, "htod")]


def test_managed_results_are_freed_with_their_last_view(fake, monkeypatch):
    path, lib = fake
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    compiled = compile_graph(GRAPH)
    x = np.ones((64, 128), np.float32)
    y, = compiled.call("f", x)
    ptr = y.base.ptr
    alloc = compiled._runtime().allocator
    view = y[3:]
    gc.collect()
    lib.fake_clear()
    del y
    gc.collect()
    assert alloc.owns(ptr) and ptr in resident._MANAGED                # the view holds it
    del view
    gc.collect()
    # back to the caching allocator (no driver free), handed to the next result
    assert not alloc.owns(ptr) and ptr not in resident._MANAGED
    assert "free" not in _log(lib)
    z, = compiled.call("f", x)
    assert z.base.ptr == ptr and not [ln for ln in _log(lib) if ln.startswith("alloc")]


def _frontend_adopts_managed_arrays() -> bool:
    """Whether Tensor wraps an array whose base says `__msmlir_owned__` without
    copying it (the common/tensor.py hook PyNative residency needs)."""
    host = np.zeros(4, np.float32)

    class Owned:
        __msmlir_owned__ = True
        __array_interface__ = host.__array_interface__
    arr = np.asarray(Owned())
    return np.shares_memory(Tensor.__msmlir_wrap__(arr).asnumpy(), host)


@pytest.mark.skipif(not _frontend_adopts_managed_arrays(),
                    reason="common/tensor.py copies arrays it does not own (managed results are "
                           "copied into host Tensors: PyNative still uploads every op's inputs)")
def test_pynative_ops_chain_on_the_device(fake, monkeypatch):
    path, lib = fake
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    old = ms.get_context("mode")
    ms.set_context(device_target="GPU", mode=ms.PYNATIVE_MODE)
    try:
        x = Tensor(np.ones((64, 128), np.float32))
        a = ops.exp(x)
        b = ops.mul(a, 2.0)
        c = b + a                                   # compiles; then the steady state:
        for _ in range(2):
            lib.fake_clear()
            a = ops.exp(x)
            b = ops.mul(a, 2.0)
            c = b + a
            # x (a host Tensor) went in on its first use and is unchanged (its
            # shadow compares equal): nothing crosses; a and b never leave the device
            assert _copies(lib) == []
            assert sum(ln.startswith("launch") for ln in _log(lib)) >= 3
        assert type(c) is Tensor and resident.is_managed(c.asnumpy())
        lib.fake_clear()
        assert np.isfinite(c.asnumpy()).all()            # a host read: no memcpy
        assert _copies(lib) == []
    finally:
        ms.set_context(device_target="CPU", mode=old)


def test_without_concurrent_managed_access_results_are_copied_and_it_says_so(
        tmp_path_factory, monkeypatch):
    path, lib = _fake(tmp_path_factory, "fake_cuda_no_managed")
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    monkeypatch.setenv("FAKE_CUDA_NO_MANAGED", "1")
    compiled = compile_graph(GRAPH)
    x = np.ones((64, 128), np.float32)
    lib.fake_clear()
    with pytest.warns(RuntimeWarning, match="no concurrent managed access; the results of GPU "
                                            "graphs and PyNative ops are copied"):
        y, = compiled.call("f", x)
    assert _copies(lib) == [(x.nbytes, "htod"), (x.nbytes, "dtoh")]
    assert not resident.is_managed(y) and y.flags.owndata
    assert not any(ln.startswith("alloc_managed") for ln in _log(lib))
