"""Model extraction, isl dependences and schedule validity for the poly
kernels: every dependence goes forward in the chosen (tiled) schedule; the
interchange that A[i][j] = A[i-1][j+1] forbids is detected as invalid."""
from __future__ import annotations

import islpy as isl
import pytest
from mlir import ir

import kernels as K
from msmlir.passes.poly import dependences, model, schedule, targets


def _scop(text):
    ctx = ir.Context()
    with ctx:
        m = ir.Module.parse(text)
        return model.extract(m.body.operations[0].operation), (ctx, m)


def _valid(deps: isl.UnionMap, sched: isl.UnionMap) -> bool:
    """Every dependence src -> dst has sched(src) lexicographically < sched(dst)."""
    in_time = deps.apply_domain(sched).apply_range(sched)
    if in_time.is_empty():
        return True
    maps = []
    in_time.foreach_map(maps.append)
    n = maps[0].dim(isl.dim_type.out)
    names = ", ".join(f"a{k}" for k in range(n))
    names2 = ", ".join(f"b{k}" for k in range(n))
    cases = [" and ".join([f"a{j} = b{j}" for j in range(k)] + [f"a{k} < b{k}"]) for k in range(n)]
    lt = isl.UnionMap(f"{{ [{names}] -> [{names2}] : {' or '.join(cases)} }}")
    return in_time.is_subset(lt)


CARRIED = """func.func @k(%A: memref<16x16xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 1 to 16 {
    affine.for %j = 0 to 15 {
      %a = affine.load %A[%i - 1, %j + 1] : memref<16x16xf32>
      %s = arith.addf %a, %one : f32
      affine.store %s, %A[%i, %j] : memref<16x16xf32>
    }
  }
  return
}"""


def test_carried_dependence_forbids_interchange():
    scop, keep = _scop(CARRIED)
    deps = dependences.compute(scop)
    assert deps.raw.is_equal(isl.UnionMap(
        "{ S0[i, j] -> S0[i + 1, j - 1] : 1 <= i <= 14 and 1 <= j <= 14 }"))
    assert dependences.carried(deps.all, "S0", 2) == [0, 1]
    assert _valid(deps.all, scop.schedule_map())
    assert not _valid(deps.all, isl.UnionMap("{ S0[i, j] -> [j, i] }"))  # interchange
    res = schedule.schedule(scop, deps, tile_sizes=[4], target=targets.CPU(l1=32768, l2=1 << 20))
    assert _valid(deps.all, res.schedule.get_map())


def test_matmul_reduction_and_flow():
    scop, keep = _scop(K.matmul(8, 8, 8))
    assert [s.name for s in scop.statements] == ["S0", "S1"]
    assert scop.statements[0].domain.startswith("{ S0[i0, i1] :")
    deps = dependences.compute(scop)
    assert deps.reductions == {"S1": [2]}
    assert not deps.raw.intersect(isl.UnionMap("{ S0[a, b] -> S1[c, d, e] }")).is_empty()


@pytest.mark.parametrize("text", [K.matmul(12, 10, 9), K.transposed_chain(9, 7), K.reduce_axis((4, 5, 6), 1),
                                  K.stencil(10), K.triangular(8)])
@pytest.mark.parametrize("tiles", [[], [4], [3, 5]])
def test_schedules_respect_dependences(text, tiles):
    scop, keep = _scop(text)
    deps = dependences.compute(scop)
    res = schedule.schedule(scop, deps, tile_sizes=tiles, target=targets.CPU(l1=4096, l2=1 << 20))
    assert _valid(deps.all, res.schedule.get_map())


def test_not_representable_reason():
    with pytest.raises(model.NotRepresentable, match="dynamic sizes"):
        _scop(CARRIED.replace("16x16", "?x16"))


def test_footprint_model():
    scop, keep = _scop(K.matmul(64, 64, 64, init=False))
    deps = dependences.compute(scop)
    band = schedule.compute_schedule(scop, deps).get_root().child(0)
    assert schedule.footprint(scop, band, [32, 32, 32]) == 3 * 32 * 32 * 4
    cpu = targets.CPU(l1=49152, l2=1 << 20, vector_bytes=16)
    # one row of C and A with all of B (16.5 KiB) fits in L1/2: the reuse of B
    # across rows is kept untiled, no tiling
    assert not schedule.reuse_lost(scop, band, cpu.l1 // 2)
    assert schedule.plan(scop, band, cpu) == []
    assert schedule.reuse_lost(scop, band, 8192)
    assert schedule.plan(scop, band, targets.CPU(l1=4096, l2=49152)) == [("l2", [32, 32, 32]),
                                                                        ("l1", [8, 8, 8])]
    # the innermost member is raised to one vector when that still fits
    assert schedule.plan(scop, band, targets.CPU(l1=4096, l2=4096, vector_bytes=64)) == \
        [("l1", [8, 8, 16])]
