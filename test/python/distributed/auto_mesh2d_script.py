"""Run by test_auto_parallel.py under mpirun (4 ranks): AUTO_PARALLEL on 4
ranks tries the 1-D mesh (4,) and the 2-D mesh (2, 2) (msmlir.parallel.auto:
meshes, plan) and keeps the cheaper plan. For the MLP below the 2-D plan
wins, is written as layouts on the device matrix (2, 2), and trains (3 SGD
steps of TrainOneStepCell) equal to one process."""

import numpy as np
import msmlir as ms
from msmlir import nn, ops, Tensor, Parameter
from msmlir import communication as comm
from msmlir.parallel import gather_parameter

comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
assert size == 4
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


for shape in ((256, 256, 256, 256),):
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
    assert d.grid == [2, 2], (shape, d.grid)
    # w1 split by columns (its stored layout: the sharding the step's users ask for most)
    grid, axes = net.w1._msmlir_layout
    assert list(grid) == [2, 2] and not axes[0] and axes[1], net.w1._msmlir_layout
    assert net.w1.asnumpy().shape[1] < shape[2], net.w1.asnumpy().shape
print("ok", rank)
