"""ptxas remarks the scheduler reacts to (msmlir.gpu.replan): a kernel that
spills under a register budget is re-planned with smaller register tiles until
ptxas reports no spill (bounded), each re-plan a remark with the kernel, the
ptxas figures and the new tiles; the re-planned mapping still computes the
right result (CPU check); kernels without problems are compiled once."""
import re

import numpy as np
import pytest

from msmlir.compiler import context
from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu
from msmlir.gpu.ptxas import KernelReport
from msmlir.gpu.replan import _smaller, compile_checked

pytestmark = pytest.mark.skipif(ptxas.find_ptxas() is None,
                                reason="no ptxas (pip install -e '.[gpu]')")


def _t(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


M = N = K = 512
MATMUL = f"""
func.func @f(%a: {_t([M, K])}, %b: {_t([K, N])}) -> {_t([M, N])} {{
  %r = mindir.matmul %a, %b : ({_t([M, K])}, {_t([K, N])}) -> {_t([M, N])}
  return %r : {_t([M, N])}
}}"""

EXP = f"""
func.func @f(%x: {_t([64, 100])}) -> {_t([64, 100])} {{
  %r = mindir.exp %x : {_t([64, 100])}
  return %r : {_t([64, 100])}
}}"""


def _checked(text, **kw):
    msgs = []
    handler = context().attach_diagnostic_handler(lambda d: (msgs.append(str(d.message)), True)[1])
    try:
        return compile_checked(text, **kw), msgs
    finally:
        handler.detach()


def test_budget_reaches_ptxas_despite_launch_bounds():
    # the kernels carry .maxntid, which overrides -maxrregcount: the budget
    # goes in as .maxnreg too
    prog = compile_gpu(MATMUL)
    name = max(prog.ptx, key=lambda n: len(prog.ptx[n]))
    _, free, _ = ptxas.assemble(prog.ptx[name])
    _, tight, _ = ptxas.assemble(prog.ptx[name], maxrregcount=32)
    (free,), (tight,) = free.values(), tight.values()
    assert free.registers > 32 and not free.spills
    assert tight.registers <= 32 and tight.spills


@pytest.mark.parametrize("budget,rounds", [(32, 1), (24, 3)])
def test_spilling_matmul_is_replanned_until_it_does_not_spill(budget, rounds):
    (prog, reports, replans), msgs = _checked(MATMUL, maxrregcount=budget)
    assert len(replans) == rounds
    first, last = replans[0], replans[-1]
    assert first.before.spills and first.before.registers <= budget
    assert not last.after.spills and not last.after.problems
    assert not any(r.problems for r in reports.values())
    # register tiles shrink at each re-plan: 2x4 -> 2x2 (-> 1x2 -> 1x1)
    tiles = [re.search(r"(\d+)x(\d+) outputs per thread", p.tiles).groups() for p in replans]
    outs = [int(a) * int(b) for a, b in tiles]
    assert outs == sorted(outs, reverse=True) and outs[0] <= 4
    hits = [m for m in msgs if m.startswith("ptxas re-plan: kernel @")]
    assert len(hits) == rounds
    assert f"{first.before.spill_stores} bytes spill stores" in hits[0]
    assert "outputs per thread" in hits[0] and "ptxas now:" in hits[-1]
    assert hits[-1].rstrip().endswith("no spills")
    # the re-planned mapping computes the product (CPU check of the mapping)
    plans = {last.kernel: last.new}
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((M, K)).astype(np.float32) for _ in range(2))
    out = run_mapped_on_cpu(MATMUL, kernel_plans=plans).call("f", a, b)[0]
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


def test_retries_are_bounded_and_what_is_left_is_a_remark():
    (_, reports, replans), msgs = _checked(MATMUL, maxrregcount=24, retries=1)
    assert len(replans) == 1 and replans[0].after.spills
    left = [m for m in msgs if m.startswith("ptxas: kernel ")]
    assert len(left) == 1 and "spills" in left[0] and "after 1 re-plans" in left[0]
    assert any(r.problems for r in reports.values())


def test_a_kernel_without_problems_compiles_once():
    (prog, reports, replans), msgs = _checked(EXP)
    assert replans == [] and msgs == []
    assert reports and not any(r.problems for r in reports.values())


def test_policy_halves_threads_for_block_limits():
    r = KernelReport("k", registers=128, threads=1024,
                     problems=["128 registers x 1024 threads exceeds the 65536 registers"])
    assert _smaller({"threads": 1024, "outputs": 64}, r, "") == {"threads": 512, "outputs": 64}
    s = KernelReport("k", registers=32, spill_stores=8, spill_loads=8, threads=256)
    mapping = "matmul tiles 64x64, 4x4 outputs per thread, k step 16"
    assert _smaller({"threads": 256, "outputs": 64}, s, mapping) == {"threads": 256, "outputs": 8}
    # no register tile to shrink: fewer threads; at the floor: unchanged (no retry)
    assert _smaller({"threads": 256, "outputs": 64}, s, "") == {"threads": 128, "outputs": 64}
    assert _smaller({"threads": 32, "outputs": 64}, s, "") == {"threads": 32, "outputs": 64}
