"""Run by test_mesh2d.py under mpirun (4 ranks): a 2x2 device mesh, data
parallel on one axis x Megatron model parallel on the other (MindSpore's
device matrix inferred from the strategies: MatMul ((2, 1), (1, 2)) is
(2, 1, 2), ((2, 2), (2, 1)) is (2, 2, 1): the batch on mesh axis 0, the
hidden dim on axis 1). An MLP trained 3 SGD steps by TrainOneStepCell under
SEMI_AUTO_PARALLEL equals the same network trained in one process; the
row/column collectives run on sub-grid communicators made host side. Then
the function form (ms.parallel.shard) of the same MLP on the 2x2 mesh,
forward, equals numpy."""
import numpy as np
import msmlir as ms
from msmlir import nn, Tensor, Parameter
from msmlir import communication as comm
from msmlir.parallel import gather_parameter
from msmlir.ops import operations as P
from msmlir.runtime import mpi

comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
assert size == 4
ms.set_context(mode=ms.GRAPH_MODE)
B, D, H, O = 8, 16, 32, 8
DP, MP = 2, 2


def param(shape, name, seed):
    rng = np.random.default_rng(seed)
    return Parameter(Tensor((rng.standard_normal(shape) * 0.2).astype(np.float32)), name=name)


class Net(nn.Cell):
    """relu(x @ w1) @ w2: the batch split over DP, w1's columns and w2's rows over MP."""

    def __init__(self, shard):
        super().__init__()
        self.w1, self.w2 = param((D, H), "w1", 0), param((H, O), "w2", 1)
        self.mm1, self.relu, self.mm2 = P.MatMul(), P.ReLU(), P.MatMul()
        if shard:
            self.mm1.shard(((DP, 1), (1, MP)))
            self.relu.shard(((DP, MP),))
            self.mm2.shard(((DP, MP), (MP, 1)))

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


def train(shard, x, y):
    net = Net(shard)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
    return net, step, losses


rng = np.random.default_rng(7)
x = rng.standard_normal((B, D)).astype(np.float32)
y = rng.standard_normal((B, O)).astype(np.float32)
ms.reset_auto_parallel_context()
ref, _, ref_losses = train(False, x, y)
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                             device_num=size, full_batch=True)
net, step, losses = train(True, x, y)
np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
for p, q in zip(net.trainable_params(), ref.trainable_params()):
    np.testing.assert_allclose(gather_parameter(p), q.asnumpy(), rtol=1e-5, atol=1e-6,
                               err_msg=p.name)
# the step ran on the 2x2 mesh: each rank kept its block of the split parameters
(lowered,) = step._graph_fn()._cache.values()
d = lowered.compiled.dispatcher(lowered.name)
assert d.grid == [DP, MP], d.grid
shapes = {p.name: tuple(p.asnumpy().shape) for p in net.trainable_params()}
assert shapes == {"w1": (D, H // MP), "w2": (H // MP, O)}, shapes
# ... its collectives over a row / a column of the mesh load those sub-grids'
# communicators (made host side) instead of MLIR 22's i32 mpi.comm_split
ll = lowered.compiled.compiled.llvm_ir
if ll is not None:
    text = str(ll)
    assert "MPI_Comm_split" not in text
    assert "@msmlir_mpi_group_msmlir_5fmesh_5f2x2_5faxes_5f" in text
# ... and the rows and columns of the mesh got their communicators
assert mpi.group("msmlir_mesh_2x2_axes_0").ranks == [rank % 2, rank % 2 + 2]
assert mpi.group("msmlir_mesh_2x2_axes_1").ranks == [rank // 2 * 2, rank // 2 * 2 + 1]

# a graph compiled later (the forward) takes w1 as stored, its columns on mesh
# axis 1 (which the cut (1, 2) alone would put on axis 0): its layout is
# passed as mesh axes (mindir.layout on the 2x2 device matrix)
W1, W2 = ref.w1.asnumpy(), ref.w2.asnumpy()
np.testing.assert_allclose(np.asarray(net(Tensor(x))), np.maximum(x @ W1, 0) @ W2,
                           rtol=1e-5, atol=1e-5)
assert tuple(net.w1.asnumpy().shape) == (D, H // MP)     # still the rank's slice

# the function form (ms.shard): op strategies inside, inputs whole or with
# one dim cut by device_num (both mesh axes), forward only
mm1, act, mm2 = P.MatMul().shard(((DP, 1), (1, MP))), P.ReLU().shard(((DP, MP),)), \
    P.MatMul().shard(((DP, MP), (MP, 1)))


def mlp(a, w1, w2):
    return mm2(act(mm1(a, w1)), w2)


w1 = rng.standard_normal((D, H)).astype(np.float32)
w2 = rng.standard_normal((H, O)).astype(np.float32)
want = np.maximum(x @ w1, 0) @ w2
for strategy in ((None, None, None), ((size, 1), None, None)):
    got = ms.parallel.shard(mlp, in_strategy=strategy, device_num=size)(x, w1, w2)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5, err_msg=str(strategy))
print("ok", rank)
