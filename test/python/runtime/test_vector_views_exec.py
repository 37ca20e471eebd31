"""Run-time checks of two lowering fixes, against numpy:

- msmlir-cpu-lower-vectors on out-of-bounds transfers of a higher-rank memref
  (docs/known-issues.md §19: the pass used to hang on them; now split through
  a rank-reducing subview, or in a pattern round before transfer_to_scf);
- msmlir-cpu-cast-collapses (loads through a collapse_shape keep affine
  indices): the same values as the folded (delinearized) form.

Each module is lowered to LLVM with the CPU pipeline's own passes and run
with MLIR's ExecutionEngine (the MLIR C runner utils for memrefCopy)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import get_ranked_memref_descriptor

from msmlir._native import RUNTIME_LIB_DIR
from msmlir.passes.registry import run_pipeline

TO_LLVM = ("convert-linalg-to-loops,canonicalize,cse,convert-vector-to-scf{full-unroll=true},"
           "lower-affine,fold-memref-alias-ops,expand-strided-metadata,lower-affine,"
           "convert-vector-to-llvm,finalize-memref-to-llvm,convert-scf-to-cf,"
           "convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,convert-to-llvm,"
           "reconcile-unrealized-casts")

OOB = """
func.func @read_1d(%m: memref<5x7xf32>, %ia: memref<2xindex>, %o: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = memref.load %ia[%c0] : memref<2xindex>
  %j = memref.load %ia[%c1] : memref<2xindex>
  %p = arith.constant -1.0 : f32
  %v = vector.transfer_read %m[%i, %j], %p {in_bounds = [false]} : memref<5x7xf32>, vector<8xf32>
  vector.transfer_write %v, %o[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
  return
}
func.func @write_1d(%m: memref<5x7xf32>, %ia: memref<2xindex>, %src: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = memref.load %ia[%c0] : memref<2xindex>
  %j = memref.load %ia[%c1] : memref<2xindex>
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%c0], %p {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
  vector.transfer_write %v, %m[%i, %j] {in_bounds = [false]} : vector<8xf32>, memref<5x7xf32>
  return
}
func.func @read_2d(%m: memref<5x7xf32>, %ia: memref<2xindex>, %o: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = memref.load %ia[%c0] : memref<2xindex>
  %j = memref.load %ia[%c1] : memref<2xindex>
  %p = arith.constant -1.0 : f32
  %v = vector.transfer_read %m[%i, %j], %p {in_bounds = [true, false]} : memref<5x7xf32>, vector<2x8xf32>
  vector.transfer_write %v, %o[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf32>, memref<2x8xf32>
  return
}
"""

COLLAPSE = """
func.func @rows(%col: memref<6x5x8x10xf32>, %o: memref<30x80xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c30 = arith.constant 30 : index
  %c80 = arith.constant 80 : index
  %v = memref.collapse_shape %col [[0, 1], [2, 3]] : memref<6x5x8x10xf32> into memref<30x80xf32>
  scf.for %i = %c0 to %c30 step %c1 {
    scf.for %k = %c0 to %c80 step %c1 {
      %x = memref.load %v[%i, %k] : memref<30x80xf32>
      memref.store %x, %o[%i, %k] : memref<30x80xf32>
    }
  }
  return
}
"""


def _engine(text: str, passes: str) -> tuple[ExecutionEngine, ir.Context]:
    ctx = ir.Context()
    with ctx:
        m = ir.Module.parse(text)
        for op in m.body.operations:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        run_pipeline(m, f"builtin.module({passes})")
        assert m.operation.verify()
        lib = str(RUNTIME_LIB_DIR / "libmlir_c_runner_utils.so")
        return ExecutionEngine(m, opt_level=2, shared_libs=[lib]), ctx


def _call(engine, name, *arrays):
    engine.invoke(name, *[ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a)))
                          for a in arrays])


@pytest.fixture(scope="module")
def oob():
    return _engine(OOB, f"msmlir-cpu-lower-vectors,{TO_LLVM}")


def _m():
    return np.arange(35, dtype=np.float32).reshape(5, 7) + 1


@pytest.mark.parametrize("j", [0, 3, 6, 7])
def test_read_1d_out_of_bounds(oob, j):
    m, out = _m(), np.zeros(8, np.float32)
    _call(oob[0], "read_1d", m, np.array([2, j], np.intp), out)
    want = np.full(8, -1.0, np.float32)
    want[:max(0, 7 - j)] = m[2, j:]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("j", [0, 2, 7])
def test_write_1d_out_of_bounds(oob, j):
    m, src = _m(), np.arange(100, 108, dtype=np.float32)
    want = m.copy()
    want[3, j:] = src[:max(0, 7 - j)]
    _call(oob[0], "write_1d", m, np.array([3, j], np.intp), src)
    np.testing.assert_array_equal(m, want)


@pytest.mark.parametrize("i,j", [(0, 0), (3, 4), (1, 7)])
def test_read_2d_partial(oob, i, j):
    m, out = _m(), np.zeros((2, 8), np.float32)
    _call(oob[0], "read_2d", m, np.array([i, j], np.intp), out)
    want = np.full((2, 8), -1.0, np.float32)
    want[:, :max(0, 7 - j)] = m[i:i + 2, j:]
    np.testing.assert_array_equal(out, want)


def test_cast_collapse_reads_the_same_elements():
    col = np.random.default_rng(0).standard_normal((6, 5, 8, 10)).astype(np.float32)
    outs = []
    for passes in (TO_LLVM, f"msmlir-cpu-cast-collapses,{TO_LLVM}"):
        eng, _ = _engine(COLLAPSE, passes)
        out = np.zeros((30, 80), np.float32)
        _call(eng, "rows", col, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], col.reshape(30, 80))
    np.testing.assert_array_equal(outs[1], col.reshape(30, 80))
