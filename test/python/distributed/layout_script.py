"""Run by test_layout.py under mpirun (4 ranks): MindSpore's Layout on a
user-given device matrix (2, 2) named ("dp", "mp"), with layouts no tuple of
cuts can say (a cut means the leading mesh axes): the batch over "mp" (mesh
axis 1), w1's columns over "dp" (axis 0), a dim over both axes in the order
("mp", "dp"). Trained 3 SGD steps under SEMI_AUTO_PARALLEL it equals one
process; each rank keeps the block of w1 its "dp" coordinate names; a graph
compiled later (the forward) takes the stored slices as they are; Cell.shard
with layouts (inputs and parameter_plan) trains equal too; the function form
(parallel.shard) with layout inputs equals numpy; a mesh axis on two dims of
a matmul is a ShardingError at the matmul."""
import numpy as np
import msmlir as ms
from msmlir import nn, Tensor, Parameter
from msmlir import communication as comm
from msmlir.parallel import Layout, annotate, gather_parameter
from msmlir.ops import operations as P

comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
assert size == 4
ms.set_context(mode=ms.GRAPH_MODE)
B, D, H, O = 8, 16, 32, 8
layout = Layout((2, 2), ("dp", "mp"))
dp, mp = rank // 2, rank % 2                 # this rank's coordinates on the matrix


def param(shape, name, seed):
    rng = np.random.default_rng(seed)
    return Parameter(Tensor((rng.standard_normal(shape) * 0.2).astype(np.float32)), name=name)


class Net(nn.Cell):
    def __init__(self, shard):
        super().__init__()
        self.w1, self.w2 = param((D, H), "w1", 0), param((H, O), "w2", 1)
        self.mm1, self.relu, self.mm2 = P.MatMul(), P.ReLU(), P.MatMul()
        self.shard_ = shard

    def construct(self, x):
        h = self.mm1(x, self.w1)
        if self.shard_:
            annotate(h, in_strategy=(layout("mp", "None"), layout("None", "dp")))
        r = self.relu(h)
        if self.shard_:
            annotate(r, in_strategy=(layout("mp", "dp"),))
        y = self.mm2(r, self.w2)
        if self.shard_:
            annotate(y, in_strategy=(layout("mp", "dp"), layout("dp", "None")))
        return y


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = param((D, O), "w", 2)

    def construct(self, x):
        return ms.ops.tanh(ms.ops.matmul(x, self.w))


def train(net, x, y):
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1))
    return step, [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]


rng = np.random.default_rng(7)
x = rng.standard_normal((B, D)).astype(np.float32)
y = rng.standard_normal((B, O)).astype(np.float32)
ms.reset_auto_parallel_context()
ref = Net(False)
_, ref_losses = train(ref, x, y)
ref_block = Block()
_, ref_block_losses = train(ref_block, x, y)

ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                             device_num=size, full_batch=True)
net = Net(True)
step, losses = train(net, x, y)
np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
W1, W2 = ref.w1.asnumpy(), ref.w2.asnumpy()
for p, q in ((net.w1, W1), (net.w2, W2)):
    np.testing.assert_allclose(gather_parameter(p), q, rtol=1e-5, atol=1e-6, err_msg=p.name)
(lowered,) = step._graph_fn()._cache.values()
assert lowered.compiled.dispatcher(lowered.name).grid == [2, 2]
# w1's columns over "dp" (mesh axis 0): the block of this rank's dp coordinate,
# which a cut of 2 (the leading axis) would also give; w2's rows over "dp" too
np.testing.assert_allclose(net.w1.asnumpy(), W1[:, dp * H // 2:(dp + 1) * H // 2],
                           rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(net.w2.asnumpy(), W2[dp * H // 2:(dp + 1) * H // 2],
                           rtol=1e-5, atol=1e-6)
# a later graph (the forward) takes the slices in their stored layout
want = np.maximum(x @ W1, 0) @ W2
np.testing.assert_allclose(np.asarray(net(Tensor(x))), want, rtol=1e-5, atol=1e-5)

# Cell.shard with layouts: the input's rows over ("mp", "dp") (4 blocks, in
# the order mp-major); then the rows over "mp" and the parameter's columns
# over "dp" (parameter_plan)
for in_layout, plan, col in (((("mp", "dp"), "None"), None, None),
                             (("mp", "None"), ("None", "dp"), dp)):
    block = Block()
    block.shard(in_strategy=(layout(*in_layout),),
                parameter_plan=None if plan is None else {"w": layout(*plan)})
    _, block_losses = train(block, x, y)
    np.testing.assert_allclose(block_losses, ref_block_losses, rtol=1e-5, atol=1e-6)
    want = ref_block.w.asnumpy()
    np.testing.assert_allclose(gather_parameter(block.w), want, rtol=1e-5, atol=1e-6)
    if col is not None:
        np.testing.assert_allclose(block.w.asnumpy(), want[:, col * O // 2:(col + 1) * O // 2],
                                   rtol=1e-5, atol=1e-6)


# the function form: inputs given as layouts, the rows of a over ("mp", "dp")
def mlp(a, w1, w2):
    return ms.ops.matmul(ms.ops.relu(ms.ops.matmul(a, w1)), w2)


w1 = rng.standard_normal((D, H)).astype(np.float32)
w2 = rng.standard_normal((H, O)).astype(np.float32)
for strategy in ((layout(("mp", "dp"), "None"), None, None),
                 (layout("mp", "None"), layout("None", "dp"), layout("dp", "None"))):
    f = ms.parallel.shard(mlp, in_strategy=strategy, device_num=size)
    np.testing.assert_allclose(np.asarray(f(x, w1, w2)), np.maximum(x @ w1, 0) @ w2,
                               rtol=1e-5, atol=1e-5, err_msg=str(strategy))
# one mesh axis on two dims of a matmul (x's rows and w1's columns over "dp"):
# an error at the matmul, on every rank
f = ms.parallel.shard(mlp, in_strategy=(layout("dp", "None"), layout("None", "dp"), None),
                      device_num=size)
try:
    f(x, w1, w2)
except ms.parallel.ShardingError as e:
    assert "are both split over mesh axis 0: a mesh axis can cut only one dim of an op" \
        in str(e), e
else:
    raise AssertionError("one mesh axis on two dims of a matmul was accepted")
print("ok", rank)
