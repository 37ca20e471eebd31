"""Run by test_data_parallel.py under `python -m msmlir.run --nproc 2`:
Model.train in DATA_PARALLEL mode on a rank-sharded dataset (num_shards /
shard_id), step by step and in sink mode (sink_size=3: 3 steps per compiled
call, each all-reducing its gradients), vs one process training on the
concatenation of the ranks' batches (1e-6)."""
import numpy as np
import msmlir as ms
import msmlir.dataset as ds
from msmlir import nn, Tensor
from msmlir import communication as comm
from msmlir.train import Model
comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
# MindSpore's GlobalComm: initialized, its world group is the world
assert comm.GlobalComm.INITED and comm.GlobalComm.BACKEND == "mpi"
assert comm.get_rank(comm.GlobalComm.WORLD_COMM_GROUP) == rank
assert comm.get_group_size(comm.GlobalComm.WORLD_COMM_GROUP) == size == 2
ms.set_context(mode=ms.GRAPH_MODE)

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.f1 = nn.Dense(12, 16); self.f2 = nn.Dense(16, 5); self.relu = nn.ReLU()
    def construct(self, x):
        return self.f2(self.relu(self.f1(x)))

def make(seed=0):
    net = Net()
    rng = np.random.default_rng(seed)
    for p in net.trainable_params():
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.3).astype(np.float32)))
    return net

rng = np.random.default_rng(1)
ROWS, B, STEPS = 48, 4, 6                 # per-rank batch B, 6 steps of 2B rows
X = rng.standard_normal((ROWS, 12)).astype(np.float32)
Y = rng.integers(0, 5, ROWS).astype(np.int32)
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

# one process on the whole batches: shard r holds rows r, r + size, ... (DistributedSampler)
ref = make()
rstep = nn.TrainOneStepCell(nn.WithLossCell(ref, loss_fn), nn.Momentum(ref.trainable_params(), 0.1, 0.9))
order = [np.arange(r, ROWS, size)[s * B:(s + 1) * B] for s in range(STEPS) for r in range(size)]
for s in range(STEPS):
    rows = np.concatenate(order[s * size:(s + 1) * size])
    rstep(Tensor(X[rows]), Tensor(Y[rows]))

ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                             device_num=size)
for sink in (False, True):
    net = make()
    data = ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False, num_shards=size,
                                 shard_id=rank).batch(B, drop_remainder=True)
    model = Model(net, loss_fn, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(1, data, dataset_sink_mode=sink, sink_size=3 if sink else -1, progress=False)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"sink={sink} {p.name}")
    print("ok", "sink" if sink else "steps", rank)
