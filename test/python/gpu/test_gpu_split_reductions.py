"""Split reductions (convert_mskernel_to_gpu._map_row_reduction, plan_split):
few long rows are reduced by S blocks each (balanced chunks, a block
reduction per chunk into a global partial buffer), then a second kernel
folds each output's initial value with its S partial results. The CPU runs
the mapped loop nest (both kernels) against numpy; ptxas checks the two
kernels; the launches give the grid. Nothing here ran on a GPU."""
import numpy as np
import pytest

from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu
from msmlir.passes.gpu.convert_mskernel_to_gpu import MIN_BLOCKS, plan_split

rng = np.random.default_rng(4242)
needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas")


def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>" if shape else "tensor<f32>"


def _reduce(op, shape, axes):
    out = [d for i, d in enumerate(shape) if i not in axes]
    return f"""
func.func @f(%x: {_t(shape)}) -> {_t(out)} {{
  %r = mindir.{op} %x {{axes = array<i64: {", ".join(map(str, axes))}>, keep_dims = false}}
      : ({_t(shape)}) -> {_t(out)}
  return %r : {_t(out)}
}}"""


CASES = [
    ("reduce_sum", (1 << 20,), (0,), lambda x: x.astype(np.float64).sum(0)),       # to a scalar
    ("reduce_max", (8, 200003), (1,), lambda x: x.max(1)),                           # odd K: uneven chunks
    ("reduce_mean", (3, 70001), (1,), lambda x: x.astype(np.float64).mean(1)),
    ("reduce_min", (100, 40000), (1,), lambda x: x.min(1)),                           # 100 rows: 2-way split
]


@pytest.mark.parametrize("op,shape,axes,ref", CASES, ids=lambda c: str(c))
def test_split_reductions_on_cpu_match_numpy(op, shape, axes, ref):
    text = _reduce(op, shape, axes)
    mapped = str(compile_gpu(text, stop_after="mapped").module)
    assert "memref.alloc() : memref<" in mapped            # the partial results' buffer
    x = rng.standard_normal(shape).astype(np.float32)
    out = run_mapped_on_cpu(text).call("f", x)[0]
    want = ref(x)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))


def test_plan_split():
    assert plan_split(1, 1 << 20, 256) == 2 * MIN_BLOCKS          # a scalar: 256 blocks
    assert plan_split(8, 200003, 256) == 32
    assert plan_split(100, 40000, 256) == 3
    assert plan_split(MIN_BLOCKS, 1 << 20, 256) == 1              # enough rows already
    assert plan_split(4, 2000, 256) == 1                          # chunks would be too short
    assert plan_split(1, 1 << 30, 256) == 2 * MIN_BLOCKS          # about 2 x MIN_BLOCKS blocks in all
    # every chunk of a split row holds at least SPLIT_MIN_PER_THREAD x T elements
    for rows, K in ((8, 200003), (1, 1 << 20), (100, 40000), (3, 70001)):
        S = plan_split(rows, K, 256)
        assert min((s + 1) * K // S - s * K // S for s in range(S)) >= 4 * 256


@needs_ptxas
def test_split_reduction_ptxas():
    prog = compile_gpu(_reduce("reduce_max", (8, 200003), (1,)))
    grids = [(launch.grid, launch.block) for launch in prog.launches]
    assert ((8, 32, 1), (256, 1, 1)) in grids                      # 32 chunks of each row
    assert ((1, 1, 1), (8, 1, 1)) in grids                         # the fold: a thread per row
    reports = ptxas.check_program(prog)
    (name, r), = [(n, r) for n, r in reports.items() if r.shared]
    ptx = prog.ptx[name]
    assert "shfl.sync.down.b32" in ptx and "bar.sync" in ptx
    assert all(not r.problems for r in reports.values()), reports
