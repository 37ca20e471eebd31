"""Views and their sources are one buffer to the polyhedral model
(passes/poly/model.py: accesses through a view also as the element offset
into the root buffer). Each kernel below writes through one memref value and
reads the same cells through another (expand/collapse_shape, a strided
subview, reinterpret_cast, a transpose, two views of one buffer); before the
fix isl saw no dependence between the nests and emitted them in reverse
order (wrong results). Scheduled and unscheduled runs must agree bit for
bit, and a view with a dynamic offset of a buffer also accessed directly is
declined."""
from __future__ import annotations

import islpy as isl
import numpy as np
import pytest
from mlir import ir
from mlir.execution_engine import ExecutionEngine

import kernels as K
from msmlir.compiler import compile_mlir
from msmlir.passes.poly import dependences, model
from msmlir.passes.registry import option_defaults, run_pipeline

# kernels.TO_LLVM after the view ops' own lowering
_TO_LLVM = K.TO_LLVM.replace("builtin.module(", "builtin.module(expand-strided-metadata,", 1)

_EXPAND = "memref.expand_shape %A [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>"

CASES = {
    # write through the view, read through the source (flow dependence)
    "raw_expand": (f"""
func.func @k(%A: memref<64xf32>, %C: memref<64xf32>) {{
  %V = {_EXPAND}
  affine.for %i = 0 to 8 {{
    affine.for %j = 0 to 8 {{
      %a = affine.load %V[%i, %j] : memref<8x8xf32>
      %s = arith.addf %a, %a : f32
      affine.store %s, %V[%i, %j] : memref<8x8xf32>
    }}
  }}
  affine.for %k = 0 to 64 {{
    %a = affine.load %A[%k] : memref<64xf32>
    affine.store %a, %C[%k] : memref<64xf32>
  }}
  return
}}""", [(64,), (64,)]),
    # read through the source, then overwrite through the view (anti dependence)
    "war_expand": (f"""
func.func @k(%A: memref<64xf32>, %C: memref<64xf32>) {{
  %z = arith.constant 0.0 : f32
  affine.for %k = 0 to 64 {{
    %a = affine.load %A[%k] : memref<64xf32>
    affine.store %a, %C[%k] : memref<64xf32>
  }}
  %V = {_EXPAND}
  affine.for %i = 0 to 8 {{
    affine.for %j = 0 to 8 {{
      affine.store %z, %V[%i, %j] : memref<8x8xf32>
    }}
  }}
  return
}}""", [(64,), (64,)]),
    # a collapsed view written, the source read transposed
    "raw_collapse": ("""
func.func @k(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %V = memref.collapse_shape %A [[0, 1]] : memref<16x16xf32> into memref<256xf32>
  affine.for %k = 0 to 256 {
    %a = affine.load %V[%k] : memref<256xf32>
    %s = arith.mulf %a, %a : f32
    affine.store %s, %V[%k] : memref<256xf32>
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%j, %i] : memref<16x16xf32>
      affine.store %a, %C[%i, %j] : memref<16x16xf32>
    }
  }
  return
}""", [(16, 16), (16, 16)]),
    # a strided subview with an offset written, the whole source read transposed
    "raw_subview": ("""
func.func @k(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %one = arith.constant 1.0 : f32
  %V = memref.subview %A[2, 1] [8, 6] [1, 2] : memref<16x16xf32> to memref<8x6xf32, strided<[16, 2], offset: 33>>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 6 {
      %a = affine.load %V[%i, %j] : memref<8x6xf32, strided<[16, 2], offset: 33>>
      %s = arith.addf %a, %one : f32
      affine.store %s, %V[%i, %j] : memref<8x6xf32, strided<[16, 2], offset: 33>>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%j, %i] : memref<16x16xf32>
      affine.store %a, %C[%i, %j] : memref<16x16xf32>
    }
  }
  return
}""", [(16, 16), (16, 16)]),
    # two views of one buffer: a reinterpret_cast written, an expand_shape read transposed
    "two_views": (f"""
func.func @k(%A: memref<64xf32>, %C: memref<8x8xf32>) {{
  %one = arith.constant 1.0 : f32
  %R = memref.reinterpret_cast %A to offset: [0], sizes: [4, 16], strides: [16, 1] : memref<64xf32> to memref<4x16xf32>
  %V = {_EXPAND}
  affine.for %i = 0 to 4 {{
    affine.for %j = 0 to 16 {{
      %a = affine.load %R[%i, %j] : memref<4x16xf32>
      %s = arith.subf %a, %one : f32
      affine.store %s, %R[%i, %j] : memref<4x16xf32>
    }}
  }}
  affine.for %i = 0 to 8 {{
    affine.for %j = 0 to 8 {{
      %a = affine.load %V[%j, %i] : memref<8x8xf32>
      affine.store %a, %C[%i, %j] : memref<8x8xf32>
    }}
  }}
  return
}}""", [(64,), (8, 8)]),
    # the source written, a transposed view (strided layout map) read
    "raw_transpose": ("""
#tr = affine_map<(d0, d1) -> (d1 * 8 + d0)>
func.func @k(%A: memref<8x8xf32>, %C: memref<8x8xf32>) {
  %T = memref.transpose %A (i, j) -> (j, i) : memref<8x8xf32> to memref<8x8xf32, #tr>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %a = affine.load %A[%i, %j] : memref<8x8xf32>
      %s = arith.addf %a, %a : f32
      affine.store %s, %A[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %a = affine.load %T[%i, %j] : memref<8x8xf32, #tr>
      affine.store %a, %C[%i, %j] : memref<8x8xf32>
    }
  }
  return
}""", [(8, 8), (8, 8)]),
}


def _run(text, schedule, arrays):
    with ir.Context():
        m = ir.Module.parse(text)
        for op in m.body.operations:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        if schedule:
            run_pipeline(m, "builtin.module(mskernel-poly-schedule{tile-sizes=0},canonicalize)")
        out = str(m)
        run_pipeline(m, _TO_LLVM)
        K.call(ExecutionEngine(m, opt_level=2), arrays)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_scheduled_equals_unscheduled(name):
    text, shapes = CASES[name]
    rng = np.random.default_rng(1)
    arrays = [rng.integers(-4, 5, s).astype(np.float32) for s in shapes]
    ref = [a.copy() for a in arrays]
    got = [a.copy() for a in arrays]
    _run(text, False, ref)
    scheduled = _run(text, True, got)
    assert "mskernel.schedule" in scheduled, scheduled  # rescheduled, not left alone
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(g, r, err_msg=scheduled)


def _scop(text):
    ctx = ir.Context()
    with ctx:
        m = ir.Module.parse(text)
        return model.extract(m.body.operations[0].operation), ctx, m


def test_the_dependence_crosses_the_view():
    """The flow dependence from the store through the view to the load of
    the source, cell for cell: S0[i, j] -> S1[8i + j]."""
    scop, _ctx, _m = _scop(CASES["raw_expand"][0])
    deps = dependences.compute(scop)
    want = isl.UnionMap("{ S0[i, j] -> S1[k] : 0 <= i < 8 and 0 <= j < 8 and k = 8i + j }")
    assert deps.raw.is_equal(want), deps.raw
    # the accesses seen by the tiling / codegen are still per memref value
    assert len(scop.arrays) == 3 and "R" not in str(scop.reads())


def test_disjoint_subviews_stay_independent():
    text = """
func.func @k(%A: memref<64xf32>, %C: memref<32xf32>) {
  %one = arith.constant 1.0 : f32
  %L = memref.subview %A[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  %H = memref.subview %A[32] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: 32>>
  affine.for %i = 0 to 32 {
    affine.store %one, %L[%i] : memref<32xf32, strided<[1]>>
  }
  affine.for %i = 0 to 32 {
    %a = affine.load %H[%i] : memref<32xf32, strided<[1], offset: 32>>
    affine.store %a, %C[%i] : memref<32xf32>
  }
  return
}"""
    scop, _ctx, _m = _scop(text)
    assert dependences.compute(scop).all.is_empty()


def test_dynamic_view_of_a_shared_buffer_is_declined():
    text = """
func.func @k(%A: memref<64xf32>, %C: memref<64xf32>, %o: index) {
  %one = arith.constant 1.0 : f32
  %V = memref.reinterpret_cast %A to offset: [%o], sizes: [8], strides: [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
  affine.for %i = 0 to 8 {
    affine.store %one, %V[%i] : memref<8xf32, strided<[1], offset: ?>>
  }
  affine.for %k = 0 to 64 {
    %a = affine.load %A[%k] : memref<64xf32>
    affine.store %a, %C[%k] : memref<64xf32>
  }
  return
}"""
    with pytest.raises(model.NotRepresentable, match="a view with dynamic strides or offset"):
        _scop(text)


def _t(s):
    return "tensor<" + "x".join(map(str, s)) + "xf32>"


# The plain path under the scheduler (poly=true): a reshape of an elementwise
# result feeding a matmul bufferizes to a reinterpret_cast of the add's buffer;
# the nest group is outlined with the view and its source as two arguments.
RESHAPE_MATMUL = f"""func.func @f(%x: {_t((4, 8, 16))}, %w: {_t((16, 8))}) -> {_t((32, 8))} {{
  %t = mindir.add %x, %x : ({_t((4, 8, 16))}, {_t((4, 8, 16))}) -> {_t((4, 8, 16))}
  %r = mindir.reshape %t {{shape = array<i64: 32, 16>}} : ({_t((4, 8, 16))}) -> {_t((32, 16))}
  %s = mindir.matmul %r, %w : ({_t((32, 16))}, {_t((16, 8))}) -> {_t((32, 8))}
  return %s : {_t((32, 8))}
}}"""


def test_plain_path_reshape_into_matmul():
    rng = np.random.default_rng(0)
    x = rng.integers(-4, 5, (4, 8, 16)).astype(np.float32)
    w = rng.integers(-4, 5, (16, 8)).astype(np.float32)
    with option_defaults("msmlir-cpu-pipeline", {"poly": True, "min-work": 1 << 40}):
        out = compile_mlir(RESHAPE_MATMUL).call("f", x, w)[0]
    np.testing.assert_array_equal(out, (x + x).reshape(32, 16) @ w)
