"""Run by test_semi_auto_parallel.py under mpirun (2 ranks): a Megatron MLP
(first matmul column-split, second row-split, set with Primitive.shard)
trained 3 SGD steps by TrainOneStepCell under
set_auto_parallel_context(parallel_mode=SEMI_AUTO_PARALLEL), vs the same
network trained in one process. Both variants: plain `x @ w` and MindSpore's
Dense layout (`MatMul(transpose_b=True)`, weights [out, in], with biases),
and one with a mean over the split hidden dim (ReduceMean, Sub with
broadcasting)."""
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


class Megatron(nn.Cell):
    """relu(x @ w1) @ w2: w1 split by columns, w2 by rows (one all_reduce)."""

    def __init__(self, shard):
        super().__init__()
        self.w1, self.w2 = param((D, H), "w1", 0), param((H, O), "w2", 1)
        self.mm1, self.relu, self.mm2 = P.MatMul(), P.ReLU(), P.MatMul()
        if shard:
            self.mm1.shard(((1, 1), (1, size)))
            self.relu.shard(((1, size),))
            self.mm2.shard(((1, size), (size, 1)))

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


class MegatronDense(nn.Cell):
    """Dense layout: y = x @ W^T + b, W [out, in]; column split = W's rows."""

    def __init__(self, shard):
        super().__init__()
        self.w1, self.b1 = param((H, D), "w1", 2), param((H,), "b1", 3)
        self.w2, self.b2 = param((O, H), "w2", 4), param((O,), "b2", 5)
        self.mm1, self.mm2 = P.MatMul(transpose_b=True), P.MatMul(transpose_b=True)
        self.add1, self.add2, self.act = P.Add(), P.Add(), P.Tanh()
        if shard:
            self.mm1.shard(((1, 1), (size, 1)))
            self.add1.shard(((1, size), (size,)))
            self.act.shard(((1, size),))
            self.mm2.shard(((1, size), (1, size)))

    def construct(self, x):
        h = self.act(self.add1(self.mm1(x, self.w1), self.b1))
        return self.add2(self.mm2(h, self.w2), self.b2)


class MegatronCentered(nn.Cell):
    """Megatron with a reduction over the split hidden dim (partial means,
    all-reduced) and a broadcast elementwise op: relu(h - mean(h)) @ w2."""

    def __init__(self, shard):
        super().__init__()
        self.w1, self.w2 = param((D, H), "w1", 6), param((H, O), "w2", 7)
        self.mm1, self.mm2 = P.MatMul(), P.MatMul()
        self.mean, self.sub, self.relu = P.ReduceMean(keep_dims=True), P.Sub(), P.ReLU()
        if shard:
            self.mm1.shard(((1, 1), (1, size)))
            self.mean.shard(((1, size),))
            self.sub.shard(((1, size), (1, 1)))
            self.relu.shard(((1, size),))
            self.mm2.shard(((1, size), (size, 1)))

    def construct(self, x):
        h = self.mm1(x, self.w1)
        return self.mm2(self.relu(self.sub(h, self.mean(h, 1))), self.w2)


def train(cls, shard, x, y):
    net = cls(shard)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
    return net, step, losses


rng = np.random.default_rng(7)
x = rng.standard_normal((B, D)).astype(np.float32)
y = rng.standard_normal((B, O)).astype(np.float32)
for cls, splits in ((Megatron, {"w1": 1, "w2": 0}), (MegatronDense, {"w1": 0, "w2": 1, "b1": 0}),
                     (MegatronCentered, {"w1": 1, "w2": 0})):
    ms.reset_auto_parallel_context()
    ref, _, ref_losses = train(cls, False, x, y)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                 device_num=size, full_batch=True)
    net, step, losses = train(cls, True, x, y)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6, err_msg=cls.__name__)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(gather_parameter(p), q.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{cls.__name__} {p.name}")
    # the step really ran sharded: each rank got the slices of the strategies
    (lowered,) = step._graph_fn()._cache.values()
    d = lowered.compiled.dispatcher(lowered.name)
    dims = dict(zip([p.name for p in lowered.params], d.dims[2:]))
    for name, dim in splits.items():
        assert dims[name] == dim, (cls.__name__, dims)
    # ... and each rank keeps only its slice of the split parameters
    whole = {q.name: q.shape for q in ref.trainable_params()}
    for p in net.trainable_params():
        shape = list(whole[p.name])
        if p.name in splits:
            shape[splits[p.name]] //= size
        assert list(p.asnumpy().shape) == shape, (cls.__name__, p.name, p.asnumpy().shape)
    # a graph compiled later (the forward alone) takes the slices as they are stored
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), ref(Tensor(x)).asnumpy(), rtol=1e-5,
                               atol=1e-6, err_msg=f"{cls.__name__} forward after training")
    assert d.dims[:2] == [None, None], d.dims            # x, y: whole on every rank
print("ok", rank)
