"""The compile cache (msmlir/compiler.py, runtime/compile_cache.py,
runtime/shared_object.py): in memory within a process, on disk across processes.

A "new process" is simulated in-process by clearing the memory cache (the disk
entry is then loaded: `timings` has "disk-cache"), and checked for real with
subprocesses (a second process loads what the first stored; two processes
storing the same graph at once).
"""
import json
import os
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import msmlir as ms
from msmlir import compiler
from msmlir.common import context
from msmlir.passes.registry import option_defaults
from msmlir.runtime import compile_cache, shared_object

pytestmark = pytest.mark.skipif(not shared_object.supported(),
                                reason="no C compiler / unsupported ISA: no disk cache")


def add_mlir(n=4, k=2.0):
    t = f"tensor<{n}xf32>"
    return f"""
func.func @f(%x: {t}) -> {t} {{
  %c = "mindir.constant"() {{value = dense<{k}> : {t}}} : () -> {t}
  %r = mindir.mul %x, %c : ({t}, {t}) -> {t}
  return %r : {t}
}}"""


ASSIGN_MLIR = """
module {
  func.func @assign_ret(%w: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
    %n = mindir.add %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = mindir.assign %w, %n : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """MSMLIR_COMPILE_CACHE set to a fresh directory; the memory cache cleared
    before and after (other tests must not see these modules)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("MSMLIR_COMPILE_CACHE", str(d))
    monkeypatch.delenv("MSMLIR_COMPILE_CACHE_MAX_MB", raising=False)
    compiler.clear_memory_cache()
    compile_cache._WARNED.clear()
    compiler._STORE_WARNED.clear()
    yield d
    compiler.clear_memory_cache()
    context._reset_context()


def entries(d):
    e = d / f"msmlir-v{compile_cache.FORMAT}"
    return sorted(p.name for p in e.iterdir() if not p.name.startswith(".tmp-")) if e.exists() else []


def metas(d):
    return [n for n in entries(d) if n.endswith(".json")]


def new_process():
    """What a new process sees: nothing in memory."""
    compiler.clear_memory_cache()


def run_f(cm, n=4, k=2.0):
    x = np.arange(n, dtype=np.float32)
    (y,) = cm.call("f", x)
    np.testing.assert_array_equal(y, x * k)


# --- in memory ----------------------------------------------------------------------------

def test_no_cache_when_off(monkeypatch):
    monkeypatch.delenv("MSMLIR_COMPILE_CACHE", raising=False)
    a = compiler.compile_mlir(add_mlir(5))
    b = compiler.compile_mlir(add_mlir(5))
    assert b is not a and "cache" not in b.timings


def test_memory_hit_same_graph_twice(cache_dir):
    a = compiler.compile_mlir(add_mlir(5))
    b = compiler.compile_mlir(add_mlir(5))
    assert b is a and "jit" in a.timings
    run_f(b, 5)


def test_memory_miss_on_changed_shape_and_pipeline_option(cache_dir):
    a = compiler.compile_mlir(add_mlir(6))
    b = compiler.compile_mlir(add_mlir(7))
    assert b is not a
    run_f(b, 7)
    with option_defaults("msmlir-cpu-pipeline", {"fast-math": False}):
        c = compiler.compile_mlir(add_mlir(6))
    assert c is not a
    run_f(c, 6)
    assert compiler.compile_mlir(add_mlir(6)) is a


def test_jit_functions_share_compiled_modules(cache_dir):

    def make():
        @ms.jit
        def f(x):
            return x * 3.0 + 1.0
        return f
    x = np.ones((2, 3), np.float32)
    f1, f2 = make(), make()
    np.testing.assert_array_equal(f1(x), 4.0)
    np.testing.assert_array_equal(f2(x), 4.0)
    assert f1.lower_module(x).compiled is f2.lower_module(x).compiled


# --- on disk ------------------------------------------------------------------------------

def test_disk_store_and_load(cache_dir):
    a = compiler.compile_mlir(add_mlir())
    assert "disk-store" in a.timings
    names = entries(cache_dir)
    assert len([n for n in names if n.endswith(".so")]) == 1 and len(metas(cache_dir)) == 1
    entry_dir = cache_dir / f"msmlir-v{compile_cache.FORMAT}"
    for p in [cache_dir, entry_dir, *entry_dir.iterdir()]:
        assert p.stat().st_mode & 0o077 == 0, p       # private to the user
    new_process()
    b = compiler.compile_mlir(add_mlir())
    assert b is not a and b.engine is None and b.library is not None
    assert "disk-cache" in b.timings and "jit" not in b.timings
    run_f(b)
    assert compiler.compile_mlir(add_mlir()) is b      # then in memory


def test_disk_miss_on_shape_option_and_version_stamp(cache_dir, monkeypatch):
    compiler.compile_mlir(add_mlir())
    new_process()
    assert "jit" in compiler.compile_mlir(add_mlir(8)).timings        # another shape
    new_process()
    with option_defaults("msmlir-cpu-pipeline", {"fast-math": False}):
        c = compiler.compile_mlir(add_mlir())
    assert "jit" in c.timings
    run_f(c)
    assert len(metas(cache_dir)) == 3
    new_process()
    monkeypatch.setattr(compile_cache, "_STAMP", ["another msmlir build"])
    d = compiler.compile_mlir(add_mlir())
    assert "jit" in d.timings and "disk-cache" not in d.timings
    assert len(metas(cache_dir)) == 4
    new_process()
    assert "disk-cache" in compiler.compile_mlir(add_mlir()).timings


def test_disk_entry_of_another_stamp_is_refused(cache_dir):
    compiler.compile_mlir(add_mlir())
    (meta,) = metas(cache_dir)
    p = cache_dir / f"msmlir-v{compile_cache.FORMAT}" / meta
    m = json.loads(p.read_text())
    m["stamp"] = "0" * 64
    p.write_text(json.dumps(m))
    new_process()
    with pytest.warns(compile_cache.CompileCacheWarning, match="another msmlir build"):
        b = compiler.compile_mlir(add_mlir())
    assert "jit" in b.timings
    run_f(b)


def test_writeback_and_check_sites_survive_the_disk(cache_dir):
    compiler.compile_mlir(ASSIGN_MLIR)
    new_process()
    cm = compiler.compile_mlir(ASSIGN_MLIR)
    assert "disk-cache" in cm.timings
    v = np.arange(4, dtype=np.float32)
    w = np.ones(4, np.float32)
    (r,) = cm.call("assign_ret", w, v)
    np.testing.assert_array_equal(r, 2 * v)
    np.testing.assert_array_equal(w, 2 * v)

    from msmlir import ops

    def take(p, i):
        return ops.gather(p, i, 0)
    params = np.arange(40, dtype=np.float32).reshape(10, 4)
    np.testing.assert_array_equal(ms.jit(take)(params, np.array([1], np.int32)), params[[1]])
    new_process()
    f = ms.jit(take)
    with pytest.raises(IndexError, match=r"test_compile_cache.py:\d+:\d+: mindir.gather: "
                                         r"index 12 is out of range"):
        f(params, np.array([12], np.int32))
    assert "disk-cache" in f.lower_module(params, np.array([12], np.int32)).compiled.timings


def test_host_callbacks_are_not_stored(cache_dir, capsys):
    @ms.jit
    def f(x):
        print("value", x)
        return x + 1.0

    np.testing.assert_array_equal(f(np.zeros(3, np.float32)), 1.0)
    assert "value" in capsys.readouterr().out
    assert metas(cache_dir) == []


def test_truncated_library_is_recompiled_with_a_warning(cache_dir):
    compiler.compile_mlir(add_mlir())
    (lib,) = [n for n in entries(cache_dir) if n.endswith(".so")]
    p = cache_dir / f"msmlir-v{compile_cache.FORMAT}" / lib
    data = p.read_bytes()
    p.write_bytes(data[:len(data) // 2])
    new_process()
    with pytest.warns(compile_cache.CompileCacheWarning, match="unusable.*hash"):
        b = compiler.compile_mlir(add_mlir())
    assert "jit" in b.timings
    run_f(b)
    new_process()                   # stored again, whole
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compiler.compile_mlir(add_mlir())
    assert "disk-cache" in c.timings
    run_f(c)


def test_corrupted_metadata_is_recompiled_with_a_warning(cache_dir):
    compiler.compile_mlir(add_mlir())
    (meta,) = metas(cache_dir)
    (cache_dir / f"msmlir-v{compile_cache.FORMAT}" / meta).write_bytes(b"{not json")
    new_process()
    with pytest.warns(compile_cache.CompileCacheWarning, match="unusable"):
        b = compiler.compile_mlir(add_mlir())
    run_f(b)


def test_library_that_is_not_a_clean_shared_object_is_refused(cache_dir):
    """Even with a matching hash (the metadata rewritten too), a library that
    needs outside symbols or is not ELF is not loaded."""
    compiler.compile_mlir(add_mlir())
    edir = cache_dir / f"msmlir-v{compile_cache.FORMAT}"
    (meta,) = metas(cache_dir)
    m = json.loads((edir / meta).read_text())
    bad = b"\x7fELF\x02\x01\x01" + b"\0" * 100
    (edir / m["library"]).write_bytes(bad)
    import hashlib
    m["sha256"] = hashlib.sha256(bad).hexdigest()
    (edir / meta).write_text(json.dumps(m))
    new_process()
    with pytest.warns(compile_cache.CompileCacheWarning, match="unusable"):
        b = compiler.compile_mlir(add_mlir())
    run_f(b)


def test_check_library_refuses_undefined_symbols_and_initializers(tmp_path):
    src = tmp_path / "x.c"
    src.write_text("#include <stdlib.h>\nvoid *f(void) { return malloc(4); }\n")
    so = tmp_path / "x.so"
    subprocess.run([shared_object._compiler(), "-shared", "-fPIC", "-o", str(so), str(src)],
                   check=True)
    with pytest.raises(shared_object.LinkError):
        shared_object.check_library(so.read_bytes())
    with pytest.raises(shared_object.LinkError):
        shared_object.check_library(so.read_bytes()[:200])


# --- the directory ------------------------------------------------------------------------

def test_set_context_enables_the_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("MSMLIR_COMPILE_CACHE", raising=False)
    compiler.clear_memory_cache()
    d = tmp_path / "ctx-cache"
    try:
        ms.set_context(enable_compile_cache=True, compile_cache_path=str(d))
        assert compile_cache.active() is not None
        compiler.compile_mlir(add_mlir(9))
        assert len(metas(d)) == 1
        ms.set_context(enable_compile_cache=False)
        assert compile_cache.active() is None
    finally:
        context._reset_context()
        compiler.clear_memory_cache()
    assert compile_cache.active() is None


def test_read_only_directory_is_refused(tmp_path):
    d = tmp_path / "ro"
    d.mkdir(mode=0o500)
    try:
        with pytest.raises(compile_cache.CompileCacheError, match="read-only"):
            ms.set_context(enable_compile_cache=True, compile_cache_path=str(d))
    finally:
        d.chmod(0o700)
        context._reset_context()
    assert not ms.get_context("enable_compile_cache")


def test_group_writable_directory_is_refused(tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o770)
    with pytest.raises(compile_cache.CompileCacheError, match="writable by group or others"):
        ms.set_context(enable_compile_cache=True, compile_cache_path=str(d))
    context._reset_context()


def test_symlinked_directory_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(compile_cache.CompileCacheError, match="symbolic links"):
        ms.set_context(enable_compile_cache=True, compile_cache_path=str(link))
    context._reset_context()


def test_foreign_owned_directory_is_refused(tmp_path):
    if os.getuid() == 0:
        d = tmp_path / "foreign"
        d.mkdir(mode=0o700)
        os.chown(d, 4242, -1)
        path = str(d)
    else:
        path = "/"                     # root's
    with pytest.raises(compile_cache.CompileCacheError, match="is owned by uid"):
        ms.set_context(enable_compile_cache=True, compile_cache_path=path)
    context._reset_context()


def test_refused_environment_directory_warns_and_compiles(tmp_path, monkeypatch):
    d = tmp_path / "envshared"
    d.mkdir()
    d.chmod(0o777)
    monkeypatch.setenv("MSMLIR_COMPILE_CACHE", str(d))
    compile_cache._WARNED.clear()
    compiler.clear_memory_cache()
    with pytest.warns(compile_cache.CompileCacheWarning, match="writable by group or others"):
        cm = compiler.compile_mlir(add_mlir(10))
    run_f(cm, 10)
    assert os.listdir(d) == []
    compiler.clear_memory_cache()


def test_eviction_at_the_size_bound_is_least_recently_used(cache_dir, monkeypatch):
    edir = cache_dir / f"msmlir-v{compile_cache.FORMAT}"
    compiler.compile_mlir(add_mlir(4, 2.0))
    size = sum(p.stat().st_size for p in edir.iterdir())
    monkeypatch.setenv("MSMLIR_COMPILE_CACHE_MAX_MB", str(2.6 * size / (1 << 20)))
    (a,) = metas(cache_dir)
    compiler.compile_mlir(add_mlir(4, 3.0))
    (b,) = set(metas(cache_dir)) - {a}
    now = time.time()
    os.utime(edir / a, (now - 100, now - 100))
    os.utime(edir / b, (now - 50, now - 50))
    new_process()
    assert "disk-cache" in compiler.compile_mlir(add_mlir(4, 2.0)).timings   # a: used now
    compiler.compile_mlir(add_mlir(4, 5.0))                                   # c: b evicted
    left = metas(cache_dir)
    assert a in left and b not in left and len(left) == 2
    libs = [n for n in entries(cache_dir) if n.endswith(".so")]
    assert len(libs) == 2
    assert sum(p.stat().st_size for p in edir.iterdir()) <= 2.6 * size


# --- across processes ---------------------------------------------------------------------

SCRIPT = """
import sys
import numpy as np
from msmlir.compiler import compile_mlir
cm = compile_mlir(sys.argv[1])
x = np.arange(4, dtype=np.float32)
assert (cm.call("f", x)[0] == x * 2).all()
print("disk-cache" in cm.timings, "disk-store" in cm.timings)
"""


def _python(args, cache):
    env = dict(os.environ, MSMLIR_COMPILE_CACHE=str(cache))
    env.pop("MSMLIR_COMPILE_CACHE_MAX_MB", None)
    return subprocess.Popen([sys.executable, "-W", "error::RuntimeWarning", "-c", SCRIPT, *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_concurrent_writers_then_a_new_process_loads(tmp_path):
    cache = tmp_path / "shared-cache"
    text = add_mlir(4, 2.0)
    procs = [_python([text], cache) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        # each stored it, or loaded what the other had stored already
        assert out.split() in (["False", "True"], ["True", "False"]), (out, err)
    assert "True" in outs[0][0].split()[1:] + outs[1][0].split()[1:]
    assert len(metas(cache)) == 1
    p = _python([text], cache)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert out.split() == ["True", "False"], (out, err)


def test_jit_in_a_new_process_hits_the_disk(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import msmlir as ms
        from msmlir import nn
        ms.set_context(mode=ms.GRAPH_MODE)
        net = nn.Dense(3, 2)
        net.weight.set_data(ms.Tensor(np.ones((2, 3), np.float32)))
        net.bias.set_data(ms.Tensor(np.zeros(2, np.float32)))
        print(net(ms.Tensor(np.ones((4, 3), np.float32))).asnumpy().sum())
    """))
    env = dict(os.environ, MSMLIR_COMPILE_CACHE=str(tmp_path / "c"), MSMLIR_TIMING="1")
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
        assert float(r.stdout) == 24.0
    assert "jit" in runs[0].stderr and "disk-store" in runs[0].stderr
    assert "disk-cache" in runs[1].stderr and " jit " not in runs[1].stderr


# --- compile-time breakdown -----------------------------------------------------------------

def test_timing_line_per_compiled_graph(monkeypatch, capsys):
    monkeypatch.setenv("MSMLIR_TIMING", "1")
    compiler.clear_memory_cache()

    @ms.jit
    def g(x):
        return ms.ops.relu(x) * 2.0

    g(np.ones((3, 3), np.float32))
    err = capsys.readouterr().err
    line = [ln for ln in err.splitlines() if ln.startswith("msmlir timing g:")]
    assert len(line) == 1, err
    for stage in ("frontend", "prepare", "kernels", "linalg", "bufferized", "llvm", "jit"):
        assert f" {stage} " in line[0], line
    g(np.ones((3, 3), np.float32))              # no compile, no line
    assert "msmlir timing" not in capsys.readouterr().err
    compiler.clear_memory_cache()
