"""Device memory reuse (msmlir.gpu.allocator, DeviceRuntime.cached_upload):
the caching allocator's size classes and free lists; against fake_cuda.c
(device memory is host memory, every mgpuMemAlloc / mgpuMemFree / memcpy
logged): a graph called again allocates nothing from the driver, a host input
is uploaded again only when it changed (writeable: compared with its shadow;
read-only: once), a mutated input is re-uploaded, through any alias.
Nothing here ran on a GPU."""
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
from msmlir.gpu.allocator import CachingAllocator, size_class
from msmlir.gpu.graph import compile_graph

HERE = os.path.dirname(os.path.abspath(__file__))

GRAPH = """
func.func @f(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %m = mindir.matmul %x, %w : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %r = mindir.relu %m : tensor<64x32xf32>
  %s = "mindir.softmax"(%r) {axis = -1 : i64} : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %s : tensor<64x32xf32>
}"""


# -- the allocator alone ---------------------------------------------------------------------

def test_size_classes():
    prev = 0
    for n in list(range(0, 5000, 7)) + [10 ** 5, 10 ** 6 + 1, 3 * 2 ** 20 + 5, 10 ** 9]:
        c = size_class(n)
        assert c >= max(n, 512) and c % 512 == 0
        assert c <= max(512, 1.25 * n + 512)            # at most a quarter unused
        assert c >= prev
        prev = c
    assert size_class(1) == size_class(512) == 512
    assert size_class(4097) == 5120 and size_class(2 ** 20 + 1) == 1310720


class _Driver:
    def __init__(self, capacity=1 << 30):
        self.capacity, self.used, self.next, self.calls = capacity, 0, 4096, []
        self.sizes = {}

    def alloc(self, n, stream, managed):
        self.calls.append(("alloc", n, managed))
        if self.used + n > self.capacity:
            return 0
        p, self.next = self.next, self.next + n
        self.used += n
        self.sizes[p] = n
        return p

    def free(self, p, stream):
        self.calls.append(("free", p))
        self.used -= self.sizes.pop(p, 0)


def test_free_lists_reuse_by_class_and_kind():
    d = _Driver()
    a = CachingAllocator(d.alloc, d.free, None)
    p = a.malloc(1000)
    a.free(p)
    assert a.malloc(1024) == p                        # same class (1024): reused
    q = a.malloc(1000, managed=True)                  # managed: its own lists
    r = a.malloc(5000)
    assert len({p, q, r}) == 3 and [c[0] for c in d.calls] == ["alloc"] * 3
    a.free(r)
    assert a.stats.cached_bytes == size_class(5000) and a.stats.reuses == 1
    a.empty_cache()
    assert d.calls[-1] == ("free", r) and a.stats.cached_bytes == 0
    a.free(12345)                                     # not ours: straight to the driver
    assert d.calls[-1] == ("free", 12345)


def test_out_of_memory_gives_the_cache_back_and_retries():
    d = _Driver(capacity=8192)
    a = CachingAllocator(d.alloc, d.free, None)
    p = a.malloc(6000)                                # class 6144
    a.free(p)                                         # cached, still the driver's
    q = a.malloc(4000)                                # class 4096: 6144 + 4096 > 8192
    assert q and ("free", p) in d.calls and a.stats.driver_frees == 1
    a.free(q)
    assert a.malloc(10 ** 6) == 0                     # genuinely too big: 0, no raise


# -- against the fake driver -----------------------------------------------------------------

@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for the fake CUDA library")
    out = str(tmp_path_factory.mktemp("fake_cuda_alloc") / "libfake_cuda.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", out, os.path.join(HERE, "fake_cuda.c")],
                   check=True)
    lib = ctypes.CDLL(out)
    lib.fake_log.restype = ctypes.c_char_p
    return out, lib


def _log(lib):
    return lib.fake_log().decode().splitlines()


def _allocs(lib):
    return [ln for ln in _log(lib) if ln.startswith("alloc")]


def _uploads(lib):
    return [int(ln.split()[1]) for ln in _log(lib) if ln.startswith("memcpy") and "htod" in ln]


@pytest.fixture
def compiled(fake, monkeypatch):
    path, _ = fake
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    return compile_graph(GRAPH)


def test_repeated_calls_allocate_from_the_driver_once(compiled, fake):
    lib = fake[1]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 128)).astype(np.float32)
    w = rng.standard_normal((128, 32)).astype(np.float32)
    alloc = compiled._runtime().allocator
    lib.fake_clear()
    compiled.call("f", x, w)
    assert "free" not in _log(lib)                    # freed blocks stay cached
    before = alloc.stats.driver_allocs
    for _ in range(4):
        lib.fake_clear()
        out, = compiled.call("f", x, w)
        # no cuMemAlloc / cuMemFree: the graph's intermediates and its managed
        # result reuse blocks (the last result, dropped, is the next one's)
        assert not _allocs(lib) and "free" not in _log(lib), _log(lib)
        assert sum(ln.startswith("launch") for ln in _log(lib)) >= 2
        del out
    assert alloc.stats.driver_allocs == before and alloc.stats.reuses > 0


def test_host_inputs_are_uploaded_again_only_when_changed(compiled, fake):
    lib = fake[1]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 128)).astype(np.float32)
    w = rng.standard_normal((128, 32)).astype(np.float32)
    lib.fake_clear()
    compiled.call("f", x, w)
    assert sorted(_uploads(lib)) == sorted([x.nbytes, w.nbytes])
    lib.fake_clear()
    compiled.call("f", x, w)                          # unchanged: nothing crosses
    assert _uploads(lib) == []
    x[3, 4] = 7.0                                     # mutated in place: uploaded again
    lib.fake_clear()
    compiled.call("f", x, w)
    assert _uploads(lib) == [x.nbytes]
    view = w.reshape(-1)                              # ... through any alias
    view[-1] += 1.0
    lib.fake_clear()
    compiled.call("f", x, w)
    assert _uploads(lib) == [w.nbytes]
    x2 = x.copy()                                     # another array: its own upload
    lib.fake_clear()
    compiled.call("f", x2, w)
    assert _uploads(lib) == [x2.nbytes]


def test_read_only_inputs_are_uploaded_once_without_a_shadow(compiled, fake):
    lib = fake[1]
    rt = compiled._runtime()
    rng = np.random.default_rng(2)
    w = rng.standard_normal((128, 32)).astype(np.float32)
    w.setflags(write=False)
    x = np.frombuffer(rng.standard_normal((64, 128)).astype(np.float32).tobytes(),
                      np.float32).reshape(64, 128)     # a view of bytes: read-only
    assert resident.frozen(w) and resident.frozen(x)
    shadow = rt.shadow_bytes
    lib.fake_clear()
    compiled.call("f", x, w)
    assert sorted(_uploads(lib)) == sorted([x.nbytes, w.nbytes])
    assert rt.shadow_bytes == shadow                  # no shadow copies for them
    for _ in range(2):
        lib.fake_clear()
        compiled.call("f", x, w)
        assert _uploads(lib) == []
    # a read-only view of a writeable array is not frozen (the base may change)
    base = rng.standard_normal((128, 32)).astype(np.float32)
    ro = base[:]
    ro.setflags(write=False)
    assert not resident.frozen(ro)


def test_cached_copies_are_freed_with_their_arrays(compiled, fake):
    rt = compiled._runtime()
    x = np.ones((64, 128), np.float32)
    w = np.ones((128, 32), np.float32)
    compiled.call("f", x, w)
    ptr = rt.uploads[id(x)][1]
    gc.collect()
    shadow = rt.shadow_bytes
    assert rt.allocator.owns(ptr)
    del x
    gc.collect()
    assert not rt.allocator.owns(ptr) and rt.shadow_bytes == shadow - 64 * 128 * 4


def test_pynative_input_mutated_in_place_is_uploaded_again(fake, monkeypatch):
    path, lib = fake
    monkeypatch.setenv("MSMLIR_LIBCUDA", path)
    monkeypatch.setenv("MSMLIR_CUDA_RUNTIME", path)
    old = ms.get_context("mode")
    ms.set_context(device_target="GPU", mode=ms.PYNATIVE_MODE)
    try:
        # (a shape of its own: PyNative's op cache would hand other tests this
        # program, loaded against this module's fake library)
        x = Tensor(np.ones((48, 96), np.float32))
        ops.exp(x)                                    # compiles; x uploaded
        lib.fake_clear()
        for _ in range(3):
            ops.exp(x)
        assert _uploads(lib) == []                    # an eager input: uploaded once
        x.asnumpy()[0, 0] = 2.0                       # the host writes the Tensor's data
        lib.fake_clear()
        ops.exp(x)
        assert _uploads(lib) == [x.nbytes]
    finally:
        ms.set_context(device_target="CPU", mode=old)
