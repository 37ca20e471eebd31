"""Run by test_data_parallel.py under mpirun (2 ranks): data-parallel LeNet5
with nn.DistributedGradReducer, and TrainOneStepCell in DATA_PARALLEL mode, vs
single-process training on the whole batch."""
import numpy as np
import msmlir as ms
from msmlir import nn, ops, Tensor
from msmlir import communication as comm
from msmlir.nn.distributed import DistributedGradReducer
comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
ms.set_context(mode=ms.GRAPH_MODE)

class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
        self.c2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True)
        self.pool = nn.MaxPool2d(2, 2); self.relu = nn.ReLU(); self.flatten = nn.Flatten()
        self.f1 = nn.Dense(400, 120); self.f2 = nn.Dense(120, 84); self.f3 = nn.Dense(84, 10)
    def construct(self, x):
        x = self.pool(self.relu(self.c1(x))); x = self.pool(self.relu(self.c2(x)))
        x = self.flatten(x); x = self.relu(self.f1(x)); x = self.relu(self.f2(x))
        return self.f3(x)

def make(seed=0):
    net = LeNet5()
    rng = np.random.default_rng(seed)
    for p in net.trainable_params():
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.1).astype(np.float32)))
    return net

rng = np.random.default_rng(1)
X = rng.standard_normal((8, 1, 32, 32)).astype(np.float32)
Y = rng.integers(0, 10, 8).astype(np.int32)
B = 8 // size
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

net = make()
opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss_fn), None, opt.parameters)
reducer = DistributedGradReducer(opt.parameters, mean=True)
@ms.jit
def step(x, y):
    loss, grads = grad_fn(x, y)
    opt(reducer(grads))
    return loss

ref = make()
ropt = nn.SGD(ref.trainable_params(), learning_rate=0.1)
rstep = nn.TrainOneStepCell(nn.WithLossCell(ref, loss_fn), ropt)
# MindSpore's way: TrainOneStepCell reduces the gradients itself in DATA_PARALLEL mode
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
auto = make()
astep = nn.TrainOneStepCell(nn.WithLossCell(auto, loss_fn), nn.SGD(auto.trainable_params(), learning_rate=0.1))
assert astep.grad_reducer is not None
for s in range(3):
    mine = Tensor(X[rank * B:(rank + 1) * B]), Tensor(Y[rank * B:(rank + 1) * B])
    step(*mine)
    astep(*mine)
    rstep(Tensor(X), Tensor(Y))
    for p, q, a in zip(net.trainable_params(), ref.trainable_params(), auto.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=f"step {s} {p.name}")
        np.testing.assert_allclose(a.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=f"auto step {s} {p.name}")
print("ok", rank)
