"""bench/run.py's B1-B4 (mindir text as the bench writes it, at the bench's
shapes: 4M elements, 4096 x 1024 rows, a 1024^3 matmul) through the Ascend
target, every fused kernel as Ascend C on the emulator, against the CPU
target: bit-identical or within 1e-5 relative (the matmul: the cube's K-step
order against the CPU's, bounded by f32's summation error)."""
import importlib.util
import os

import numpy as np
import pytest

import msmlir.ascend as A
from msmlir.compiler import compile_mlir

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("msmlir_bench_run_ascend", os.path.join(ROOT, "bench", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("key", ["B1", "B2", "B3", "B4"])
def test_bench_kernel_on_ascend_equals_cpu(bench, key):
    make, name, _ = bench.MINDIR_CASES[key]
    text = make()
    rng = np.random.default_rng(4)
    shapes = {"B1": [(bench.N_ELEM,)], "B2": [(bench.ROWS, bench.COLS)],
              "B3": [(bench.ROWS, bench.COLS), (bench.COLS,), (bench.COLS,)],
              "B4": [(bench.MM, bench.MM)] * 2}[key]
    ins = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    prog = A.compile(text)
    leaves = [p for k in prog.kernels.values() for p in (k.parts or [k])]
    assert leaves and all(p.report["bound"] != "scalar fallback" for p in leaves)
    assert all("__global__ __aicore__ void " + p.name in p.source for p in leaves)
    got = prog.call(name, *ins)[0]
    ref = compile_mlir(text).call(name, *ins)[0]
    assert got.shape == ref.shape and got.dtype == ref.dtype
    if key == "B4":       # |error| <= K * 2^-24 * sum |a||b| for either order: twice that between the two
        bound = 2 * bench.MM * 2.0 ** -24 * (np.abs(ins[0]) @ np.abs(ins[1]))
        assert (np.abs(got.astype(np.float64) - ref) <= bound).all()
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
