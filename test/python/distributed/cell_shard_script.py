"""Run by test_cell_shard.py under mpirun (2 ranks): Cell.shard (in_strategy
and parameter_plan on a sub-cell, no Primitive.shard anywhere) under
SEMI_AUTO_PARALLEL, 3 SGD steps of a TrainOneStepCell, vs one process; the
parameter_plan's layout reaches the rank's program (the planned parameter
is fed split)."""
import numpy as np
import msmlir as ms
from msmlir import nn, Tensor, Parameter
from msmlir import communication as comm
from msmlir.parallel import gather_parameter
from msmlir.ops import operations as P

comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
assert size == 2
ms.set_context(mode=ms.GRAPH_MODE)
B, D, H, O = 8, 16, 32, 8


def param(shape, name, seed):
    rng = np.random.default_rng(seed)
    return Parameter(Tensor((rng.standard_normal(shape) * 0.2).astype(np.float32)), name=name)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w1, self.w2 = param((D, H), "w1", 0), param((H, O), "w2", 1)
        self.mm1, self.relu, self.mm2 = P.MatMul(), P.ReLU(), P.MatMul()

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


class Net(nn.Cell):
    def __init__(self, in_strategy, plan, out=None):
        super().__init__()
        self.block = Block()
        self.tanh = P.Tanh()
        if in_strategy is not None:
            self.block.shard(in_strategy, out, parameter_plan=plan)

    def construct(self, x):
        return self.tanh(self.block(x))


CASES = {   # name: (in_strategy, parameter_plan, out_strategy, {parameter: split dim on a rank})
    "column_w1": (((1, 1),), {"self.block.w1": (1, size)}, None, {"block.w1": 1}),
    "row_w2": ((None,), {"w2": (size, 1)}, None, {"block.w2": 0}),
    "batch": (((size, 1),), None, ((size, 1),), {}),
}


def train(in_strategy, plan, x, y, out=None):
    net = Net(in_strategy, plan, out)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
    return net, step, losses


rng = np.random.default_rng(7)
x = rng.standard_normal((B, D)).astype(np.float32)
y = rng.standard_normal((B, O)).astype(np.float32)
for name, (ins, plan, out, splits) in CASES.items():
    ms.reset_auto_parallel_context()
    ref, _, ref_losses = train(ins, plan, x, y, out)     # stand-alone: Cell.shard ignored
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                 device_num=size, full_batch=True)
    net, step, losses = train(ins, plan, x, y, out)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6, err_msg=name)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(gather_parameter(p), q.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} {p.name}")
    (lowered,) = step._graph_fn()._cache.values()
    assert "mindir.sharding_hint" in lowered.text, name
    d = lowered.compiled.dispatcher(lowered.name)
    dims = dict(zip([p.name for p in lowered.params], d.dims[2:]))
    for pname, dim in splits.items():
        assert dims[pname] == dim, (name, dims)
    assert d.dims[:2] == ([0, 0] if name == "batch" else [None, None]), (name, d.dims)

# a strategy the 1-D mesh cannot hold: an error at the line that calls the cell
try:
    train(((1, 3),), None, x, y)
except ms.parallel.ShardingError as e:
    assert "bad sharding strategy: strategy (1, 3) of the hinted value: cut 3 of dim 1 does " \
           "not divide device_num (2)" in str(e), e
    line = Net.construct.__code__.co_firstlineno + 1            # self.tanh(self.block(x))
    assert str(e).startswith(f"{__file__}:{line}:26: error: "), e
else:
    raise AssertionError("a cut of 3 on 2 ranks was accepted")
print("ok", rank)
