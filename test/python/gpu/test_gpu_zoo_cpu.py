"""The model zoo's mapped loop nests on the CPU: bench B1-B4 against numpy
references, and the whole B5 (MLP) / B6 (LeNet5) train steps (every kernel
mapped to blocks/threads, block reductions included) against msmlir's own
CPU pipeline on the same inputs: loss and every updated parameter; each
with the matcher's mapping and with the poly schedule's (poly-schedule)."""
import numpy as np
import pytest

from msmlir.compiler import compile_mlir
from msmlir.gpu import run_mapped_on_cpu


@pytest.mark.slow
@pytest.mark.parametrize("poly", [False, True], ids=["matcher", "poly"])
@pytest.mark.parametrize("key", ["B1", "B2", "B3", "B4"])
def test_bench_kernels_mapped_match_numpy(bench, zoo_mindir, key, poly):
    d = bench.make_data()
    _, name, args = bench.MINDIR_CASES[key]
    arrays = [d[a] for a in args]
    out = run_mapped_on_cpu(zoo_mindir[key], poly_schedule=poly).call(name, *arrays)[0]
    ref = getattr(bench, "ref_" + key.lower())(*arrays)
    scale = float(np.abs(ref).max())
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5 * scale)


def _inputs(sig, seed):
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in sig.inputs:
        if np.issubdtype(dtype, np.integer):
            out.append(rng.integers(0, 10, size=shape).astype(dtype))
        else:
            out.append((rng.standard_normal(shape) * 0.1).astype(dtype))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("poly", [False, True], ids=["matcher", "poly"])
@pytest.mark.parametrize("key", ["B5", "B6"])
def test_train_step_mapped_matches_cpu_pipeline(zoo_mindir, key, poly):
    """poly: the generic kernels mapped from their isl schedule (B5: 2 of 12
    kernels, B6: 9 of 26; the others keep the matcher's strategies)."""
    text = zoo_mindir[key]
    mapped = run_mapped_on_cpu(text, poly_schedule=poly)
    cpu = compile_mlir(text)
    (name, sig), = mapped.signatures.items()
    a = _inputs(sig, 1)
    b = [x.copy() for x in a]
    got = mapped.call(name, *a)
    want = cpu.call(name, *b)
    assert len(got) == len(want) >= 1
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    # the parameter updates, written back into the arguments
    assert sig.writeback
    for _, i in sig.writeback:
        np.testing.assert_allclose(a[i], b[i], rtol=1e-4, atol=1e-6)
        assert not np.array_equal(a[i], _inputs(sig, 1)[i])     # it was updated
