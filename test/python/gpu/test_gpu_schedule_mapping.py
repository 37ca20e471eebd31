"""The isl schedule as the GPU mapping (convert-mskernel-to-gpu{poly-schedule},
passes/gpu/schedule_mapping.py): the mapped loop nests run on the CPU and
match numpy (tails, >3 dims linearized, a one-member band strip-mined); the
block/thread shapes are the schedule's tiles within the thread budget; the
kernels the schedule declines keep the matcher with a remark saying why; the
schedule-mapped kernels of the model zoo assemble with ptxas."""
import re

import numpy as np
import pytest

from msmlir.compiler import context
from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu

rng = np.random.default_rng(11)


def _t(shape, ty="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{ty}>"


def _binary(op, shape, shape_b=None):
    a, b = _t(shape), _t(shape_b or shape)
    return f"""
func.func @f(%x: {a}, %y: {b}) -> {a} {{
  %m = mindir.{op} %x, %y : ({a}, {b}) -> {a}
  %e = mindir.exp %m : {a}
  %r = mindir.sub %e, %x : ({a}, {a}) -> {a}
  return %r : {a}
}}"""


CASES = {
    # 2-D, partial tiles on both dims
    "2d_tails": (_binary("mul", [100, 1000]), [(100, 1000), (100, 1000)],
                 lambda x, y: np.exp(x * y) - x),
    # 3-D broadcast
    "broadcast": (_binary("add", [3, 64, 70], [70]), [(3, 64, 70), (70,)],
                  lambda x, b: np.exp(x + b) - x),
    # 4-D: the two outer block / thread dims linearized into z
    "4d": (_binary("mul", [2, 3, 17, 19]), [(2, 3, 17, 19), (2, 3, 17, 19)],
           lambda x, y: np.exp(x * y) - x),
    # 1-D: a one-member band (not tiled): its parallel loop strip-mined
    "1d": (_binary("mul", [1000]), [(1000,), (1000,)], lambda x, y: np.exp(x * y) - x),
}


def _mapped(text, threads):
    msgs = []
    handler = context().attach_diagnostic_handler(lambda d: (msgs.append(str(d.message)), True)[1])
    try:
        prog = compile_gpu(text, stop_after="mapped", threads=threads, poly_schedule=True)
    finally:
        handler.detach()
    return str(prog.module), msgs


@pytest.mark.parametrize("threads", [32, 256, 1024])
@pytest.mark.parametrize("case", list(CASES))
def test_schedule_mapped_nest_matches_numpy(case, threads):
    text, shapes, ref = CASES[case]
    ir_text, msgs = _mapped(text, threads)
    assert "mskernel.gpu_mapping" in ir_text, msgs      # the schedule, not the matcher
    assert not [m for m in msgs if "mapped by the matcher" in m], msgs
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    out = run_mapped_on_cpu(text, threads=threads, poly_schedule=True).call("f", *args)[0]
    want = ref(*[a.astype(np.float64) for a in args])
    np.testing.assert_allclose(out, want, rtol=2e-5, atol=2e-5 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("threads", [64, 256, 1024])
def test_blocks_and_threads_are_the_schedules_tiles(threads):
    ir_text, _ = _mapped(CASES["2d_tails"][0], threads)
    m = re.search(r'mskernel.gpu_mapping = "blocks (\d+)x(\d+) \(block_y,block_x\) '
                  r'threads (\d+)x(\d+) \(thread_y,thread_x\)"', ir_text)
    assert m, ir_text[:2000]
    by, bx, ty, tx = map(int, m.groups())
    tile = re.search(r"tile-sizes: shared (\d+)x(\d+)", ir_text)
    assert (ty, tx) == tuple(map(int, tile.groups()))          # the schedule's tile
    assert ty * tx <= threads
    assert (by, bx) == (-(-100 // ty), -(-1000 // tx))
    # every scf.parallel mapped: one block loop around one thread loop
    assert ir_text.count("scf.parallel") == 2 == ir_text.count("mapping = [")
    assert "processor = block_x" in ir_text and "processor = thread_x" in ir_text


def test_four_dims_linearize_into_z():
    ir_text, _ = _mapped(CASES["4d"][0], 256)
    desc = re.search(r'mskernel.gpu_mapping = "([^"]*)"', ir_text).group(1)
    # (the two outer dims fit one tile each: isl elides their tile loops)
    assert desc == "blocks 5x5 (block_y,block_x) threads 2x3x4x4 " \
        "(thread_z,thread_z,thread_y,thread_x)", desc
    text = _binary("mul", [9, 10, 40, 50])
    ir_text, _ = _mapped(text, 256)
    desc = re.search(r'mskernel.gpu_mapping = "([^"]*)"', ir_text).group(1)
    assert desc == "blocks 3x3x10x13 (block_z,block_z,block_y,block_x) threads 4x4x4x4 " \
        "(thread_z,thread_z,thread_y,thread_x)", desc
    x, y = (rng.standard_normal((9, 10, 40, 50)).astype(np.float32) for _ in range(2))
    out = run_mapped_on_cpu(text, threads=256, poly_schedule=True).call("f", x, y)[0]
    np.testing.assert_allclose(out, np.exp(x * y) - x, rtol=2e-5, atol=1e-4)


MATMUL = f"""
func.func @f(%a: {_t([37, 53])}, %b: {_t([53, 29])}) -> {_t([37, 29])} {{
  %r = mindir.matmul %a, %b : ({_t([37, 53])}, {_t([53, 29])}) -> {_t([37, 29])}
  return %r : {_t([37, 29])}
}}"""

ROWSUM = f"""
func.func @f(%x: {_t([37, 300])}) -> {_t([37])} {{
  %r = mindir.reduce_sum %x {{axes = array<i64: 1>}} : ({_t([37, 300])}) -> {_t([37])}
  return %r : {_t([37])}
}}"""


@pytest.mark.parametrize("text,why", [(MATMUL, "a contraction"), (ROWSUM, "a row reduction")])
def test_declined_kernels_keep_the_matcher_with_a_remark(text, why):
    ir_text, msgs = _mapped(text, 256)
    assert "mskernel.schedule" not in ir_text and "gpu mapping: blocks" not in ir_text
    hits = [m for m in msgs if "is mapped by the matcher, not the poly schedule" in m]
    assert len(hits) == 1 and why in hits[0], msgs
    assert "mapping = [" in ir_text                 # mapped all the same


@pytest.mark.slow
@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas (pip install -e '.[gpu]')")
@pytest.mark.parametrize("key", ["B1", "B5", "B6"])
def test_schedule_mapped_zoo_kernels_assemble(zoo_mindir, key):
    prog = compile_gpu(zoo_mindir[key], poly_schedule=True)
    reports = ptxas.check_program(prog)
    assert set(reports) == set(prog.objects)
    for name, r in reports.items():
        assert not r.problems, (name, r.problems)
        assert r.threads <= 1024


def test_a_kernel_plan_caps_the_schedules_tiles():
    """What a ptxas re-plan (msmlir.gpu.replan) sets on one kernel: fewer
    threads per block -> the GPU model's cap -> smaller isl tiles."""
    text = CASES["2d_tails"][0]
    ir_text, _ = _mapped(text, 256)
    name = re.search(r"func.func private @(\w+)\([^\n]*mskernel.gpu_mapping", ir_text).group(1)
    prog = compile_gpu(text, stop_after="mapped", poly_schedule=True,
                       kernel_plans={name: {"threads": 64}})
    desc = re.search(r'mskernel.gpu_mapping = "([^"]*)"', str(prog.module)).group(1)
    assert desc == "blocks 13x125 (block_y,block_x) threads 8x8 (thread_y,thread_x)", desc
    x, y = (rng.standard_normal((100, 1000)).astype(np.float32) for _ in range(2))
    out = run_mapped_on_cpu(text, poly_schedule=True,
                            kernel_plans={name: {"threads": 64}}).call("f", x, y)[0]
    np.testing.assert_allclose(out, np.exp(x * y) - x, rtol=2e-5, atol=1e-4)
