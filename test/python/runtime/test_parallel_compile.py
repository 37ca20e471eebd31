"""Parallel LLVM compilation (msmlir/runtime/parallel_compile.py, used by
msmlir/compiler.py): a lowered module's functions split into groups, each
compiled by mlir-translate | opt | llc in its own subprocess, linked into one
shared library. Its results must be bit-identical to the in-process
ExecutionEngine's (the reference path, MSMLIR_COMPILE_JOBS=1).
"""
import warnings

import numpy as np
import pytest
from mlir import ir

from msmlir import compiler
from msmlir.runtime import parallel_compile as pc
from msmlir.runtime import shared_object

pytestmark = pytest.mark.skipif(not shared_object.supported() or pc.tools() is None,
                                reason="no C compiler or no LLVM tools: no parallel path")

# Several kernels (matmul + bias + relu, softmax, layernorm, a reduction): one
# function each with inline-kernels=false (the default).
MULTI = """
func.func @f(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>, %b: tensor<80xf32>,
             %g: tensor<80xf32>, %be: tensor<80xf32>) -> (tensor<64x80xf32>, tensor<64x80xf32>, tensor<80xf32>) {
  %m = mindir.matmul %x, %w : (tensor<64x96xf32>, tensor<96x80xf32>) -> tensor<64x80xf32>
  %a = mindir.add %m, %b : (tensor<64x80xf32>, tensor<80xf32>) -> tensor<64x80xf32>
  %r = mindir.relu %a : tensor<64x80xf32>
  %s = "mindir.softmax"(%r) {axis = -1 : i64} : (tensor<64x80xf32>) -> tensor<64x80xf32>
  %y, %mu, %rs = "mindir.layer_norm"(%a, %g, %be) {begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.0e-05 : f64} : (tensor<64x80xf32>, tensor<80xf32>, tensor<80xf32>) -> (tensor<64x80xf32>, tensor<64x1xf32>, tensor<64x1xf32>)
  %t = mindir.exp %y : tensor<64x80xf32>
  %u = mindir.reduce_sum %t {axes = array<i64: 0>, keep_dims = false} : (tensor<64x80xf32>) -> tensor<80xf32>
  return %s, %y, %u : tensor<64x80xf32>, tensor<64x80xf32>, tensor<80xf32>
}
"""


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32)
            for s in [(64, 96), (96, 80), (80,), (80,), (80,)]]


def _compile(monkeypatch, jobs):
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", str(jobs))
    monkeypatch.delenv("MSMLIR_COMPILE_CACHE", raising=False)
    monkeypatch.setattr(pc, "MIN_OPS", 0)
    return compiler.compile_mlir(MULTI)


@pytest.fixture(scope="module")
def reference():
    mp = pytest.MonkeyPatch()
    try:
        cm = _compile(mp, 1)
        return cm, cm.call("f", *_inputs())
    finally:
        mp.undo()


def test_parallel_is_bit_identical_to_the_jit(monkeypatch, reference):
    ref_cm, ref = reference
    assert ref_cm.engine is not None and "jit" in ref_cm.timings
    cm = _compile(monkeypatch, 2)
    assert cm.engine is None and cm.library is not None, "the parallel path was not taken"
    assert cm.parallel_groups == 2 and "llvm-parallel" in cm.timings
    out = cm.call("f", *_inputs())
    assert len(out) == len(ref) == 3
    for got, want in zip(out, ref):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want), np.abs(got - want).max()
    # and right: softmax rows sum to 1
    np.testing.assert_allclose(out[0].sum(-1), 1.0, rtol=1e-5)


def test_plan_balances_and_says_why_not(monkeypatch):
    with compiler.context():
        m = ir.Module.parse("""
          llvm.func @big() { %0 = llvm.mlir.constant(1 : i64) : i64
            %1 = llvm.add %0, %0 : i64
            %2 = llvm.add %1, %1 : i64
            %3 = llvm.add %2, %2 : i64
            llvm.return }
          llvm.func @mid() { %0 = llvm.mlir.constant(1 : i64) : i64
            %1 = llvm.add %0, %0 : i64
            llvm.return }
          llvm.func @small() { llvm.return }
          llvm.func @small2() { llvm.return }
          llvm.func @decl()
        """)
        monkeypatch.setattr(pc, "MIN_OPS", 0)
        groups, why = pc.plan(m, 2)
        assert why == "" and sorted(map(sorted, groups)) == [["big"], ["mid", "small", "small2"]]
        assert pc.plan(m, 1) == ([], "one job")
        monkeypatch.setattr(pc, "MIN_OPS", 100)
        assert pc.plan(m, 2) == ([], "small module (10 ops)")
        monkeypatch.setattr(pc, "MIN_OPS", 0)
        one = ir.Module.parse("llvm.func @only() { llvm.return }")
        assert pc.plan(one, 2) == ([], "one function")
        glob = ir.Module.parse("""
          llvm.mlir.global internal @buf(0.0 : f32) : f32
          llvm.func @a() { llvm.return }
          llvm.func @b() { llvm.return }""")
        assert pc.plan(glob, 2) == ([], "mutable globals")


def test_jobs_from_the_environment(monkeypatch):
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", "3")
    assert pc.jobs() == 3
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", "nonsense")
    assert pc.jobs() == 1
    monkeypatch.delenv("MSMLIR_COMPILE_JOBS")
    assert 1 <= pc.jobs() <= pc.MAX_JOBS
    # the default counts the CPUs the load average leaves idle
    monkeypatch.setattr(pc.os, "sched_getaffinity", lambda pid: set(range(4)))
    monkeypatch.setattr(pc.os, "getloadavg", lambda: (0.2, 0.0, 0.0))
    assert pc.jobs() == 4
    monkeypatch.setattr(pc.os, "getloadavg", lambda: (2.7, 0.0, 0.0))
    assert pc.jobs() == 1
    monkeypatch.setattr(pc.os, "getloadavg", lambda: (9.0, 0.0, 0.0))
    assert pc.jobs() == 1


def test_packed_wrapper_matches_the_engine_convention():
    text = pc._packed_wrapper("g", "!llvm.func<f32 (ptr, i64, struct<(ptr, i64)>)>")
    assert "llvm.func @_mlir_g(%args: !llvm.ptr)" in text
    assert "llvm.load %a2 : !llvm.ptr -> !llvm.struct<(ptr, i64)>" in text
    assert "%r = llvm.call @g(%v0, %v1, %v2)" in text
    assert "llvm.getelementptr %args[3]" in text and "llvm.store %r, %ar : f32" in text
    with pytest.raises(pc.ParallelCompileError, match="variadic"):
        pc._packed_wrapper("v", "!llvm.func<void (ptr, ...)>")


def test_a_failing_tool_falls_back_to_the_jit(monkeypatch, reference):
    _, ref = reference
    monkeypatch.setattr(pc, "tools", lambda: ("/bin/false", "/bin/false", "/bin/false"))
    compiler._STORE_WARNED.discard(pc.ParallelCompileError)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cm = _compile(monkeypatch, 2)
    assert cm.engine is not None and "jit" in cm.timings
    assert any("parallel LLVM compilation failed" in str(x.message) for x in w), [str(x.message) for x in w]
    for got, want in zip(cm.call("f", *_inputs()), ref):
        assert np.array_equal(got, want)


def test_parallel_library_goes_to_the_disk_cache(monkeypatch, tmp_path, reference):
    _, ref = reference
    monkeypatch.setenv("MSMLIR_COMPILE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", "2")
    monkeypatch.setattr(pc, "MIN_OPS", 0)
    compiler.clear_memory_cache()
    try:
        first = compiler.compile_mlir(MULTI)
        assert "llvm-parallel" in first.timings and "disk-store" in first.timings
        assert first.library_file is None            # the build directory is gone
        compiler.clear_memory_cache()                # "a new process"
        second = compiler.compile_mlir(MULTI)
        assert "disk-cache" in second.timings
        for got, want in zip(second.call("f", *_inputs()), ref):
            assert np.array_equal(got, want)
    finally:
        compiler.clear_memory_cache()


def test_tools_past_the_time_limit_are_killed(monkeypatch, tmp_path, reference):
    # (the waits block; a timer kills the tools at TIMEOUT_S and the compile
    # falls back to the JIT with the reason)
    import time
    _, ref = reference
    slow = tmp_path / "slow"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setattr(pc, "TIMEOUT_S", 0.5)
    monkeypatch.setattr(pc, "tools", lambda: (str(slow),) * 3)
    compiler._STORE_WARNED.discard(pc.ParallelCompileError)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cm = _compile(monkeypatch, 2)
    assert time.perf_counter() - t0 < 25
    assert cm.engine is not None and "jit" in cm.timings
    assert any("TimeoutExpired" in str(x.message) for x in w), [str(x.message) for x in w]
    for got, want in zip(cm.call("f", *_inputs()), ref):
        assert np.array_equal(got, want)
