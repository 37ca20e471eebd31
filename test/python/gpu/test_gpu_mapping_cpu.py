"""CPU check of the GPU mapping: the mapped loop nest (scf.parallel with
#gpu.loop_dim_map attributes, before any gpu op) JIT-compiled for the CPU and
compared with numpy, for elementwise, broadcast, reduction (inner axis, outer
axis, to a scalar), matmul and softmax kernels, at several block sizes (tile
guards included). This is how CI, without a GPU, tests every mapping decision."""
import re

import numpy as np
import pytest

from msmlir.gpu import compile_gpu, run_mapped_on_cpu
from msmlir.passes.gpu.convert_mskernel_to_gpu import plan

rng = np.random.default_rng(7)


def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


ELEMWISE = f"""
func.func @f(%x: {_t([5, 1000])}, %y: {_t([5, 1000])}) -> {_t([5, 1000])} {{
  %a = mindir.mul %x, %y : ({_t([5, 1000])}, {_t([5, 1000])}) -> {_t([5, 1000])}
  %e = mindir.exp %a : {_t([5, 1000])}
  %r = mindir.sub %e, %x : ({_t([5, 1000])}, {_t([5, 1000])}) -> {_t([5, 1000])}
  return %r : {_t([5, 1000])}
}}"""

BROADCAST = f"""
func.func @f(%x: {_t([3, 64, 70])}, %b: {_t([70])}) -> {_t([3, 64, 70])} {{
  %a = mindir.add %x, %b : ({_t([3, 64, 70])}, {_t([70])}) -> {_t([3, 64, 70])}
  %r = mindir.relu %a : {_t([3, 64, 70])}
  return %r : {_t([3, 64, 70])}
}}"""

REDUCE = f"""
func.func @f(%x: {_t([37, 300])}, %z: {_t([300, 37])}, %v: {_t([129])})
    -> ({_t([37])}, {_t([37])}, tensor<f32>) {{
  %r = mindir.reduce_sum %x {{axes = array<i64: 1>}} : ({_t([37, 300])}) -> {_t([37])}
  %c = mindir.reduce_max %z {{axes = array<i64: 0>}} : ({_t([300, 37])}) -> {_t([37])}
  %m = mindir.reduce_mean %v : ({_t([129])}) -> tensor<f32>
  return %r, %c, %m : {_t([37])}, {_t([37])}, tensor<f32>
}}"""

MATMUL = f"""
func.func @f(%a: {_t([37, 53])}, %b: {_t([53, 29])}) -> {_t([37, 29])} {{
  %r = mindir.matmul %a, %b : ({_t([37, 53])}, {_t([53, 29])}) -> {_t([37, 29])}
  return %r : {_t([37, 29])}
}}"""

SOFTMAX = f"""
func.func @f(%x: {_t([8, 1000])}) -> {_t([8, 1000])} {{
  %r = "mindir.softmax"(%x) {{axis = -1 : i64}} : ({_t([8, 1000])}) -> {_t([8, 1000])}
  return %r : {_t([8, 1000])}
}}"""


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


CASES = {
    "elementwise": (ELEMWISE, [(5, 1000), (5, 1000)], lambda x, y: [np.exp(x * y) - x]),
    "broadcast": (BROADCAST, [(3, 64, 70), (70,)], lambda x, b: [np.maximum(x + b, 0)]),
    "reduction": (REDUCE, [(37, 300), (300, 37), (129,)],
                  lambda x, z, v: [x.sum(1), z.max(0), np.asarray(v.mean())]),
    "matmul": (MATMUL, [(37, 53), (53, 29)], lambda a, b: [a @ b]),
    "softmax": (SOFTMAX, [(8, 1000)], lambda x: [_softmax(x)]),
}


@pytest.mark.parametrize("threads", [32, 256, 1024])
@pytest.mark.parametrize("case", list(CASES))
def test_mapped_nest_matches_numpy(case, threads):
    text, shapes, ref = CASES[case]
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    cm = run_mapped_on_cpu(text, threads=threads)
    outs = cm.call("f", *args)
    want = ref(*[a.astype(np.float64) for a in args])
    assert len(outs) == len(want)
    for o, w in zip(outs, want):
        assert o.shape == w.shape
        np.testing.assert_allclose(o, w, rtol=2e-5, atol=2e-5 * max(1.0, np.abs(w).max()))


def _mapped_loops(text, threads):
    ir_text = str(compile_gpu(text, stop_after="mapped", threads=threads).module)
    return re.findall(r"scf\.parallel \(([^)]*)\) = \([^)]*\) to \(([^)]*)\).*\n?.*?"
                      r"mapping = \[([^\]]*)\]", ir_text), ir_text


@pytest.mark.parametrize("threads", [64, 256])
def test_every_loop_is_mapped_within_limits(threads):
    for case in CASES:
        _, ir_text = _mapped_loops(CASES[case][0], threads)
        assert "scf.parallel" in ir_text
        # every scf.parallel carries a mapping, block loops around thread loops
        n_par = ir_text.count("scf.parallel")
        assert ir_text.count("mapping = [") == n_par, case
        # (a block reduction has several thread loops, its phases, in its block loop)
        assert 0 < ir_text.count("processor = block_x") <= ir_text.count("processor = thread_x"), case


def test_plan_respects_the_thread_budget():
    for ubs in ([4096, 1024], [5, 1000], [37, 29], [3, 64, 70], [1], [64, 6, 28, 28], [2, 2, 2, 2]):
        for budget in (32, 256, 1024):
            tile, blocks = plan(ubs, budget)
            assert np.prod(tile) <= budget
            assert all(t * b >= u for t, b, u in zip(tile, blocks, ubs))
            assert all(t <= u for t, u in zip(tile, ubs))
    # innermost dim first (coalesced), then outward
    assert plan([4096, 1024], 256) == ([1, 256], [4096, 4])
    assert plan([37, 29], 256) == ([8, 29], [5, 1])
