"""Fixtures of the GPU target's suite: the model zoo's mindir (bench B1-B6) and
its GPU programs, compiled once per session."""
import importlib.util
import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _bench():
    spec = importlib.util.spec_from_file_location("msmlir_bench_run",
                                                  os.path.join(ROOT, "bench", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def bench():
    return _bench()


@pytest.fixture(scope="session")
def zoo_mindir(bench):
    """{B1..B6: mindir text}: B1-B4 as bench/run.py writes them, B5/B6 the
    lowered train steps (MLP, LeNet5) of its nn.Cells (nothing compiled)."""
    import msmlir as ms
    from msmlir import Tensor
    out = {k: bench.MINDIR_CASES[k][0]() for k in ("B1", "B2", "B3", "B4")}
    d = bench.make_data()
    ms.set_context(mode=ms.GRAPH_MODE)
    for key in ("B5", "B6"):
        case = bench.msmlir_case(key, d)
        _, x, y, _, _ = bench.train_setup(key, d)
        case["make"]()
        held = next(c.cell_contents for c in case["make"].__closure__
                    if isinstance(c.cell_contents, dict))
        out[key] = case["obj"]().lower(held["train"], Tensor(x), Tensor(y.astype(np.int32)))
    return out


@pytest.fixture(scope="session")
def zoo_programs(zoo_mindir):
    """{B1..B6: GpuProgram (format=isa, sm_90, +ptx80)}."""
    from msmlir.gpu import compile_gpu
    return {k: compile_gpu(text) for k, text in zoo_mindir.items()}


@pytest.fixture(autouse=True)
def _parameters_back_on_the_host():
    """After each test every device-resident Parameter is synced back, so the
    Parameter class is left as it was (msmlir.gpu.resident hooks it only while
    a value is on the device) for the tests that run after this directory."""
    yield
    from msmlir.gpu import resident
    resident.to_host()
    assert not resident._ON_DEVICE and not resident._INSTALLED
