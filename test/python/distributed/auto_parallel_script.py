"""Run by test_auto_parallel.py under mpirun (2 ranks): an MLP trained 3 SGD
steps by TrainOneStepCell under set_auto_parallel_context(AUTO_PARALLEL), the
cost model (msmlir.parallel.auto) choosing the strategies, vs one-process
training; for big weights it picks Megatron (w1 by columns, w2 by rows), for
a big batch data parallel (x by rows, weights whole), for a tiny one nothing;
and with full_batch=False (each rank feeding its half of the batch)."""
import numpy as np
import msmlir as ms
from msmlir import nn, ops, Tensor, Parameter
from msmlir import communication as comm
from msmlir.parallel import gather_parameter

comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
assert size == 2
ms.set_context(mode=ms.GRAPH_MODE)


class MLP(nn.Cell):
    def __init__(self, d, h, o):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor((rng.standard_normal((d, h)) / np.sqrt(d)).astype(np.float32)),
                            name="w1")
        self.w2 = Parameter(Tensor((rng.standard_normal((h, o)) / np.sqrt(h)).astype(np.float32)),
                            name="w2")

    def construct(self, x):
        return ops.matmul(ops.relu(ops.matmul(x, self.w1)), self.w2)


def train(shape):
    b, d, h, o = shape
    net = MLP(d, h, o)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((b, d)).astype(np.float32)
    y = rng.standard_normal((b, o)).astype(np.float32)
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
    return net, step, losses


# (shape, expected split dim of (x, y, w1, w2) on a rank)
CASES = [((32, 256, 256, 256), [None, 0, 1, 0]),         # Megatron (the loss on row halves)
         ((4096, 16, 16, 16), [0, 0, None, None]),        # data parallel
         ((4, 8, 8, 8), [None, None, None, None])]         # too small to split
for shape, dims in CASES:
    ms.reset_auto_parallel_context()
    ref, _, ref_losses = train(shape)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.AUTO_PARALLEL, device_num=size,
                                 full_batch=True)
    net, step, losses = train(shape)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6, err_msg=str(shape))
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(gather_parameter(p), q.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{shape} {p.name}")
    (lowered,) = step._graph_fn()._cache.values()
    d = lowered.compiled.dispatcher(lowered.name)
    assert d.dims[:4] == dims, (shape, d.dims)
# full_batch=False: each rank feeds its half of the batch (the planner starts
# x and y split on dim 0); equal to one process on the whole batch
shape = (32, 256, 256, 256)
ms.reset_auto_parallel_context()
ref, _, ref_losses = train(shape)
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.AUTO_PARALLEL, device_num=size,
                             full_batch=False)
b, d, h, o = shape
net = MLP(d, h, o)
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                           nn.SGD(net.trainable_params(), learning_rate=0.1))
rng = np.random.default_rng(1)
x = rng.standard_normal((b, d)).astype(np.float32)
y = rng.standard_normal((b, o)).astype(np.float32)
half = slice(rank * b // size, (rank + 1) * b // size)
losses = [float(step(Tensor(x[half]), Tensor(y[half])).asnumpy()) for _ in range(3)]
np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
for p, q in zip(net.trainable_params(), ref.trainable_params()):
    np.testing.assert_allclose(gather_parameter(p), q.asnumpy(), rtol=1e-5, atol=1e-6,
                               err_msg=f"full_batch=False {p.name}")
print("ok", rank)
