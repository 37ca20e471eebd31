"""Run by test_full_batch.py under mpirun (2 ranks): full_batch=False
(MindSpore's default: each rank feeds its own slice of the batch) under
SEMI_AUTO_PARALLEL, 3 SGD steps of a TrainOneStepCell, vs one process
trained on the concatenation of the ranks' batches. Networks: the Megatron
MLP (strategies that want the batch whole: all_gathered), the same net with
a batch-split first matmul (data parallel into the split hidden dim), and no
strategy at all (pure data parallel, MindSpore's dataset strategy)."""
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
B, D, H, O = 8, 16, 32, 8          # B: the global batch; each rank feeds B // size rows


def param(shape, name, seed):
    rng = np.random.default_rng(seed)
    return Parameter(Tensor((rng.standard_normal(shape) * 0.2).astype(np.float32)), name=name)


class Net(nn.Cell):
    def __init__(self, strategies):
        super().__init__()
        self.w1, self.w2 = param((D, H), "w1", 0), param((H, O), "w2", 1)
        self.mm1, self.relu, self.mm2 = P.MatMul(), P.ReLU(), P.MatMul()
        for prim, s in zip((self.mm1, self.relu, self.mm2), strategies):
            if s is not None:
                prim.shard(s)

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


CASES = {
    "megatron": (((1, 1), (1, size)), ((1, size),), ((1, size), (size, 1))),
    "batch_split": (((size, 1), (1, 1)), ((size, 1),), ((size, 1), (1, 1))),
    "no_strategy": (None, None, None),
}


def train(strategies, x, y):
    net = Net(strategies)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1))
    losses = []
    for k in range(3):
        losses.append(float(step(Tensor(x[k]), Tensor(y[k])).asnumpy()))
    return net, step, losses


rng = np.random.default_rng(7)
xs = rng.standard_normal((3, B, D)).astype(np.float32)      # 3 global batches
ys = rng.standard_normal((3, B, O)).astype(np.float32)
b = B // size
mine = slice(rank * b, (rank + 1) * b)                      # this rank's rows of each batch
for name, strategies in CASES.items():
    ms.reset_auto_parallel_context()
    ref, _, ref_losses = train(strategies, xs, ys)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                 device_num=size, full_batch=False)
    net, step, losses = train(strategies, xs[:, mine], ys[:, mine])
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6, err_msg=name)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(gather_parameter(p), q.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} {p.name}")
    (lowered,) = step._graph_fn()._cache.values()
    assert lowered.per_rank_args == (0, 1), lowered.per_rank_args
    d = lowered.compiled.dispatcher(lowered.name)
    assert d.dims[:2] == [0, 0], d.dims                      # x, y: the rank's rows
    assert [s for s, _ in d.sig.inputs[:2]] == [(b, D), (b, O)], d.sig.inputs

# a jit function under full_batch=False: a result as long as the global batch
# is the rank's rows (as it feeds them), another one is whole
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                             device_num=size, full_batch=False)


@ms.jit
def double(x):
    return x * 2.0, x.sum(0)


two, total = double(xs[0, mine])
np.testing.assert_array_equal(two, xs[0, mine] * 2.0)
np.testing.assert_allclose(total, xs[0].sum(0), rtol=1e-5)
# ranks feeding batches of different shapes (checked when the graph is traced):
# an error on every rank, not a hang
@ms.jit
def triple(x):
    return x * 3.0


try:
    triple(xs[0, :b + rank])
except ms.parallel.ShardingError as e:
    assert "every rank must feed a slice of the same shape" in str(e), e
    assert f"rank 0: [{b}, {D}]; rank 1: [{b + 1}, {D}]" in str(e), e
else:
    raise AssertionError("different per-rank batch shapes were accepted")
print("ok", rank)
