"""Parallel LLVM compilation (msmlir/runtime/parallel_compile.py, used by
msmlir/compiler.py): a lowered module's functions split into groups, each
translated and compiled in process on worker threads (llvm_codegen.py),
linked into one shared library. Its results must be bit-identical to the
in-process ExecutionEngine's (the reference path).
"""
import ctypes
import re
import warnings

import numpy as np
import pytest
from mlir import ir

from msmlir import compiler
from msmlir.runtime import llvm_codegen
from msmlir.runtime import parallel_compile as pc
from msmlir.runtime import shared_object

pytestmark = pytest.mark.skipif(not shared_object.supported(),
                                reason="no linker or no LLVM C API: no parallel path")

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
    """jobs=0: the reference, the ExecutionEngine (a module below MIN_OPS)."""
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", str(max(jobs, 1)))
    monkeypatch.delenv("MSMLIR_COMPILE_CACHE", raising=False)
    monkeypatch.setattr(pc, "MIN_OPS", 10 ** 9 if jobs == 0 else 0)
    return compiler.compile_mlir(MULTI)


@pytest.fixture(scope="module")
def reference():
    mp = pytest.MonkeyPatch()
    try:
        cm = _compile(mp, 0)
        return cm, cm.call("f", *_inputs())
    finally:
        mp.undo()


def test_parallel_is_bit_identical_to_the_jit(monkeypatch, reference):
    ref_cm, ref = reference
    assert ref_cm.engine is not None and "jit" in ref_cm.timings
    cm = _compile(monkeypatch, 2)
    assert cm.engine is None and cm.library is not None, "the parallel path was not taken"
    assert cm.parallel_groups > 2 and "llvm-parallel" in cm.timings
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
        monkeypatch.setattr(pc, "GROUPS_PER_JOB", 1)
        groups, why = pc.plan(m, 2)
        assert why == "" and sorted(map(sorted, groups)) == [["big"], ["mid", "small", "small2"]]
        # GROUPS_PER_JOB groups per worker: the workers balance by taking the next one
        monkeypatch.setattr(pc, "GROUPS_PER_JOB", 2)
        groups, _ = pc.plan(m, 2)
        assert groups[0] == ["big"] and sorted(sum(groups, [])) == ["big", "mid", "small", "small2"]
        assert len(groups) == 4
        # one job: still the parallel path (no start-up to pay for)
        assert len(pc.plan(m, 1)[0]) == 2
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
        monkeypatch.setattr(llvm_codegen, "available", lambda: "no libLLVM")
        assert pc.plan(m, 2) == ([], "no in-process LLVM code generation (no libLLVM)")


def test_jobs_from_the_environment(monkeypatch):
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", "3")
    assert pc.jobs() == 3
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", "nonsense")
    assert pc.jobs() == 1
    monkeypatch.delenv("MSMLIR_COMPILE_JOBS")
    assert 1 <= pc.jobs() <= pc.MAX_JOBS
    # without a measured window: the CPUs the load average leaves idle
    monkeypatch.setattr(pc, "_WINDOW", {})
    monkeypatch.setattr(pc.os, "sched_getaffinity", lambda pid: set(range(4)))
    monkeypatch.setattr(pc.os, "getloadavg", lambda: (0.2, 0.0, 0.0))
    assert pc.jobs() == 4
    monkeypatch.setattr(pc.os, "getloadavg", lambda: (2.7, 0.0, 0.0))
    assert pc.jobs() == 1
    monkeypatch.setattr(pc.os, "getloadavg", lambda: (9.0, 0.0, 0.0))
    assert pc.jobs() == 1


def test_jobs_from_the_idle_cpus_since_the_compile_started(monkeypatch):
    # (idle, total) CPU seconds of the machine, and the clock: 2 CPUs
    now = {"cpu": (100.0, 400.0), "t": 10.0}
    monkeypatch.setattr(pc, "_cpu_times", lambda: now["cpu"])
    monkeypatch.setattr(pc.time, "monotonic", lambda: now["t"])
    monkeypatch.setattr(pc.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(pc.os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # this tree's past
    monkeypatch.delenv("MSMLIR_COMPILE_JOBS", raising=False)
    pc.mark()
    now["t"] += 0.05                              # too short a window: the load average
    assert pc._idle_cpus() is None and pc.jobs() == 1
    # 1 s in which this compile kept one CPU busy and the other idled: 2 jobs
    now.update(cpu=(101.0, 402.0), t=11.0)
    assert pc._idle_cpus() == pytest.approx(1.0) and pc.jobs() == 2
    # another process took the other CPU: 1 job
    now.update(cpu=(100.05, 402.0))
    assert pc.jobs() == 1
    # no /proc/stat: the load average
    monkeypatch.setattr(pc, "_cpu_times", lambda: None)
    pc.mark()
    assert pc._idle_cpus() is None and pc.jobs() == 1


def test_packed_wrapper_matches_the_engine_convention():
    text = pc._packed_wrapper("g", "!llvm.func<f32 (ptr, i64, struct<(ptr, i64)>)>")
    assert "llvm.func @_mlir_g(%args: !llvm.ptr)" in text
    assert "llvm.load %a2 : !llvm.ptr -> !llvm.struct<(ptr, i64)>" in text
    assert "%r = llvm.call @g(%v0, %v1, %v2)" in text
    assert "llvm.getelementptr %args[3]" in text and "llvm.store %r, %ar : f32" in text
    with pytest.raises(pc.ParallelCompileError, match="variadic"):
        pc._packed_wrapper("v", "!llvm.func<void (ptr, ...)>")


def test_a_failing_pipeline_falls_back_to_the_jit(monkeypatch, reference):
    _, ref = reference
    monkeypatch.setattr(pc, "VECTOR_PASSES", "no-such-pass")
    compiler._STORE_WARNED.discard(pc.ParallelCompileError)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cm = _compile(monkeypatch, 2)
    assert cm.engine is not None and "jit" in cm.timings
    msgs = [str(x.message) for x in w]
    assert any("parallel LLVM compilation failed" in m and "no-such-pass" in m for m in msgs), msgs
    for got, want in zip(cm.call("f", *_inputs()), ref):
        assert np.array_equal(got, want)


def test_any_worker_error_falls_back_to_the_jit(monkeypatch, reference):
    # an unexpected error on a worker thread is reported by the calling
    # thread (no missing object reaches the linker)
    _, ref = reference

    def boom(self, m, passes):
        m.dispose()
        raise MemoryError("boom")
    monkeypatch.setattr(llvm_codegen.Target, "emit", boom)
    compiler._STORE_WARNED.discard(pc.ParallelCompileError)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cm = _compile(monkeypatch, 2)
    assert cm.engine is not None and "jit" in cm.timings
    assert any("MemoryError: boom" in str(x.message) for x in w), [str(x.message) for x in w]
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


# One function of each kind: vector code, scalar loops, straight-line code.
KINDS = """
  llvm.func @vec(%p: !llvm.ptr) {
    %v = llvm.load %p : !llvm.ptr -> vector<8xf32>
    %w = llvm.fadd %v, %v : vector<8xf32>
    llvm.store %w, %p : vector<8xf32>, !llvm.ptr
    llvm.return }
  llvm.func @loop(%p: !llvm.ptr, %n: i64) {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    llvm.br ^head(%c0 : i64)
  ^head(%i: i64):
    %more = llvm.icmp "slt" %i, %n : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %q = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %q : !llvm.ptr -> f32
    %y = llvm.fadd %x, %x : f32
    llvm.store %y, %q : f32, !llvm.ptr
    %j = llvm.add %i, %c1 : i64
    llvm.br ^head(%j : i64)
  ^done:
    llvm.return }
  llvm.func @vecloop(%p: !llvm.ptr, %n: i64) {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c8 = llvm.mlir.constant(8 : i64) : i64
    llvm.br ^head(%c0 : i64)
  ^head(%i: i64):
    %more = llvm.icmp "slt" %i, %n : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %q = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %q : !llvm.ptr -> vector<8xf32>
    %y = llvm.fadd %x, %x : vector<8xf32>
    llvm.store %y, %q : vector<8xf32>, !llvm.ptr
    %j = llvm.add %i, %c8 : i64
    llvm.br ^head(%j : i64)
  ^done:
    llvm.return }
  llvm.func @host(%p: !llvm.ptr, %n: i64) {
    llvm.call @vec(%p) : (!llvm.ptr) -> ()
    llvm.call @loop(%p, %n) : (!llvm.ptr, i64) -> ()
    llvm.return }
"""


def test_scalar_loop_functions_are_grouped_apart(monkeypatch):
    with compiler.context():
        m = ir.Module.parse(KINDS)
        funcs = {name: op for name, op, _ in pc._functions(m)}
        kinds = [pc.scalar_loops(funcs[n]) for n in ("vec", "loop", "vecloop", "host")]
        assert kinds == [False, True, False, False]
        monkeypatch.setattr(pc, "MIN_OPS", 0)
        monkeypatch.setattr(pc, "MIN_SCALAR_OPS", 0)
        monkeypatch.setattr(pc, "GROUPS_PER_JOB", 1)
        groups, why = pc.plan(m, 2)
        assert why == "" and ["loop"] in groups and len(groups) == 3
        assert [isinstance(g, pc.ScalarGroup) for g in groups].count(True) == 1
        assert isinstance(groups[groups.index(["loop"])], pc.ScalarGroup)
        assert sorted(sum([g for g in groups if g != ["loop"]], [])) == ["host", "vec", "vecloop"]
        # a few small scalar loops are not worth default<O3>: balanced with the others
        monkeypatch.setattr(pc, "MIN_SCALAR_OPS", 10 ** 6)
        groups, _ = pc.plan(m, 2)
        assert len(groups) == 2 and sorted(sum(groups, [])) == ["host", "loop", "vec", "vecloop"]
    assert pc.pipeline(True, 3) == ("default<O3>", 3)
    assert pc.pipeline(False, 3) == (pc.VECTOR_PASSES, 3)
    assert pc.pipeline(False, 0) == ("default<O0>", 0)


def _record_pipelines(monkeypatch) -> list:
    """Records (pass pipeline, code generator level) of each module the
    workers compile (not the import table's assembly: no passes, level 0)."""
    seen = []
    real = llvm_codegen.Target.emit

    def emit(self, m, passes):
        if (passes, self.level) != ("", 0):
            seen.append((passes, self.level))
        return real(self, m, passes)
    monkeypatch.setattr(llvm_codegen.Target, "emit", emit)
    return seen


def test_vector_code_gets_O1_simplification_and_O3_codegen(monkeypatch, reference):
    _, ref = reference
    seen = _record_pipelines(monkeypatch)
    cm = _compile(monkeypatch, 2)
    assert cm.parallel_groups == len(seen) > 2
    assert set(seen) == {(pc.VECTOR_PASSES, 3)}
    for got, want in zip(cm.call("f", *_inputs()), ref):
        assert np.array_equal(got, want)


def test_scalar_loops_keep_the_requested_opt_level(monkeypatch, reference):
    # codegen=false: every kernel is scalar loops (the plain path), which
    # LLVM's loop vectorizer speeds up: their own groups at default<O3>
    from msmlir.passes.registry import option_defaults
    _, ref = reference
    monkeypatch.setattr(pc, "MIN_SCALAR_OPS", 0)
    seen = _record_pipelines(monkeypatch)
    with option_defaults("msmlir-cpu-pipeline", {"codegen": False}):
        cm = _compile(monkeypatch, 2)
    assert cm.library is not None and ("default<O3>", 3) in seen
    for got, want in zip(cm.call("f", *_inputs()), ref):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_one_job_compiles_on_one_worker(monkeypatch, reference):
    _, ref = reference
    threads = set()
    real = llvm_codegen.Target.emit

    def emit(self, m, passes):
        import threading
        if (passes, self.level) != ("", 0):        # (the import table: the calling thread)
            threads.add(threading.current_thread().name)
        return real(self, m, passes)
    monkeypatch.setattr(llvm_codegen.Target, "emit", emit)
    cm = _compile(monkeypatch, 1)
    assert cm.engine is None and "llvm-parallel" in cm.timings
    assert cm.parallel_groups == pc.GROUPS_PER_JOB and threads == {"msmlir-llvm-0"}
    for got, want in zip(cm.call("f", *_inputs()), ref):
        assert np.array_equal(got, want)


def test_many_workers_give_the_same_library(monkeypatch, reference):
    # 8 workers on one group each: every object is compiled concurrently with
    # others (own LLVMContext and target machine per thread), the results equal
    _, ref = reference
    monkeypatch.setattr(pc, "GROUPS_PER_JOB", 1)
    cm = _compile(monkeypatch, 8)
    assert cm.parallel_groups >= 4
    for got, want in zip(cm.call("f", *_inputs()), ref):
        assert np.array_equal(got, want)


def test_ops_in_openmp_regions_count(monkeypatch):
    # threads > 1: a kernel's loops sit in omp.parallel regions, which the
    # blocks' lengths do not see; plan(nested=True) counts them (balance, MIN_OPS)
    with compiler.context():
        m = ir.Module.parse("""
          llvm.func @par(%p: !llvm.ptr) {
            omp.parallel {
              %x = llvm.load %p : !llvm.ptr -> f32
              %y = llvm.fadd %x, %x : f32
              %z = llvm.fadd %y, %y : f32
              llvm.store %z, %p : f32, !llvm.ptr
              omp.terminator
            }
            llvm.return }
          llvm.func @flat(%p: !llvm.ptr) {
            %x = llvm.load %p : !llvm.ptr -> f32
            %y = llvm.fadd %x, %x : f32
            llvm.store %y, %p : f32, !llvm.ptr
            llvm.return }""")
        assert {n: c for n, _, c in pc._functions(m)} == {"par": 2, "flat": 4}
        assert {n: c for n, _, c in pc._functions(m, nested=True)} == {"par": 7, "flat": 4}
        monkeypatch.setattr(pc, "MIN_OPS", 10)
        monkeypatch.setattr(pc, "GROUPS_PER_JOB", 1)
        assert pc.plan(m, 2) == ([], "small module (6 ops)")
        groups, why = pc.plan(m, 2, nested=True)
        assert why == "" and sorted(map(sorted, groups)) == [["flat"], ["par"]]


# A loop of constant trip count 4 that reloads a loop-invariant value each
# iteration: what B5/B6's step time needs of VECTOR_PASSES (their kernels'
# small constant loops fully unrolled, invariant loads hoisted).
_SMALL_LOOP = """
llvm.func @small_loop(%p: !llvm.ptr {llvm.noalias}, %q: !llvm.ptr {llvm.noalias}) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  %c4 = llvm.mlir.constant(4 : i64) : i64
  llvm.br ^head(%c0 : i64)
^head(%i: i64):
  %more = llvm.icmp "slt" %i, %c4 : i64
  llvm.cond_br %more, ^body, ^exit
^body:
  %s = llvm.load %q : !llvm.ptr -> f32
  %a = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %x = llvm.load %a : !llvm.ptr -> f32
  %y = llvm.fmul %x, %s : f32
  llvm.store %y, %a : f32, !llvm.ptr
  %n = llvm.add %i, %c1 : i64
  llvm.br ^head(%n : i64)
^exit:
  llvm.return
}
"""


def _ir_after(passes: str, text: str) -> str:
    """The LLVM IR of LLVM-dialect `text` after the pass pipeline `passes`."""
    api = llvm_codegen._api()
    lib = ctypes.CDLL(str(llvm_codegen.MLIR_LIB_DIR / "libMLIRPythonCAPI.so"),
                      mode=ctypes.RTLD_LOCAL)
    to_string = lib.LLVMPrintModuleToString
    to_string.restype, to_string.argtypes = ctypes.c_void_p, [ctypes.c_void_p]
    with compiler.context():
        m = llvm_codegen.translate(ir.Module.parse(text))
    try:
        if passes:
            target = llvm_codegen.Target(3)
            options = api.LLVMCreatePassBuilderOptions()
            assert not api.LLVMRunPasses(m.module, passes.encode(), target.tm, options)
            api.LLVMDisposePassBuilderOptions(options)
            target.close()
        return api.message(to_string(m.module)).decode()
    finally:
        m.dispose()


def test_vector_passes_unroll_small_constant_loops_and_hoist_invariant_loads():
    unoptimized = _ir_after("", _SMALL_LOOP)
    def loads_of_q(text):
        return len(re.findall(r"load float, ptr %1\b", text))
    assert "phi" in unoptimized and loads_of_q(unoptimized) == 1    # (in the loop body)
    out = _ir_after(pc.VECTOR_PASSES, _SMALL_LOOP)
    assert "phi" not in out and "br i1" not in out                 # fully unrolled
    assert out.count("fmul float") == 4
    assert loads_of_q(out) == 1                                     # loaded once, not 4 times
    # and the pipeline is cheaper than default<O1> by what it leaves out
    for dropped in ("loop-load-elim", "loop-unroll<", "indvars", "cgscc(", "vector-combine"):
        assert dropped not in pc.VECTOR_PASSES
