"""Run by test_repeated.py under mpirun (4 ranks).

Repeated calculation (MindSpore: a strategy whose cuts use fewer devices
than device_num; the devices of each block compute it alike): on a job of 4
ranks, strategies cutting 2 ways take mesh axis 0 of a 2x2 mesh and axis 1
repeats them (passes/parallel/insert_shardings.py). A Megatron MLP on 2 of
the 4 devices, a data-parallel one on 2 of 4, and one mixing the 2x2 data x
model mesh with ops cut only 2 ways, each trained 3 SGD steps by
TrainOneStepCell under SEMI_AUTO_PARALLEL, equal one process; the function
form (ms.parallel.shard) with 2-way matmul/dense/elementwise strategies,
forward, vs numpy. Part "full_batch_2d": full_batch=False on the 2x2 mesh
(each rank feeds its quarter of the batch) for the mesh2d script's data x
model net and a repeated-calculation one, equal to one process on the
concatenated batch. The test prepends `PART = "..."` (one part per test
file keeps each under a minute on the shared machine); without it both run."""
import numpy as np
import msmlir as ms
from msmlir import nn, ops, Tensor, Parameter
from msmlir import communication as comm
from msmlir.parallel import gather_parameter
from msmlir.ops import operations as P

PART = globals().get("PART", "all")
comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
assert size == 4
ms.set_context(mode=ms.GRAPH_MODE)
B, D, H, O = 8, 16, 32, 8


def param(shape, name, seed):
    rng = np.random.default_rng(seed)
    return Parameter(Tensor((rng.standard_normal(shape) * 0.2).astype(np.float32)), name=name)


class Net(nn.Cell):
    """relu(x @ w1) @ w2 with a strategy per primitive (None: none)."""

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
    # Megatron on 2 of the 4 devices: w1 by columns, w2 by rows (axis 0), axis 1 repeats
    "megatron_on_2": (((1, 1), (1, 2)), ((1, 2),), ((1, 2), (2, 1))),
    # data parallel on 2 of 4
    "batch_on_2": (((2, 1), (1, 1)), ((2, 1),), ((2, 1), (1, 1))),
    # the 2x2 data x model mesh, and ops cut only 2 ways on it
    "mesh_and_2": (((2, 1), (1, 2)), ((2, 1),), ((1, 1), (1, 1))),
}


def train(strategies, xs, ys):
    net = Net(strategies)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in zip(xs, ys)]
    return net, step, losses


def check(name, net, ref, losses, ref_losses):
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6, err_msg=name)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(gather_parameter(p), q.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} {p.name}")


rng = np.random.default_rng(7)
xs = rng.standard_normal((3, B, D)).astype(np.float32)        # 3 global batches
ys = rng.standard_normal((3, B, O)).astype(np.float32)
if PART in ("all", "repeated"):
    for name, strategies in CASES.items():
        ms.reset_auto_parallel_context()
        ref, _, ref_losses = train(strategies, xs, ys)
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                     device_num=size, full_batch=True)
        net, step, losses = train(strategies, xs, ys)
        check(name, net, ref, losses, ref_losses)
        (lowered,) = step._graph_fn()._cache.values()
        d = lowered.compiled.dispatcher(lowered.name)
        assert d.grid == [2, 2], (name, d.grid)
        if name == "megatron_on_2":     # each rank keeps its half of w1's columns / w2's rows
            shapes = {p.name: tuple(p.asnumpy().shape) for p in net.trainable_params()}
            assert shapes == {"w1": (D, H // 2), "w2": (H // 2, O)}, shapes
            # a graph compiled later (the forward alone) takes the stored slices
            w1, w2 = gather_parameter(net.w1), gather_parameter(net.w2)
            out = np.asarray(net(Tensor(xs[0])).asnumpy())
            np.testing.assert_allclose(out, np.maximum(xs[0] @ w1, 0) @ w2, rtol=1e-5, atol=1e-5)
            assert tuple(net.w1.asnumpy().shape) == (D, H // 2)

    # the function form: 2-way strategies on 4 ranks, forward vs numpy
    ms.reset_auto_parallel_context()
    x = xs[0]
    w1 = rng.standard_normal((D, H)).astype(np.float32)
    w2 = rng.standard_normal((H, O)).astype(np.float32)
    wt = np.ascontiguousarray(w1.T)                               # a Dense weight: [out, in]
    mm1, act, mm2 = (P.MatMul().shard(((1, 1), (1, 2))), P.ReLU().shard(((1, 2),)),
                     P.MatMul().shard(((1, 2), (2, 1))))
    dense = P.MatMul(transpose_b=True).shard(((2, 1), (1, 1)))
    add = P.Add().shard(((2, 1), (2, 1)))

    def mlp(a, w1, w2):
        return mm2(act(mm1(a, w1)), w2)

    def dense_add(a, w, c):
        return add(dense(a, w), c)

    want = np.maximum(x @ w1, 0) @ w2
    for strategy in (((2, 1), None, None), ((size, 1), (1, 2), None)):
        got = ms.parallel.shard(mlp, in_strategy=strategy, device_num=size)(x, w1, w2)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5,
                                   err_msg=str(strategy))
    c = rng.standard_normal((B, H)).astype(np.float32)
    got = ms.parallel.shard(dense_add, in_strategy=(None, None, None), device_num=size)(x, wt, c)
    np.testing.assert_allclose(np.asarray(got), x @ w1 + c, rtol=1e-5, atol=1e-5)
    # an output kept split 2 ways: the rank's block (ranks 0, 1 the first half)
    f = ms.parallel.shard(lambda a: ops.exp(a), in_strategy=((2, 1),), out_strategy=((2, 1),),
                          device_num=size)
    got = np.asarray(f(x))
    half = B // 2
    np.testing.assert_allclose(got, np.exp(x[rank // 2 * half:(rank // 2 + 1) * half]), rtol=1e-6)

if PART in ("all", "full_batch_2d"):
    # full_batch=False on the 2x2 mesh: each rank feeds rows [rank*b, (rank+1)*b)
    b = B // size
    mine = slice(rank * b, (rank + 1) * b)
    FULL_BATCH_CASES = {
        "dp_x_mp": (((2, 1), (1, 2)), ((2, 2),), ((2, 2), (2, 1))),     # mesh2d_script's net
        "megatron_on_2": CASES["megatron_on_2"],
    }
    for name, strategies in FULL_BATCH_CASES.items():
        ms.reset_auto_parallel_context()
        ref, _, ref_losses = train(strategies, xs, ys)
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                     device_num=size, full_batch=False)
        net, step, losses = train(strategies, xs[:, mine], ys[:, mine])
        check(f"full_batch=False {name}", net, ref, losses, ref_losses)
        (lowered,) = step._graph_fn()._cache.values()
        assert lowered.per_rank_args == (0, 1), lowered.per_rank_args
        d = lowered.compiled.dispatcher(lowered.name)
        assert d.grid == [2, 2], (name, d.grid)
        assert [s for s, _ in d.sig.inputs[:2]] == [(b, D), (b, O)], d.sig.inputs

    # a jit function under full_batch=False on the 2x2 mesh (an op cut 2 ways on
    # 4 ranks): the result as long as the global batch is the rank's rows, the
    # other one whole
    ex = P.Exp().shard(((1, 2),))

    @ms.jit
    def per_rank(a):
        return ex(a) * 2.0, a.sum(0)

    two, total = per_rank(xs[0, mine])
    np.testing.assert_allclose(np.asarray(two), np.exp(xs[0, mine]) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(total), xs[0].sum(0), rtol=1e-5, atol=1e-6)
    (lowered,) = per_rank._cache.values()
    assert lowered.compiled.dispatcher(lowered.name).grid == [2, 2]
print("ok", rank)
