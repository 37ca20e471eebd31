"""Data-movement kernels (movement.py) on the emulator: slices, splits,
concatenations, stacks, tiles and transposes that ran as scalar loops now
run as DataCopyPad copy kernels on the MTE (or, a transpose of the innermost
dim, the Gather transpose), bit-identical to the CPU target, over several
cores, in f32, f16, i32 and bool; what they cannot express stays on the
scalar fallback with its reason."""
import numpy as np
import pytest

import msmlir.ascend as A
from msmlir.compiler import compile_mlir

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(140)


def _t(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{et}>"


def _fn(ins, outs, body):
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(ins))
    res = ", ".join(f"%r#{k}" if len(outs) > 1 else "%r" for k in range(len(outs)))
    return f"func.func @f({args}) -> ({', '.join(outs)}) {{\n  {body}\n  return {res} : {', '.join(outs)}\n}}"


CASES = {  # name: (input shapes, element type, output shapes, body)
    "slice_rows_tail": ([(37, 50)], "f32", [(20, 33)],
                        "%r = mindir.slice %a0 {begin = array<i64: 3, 7>, size = array<i64: 20, 33>} : "
                        "({0}) -> ({1})"),
    "split3_f16": ([(6, 30)], "f16", [(6, 10)] * 3,
                   "%r:3 = mindir.split %a0 {axis = 1 : i64, output_num = 3 : i64} : ({0}) -> ({1}, {2}, {3})"),
    "concat_axis0_i32": ([(5, 7), (3, 7)], "i32", [(8, 7)],
                         "%r = mindir.concat %a0, %a1 {axis = 0 : i64} : ({0}, {1}) -> ({2})"),
    "concat_last_bool": ([(4, 3), (4, 9)], "i1", [(4, 12)],
                         "%r = mindir.concat %a0, %a1 {axis = -1 : i64} : ({0}, {1}) -> ({2})"),
    "stack_axis0": ([(9, 11), (9, 11), (9, 11)], "f32", [(3, 9, 11)],
                    "%r = mindir.stack %a0, %a1, %a2 {axis = 0 : i64} : ({0}, {1}, {2}) -> ({3})"),
    "tile_rows": ([(5, 13)], "f32", [(3, 10, 13)],
                  "%r = mindir.tile %a0 {multiples = array<i64: 3, 2, 1>} : ({0}) -> ({1})"),
    "transpose_keep_last": ([(4, 6, 21)], "f32", [(6, 4, 21)],
                            "%r = mindir.transpose %a0 {perm = array<i64: 1, 0, 2>} : ({0}) -> ({1})"),
    "transpose_rotate": ([(5, 6, 9)], "f32", [(9, 5, 6)],
                         "%r = mindir.transpose %a0 {perm = array<i64: 2, 0, 1>} : ({0}) -> ({1})"),
}


def _text(ins, et, outs, body):
    ts = [_t(s, et) for s in ins] + [_t(s, et) for s in outs]
    return _fn(ts[:len(ins)], ts[len(ins):], body.replace("{", "{{").replace("}", "}}").replace("{{0}}", "{0}")
               .replace("{{1}}", "{1}").replace("{{2}}", "{2}").replace("{{3}}", "{3}").format(*ts))


def _data(shape, et):
    if et == "i32":
        return RNG.integers(-1000, 1000, shape).astype(np.int32)
    if et == "i1":
        return RNG.random(shape) < 0.5
    return RNG.standard_normal(shape).astype(np.float16 if et == "f16" else np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_movement_kernel_equals_cpu(name):
    ins, et, outs, body = CASES[name]
    text = _text(ins, et, outs, body)
    args = [_data(s, et) for s in ins]
    ref = compile_mlir(text).call("f", *[a.copy() for a in args])
    prog = A.compile(text)          # (movement.py is reached through the fallback hook, scalar.plan_scalar)
    got = prog.call("f", *[a.copy() for a in args])
    assert len(got) == len(ref) == len(outs)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype and g.shape == r.shape
        np.testing.assert_array_equal(g, r)                      # bit-identical: copies only
    k = next(iter(prog.kernels.values()))
    assert k.report["bound"] != "scalar fallback" and "fallback_reason" not in k.report
    if name == "transpose_rotate":     # the innermost dim moves: a [30, 9] -> [9, 30] Gather transpose
        assert k.plan.transpose is not None and "Gather(" in k.source
    else:                              # DataCopyPad runs only, no scalar access
        assert k.plan.dma["kind"] == "copy" and "DataCopyPad(t, src," in k.source
        assert "GetValue" not in k.source and "SetValue" not in k.source
        assert k.report["vector_instructions_per_tile"] == 0 and k.report["measured"]["vector_instructions"] == 0


def test_many_items_are_split_over_cores_and_rows_tiled():
    """A long slice: items over several cores, each item at most tileRows rows."""
    text = _text([(3000, 40)], "f32", [(2990, 24)],
                 "%r = mindir.slice %a0 {begin = array<i64: 5, 9>, size = array<i64: 2990, 24>} : ({0}) -> ({1})")
    prog = A.compile(text)          # (movement.py is reached through the fallback hook, scalar.plan_scalar)
    x = _data((3000, 40), "f32")
    (y,) = prog.call("f", x)
    np.testing.assert_array_equal(y, x[5:2995, 9:33])
    k = next(iter(prog.kernels.values()))
    t, job = k.plan.dma["tiling"], k.plan.dma["jobs"][0]
    assert t["blockDim"] > 1 and job["tileRows"] < 2990 and job["chunks"] * job["tileRows"] >= 2990


def test_last_dim_broadcast_stays_scalar_with_its_reason():
    """broadcast_to along the innermost dim is not a run copy (it needs a
    vector Duplicate): still the scalar fallback, saying why."""
    text = _text([(7, 1)], "f32", [(3, 7, 13)],
                 "%r = mindir.broadcast_to %a0 {shape = array<i64: 3, -1, 13>} : ({0}) -> ({1})")
    prog = A.compile(text)
    x = _data((7, 1), "f32")
    np.testing.assert_array_equal(prog.call("f", x)[0], np.broadcast_to(x, (3, 7, 13)))
    k = next(iter(prog.kernels.values()))
    assert k.report["bound"] == "scalar fallback" and "'linalg.broadcast' in a vector kernel" in k.report["fallback_reason"]
