"""A Megatron-style MLP trained with semi-auto parallelism on MPI ranks, as a
MindSpore script:

    python -m msmlir.run --nproc 2 examples/mlp_semi_auto_parallel.py [--epochs 5]

The network is written with MindSpore's Dense layout (`MatMul(transpose_b=True)`,
weights [out, in]) and `Primitive.shard` strategies: the first layer is split
by output columns (each rank holds half of W1's rows and of b1), the second
by its input rows (half of W2's columns), so the hidden activations stay
split and one all_reduce per forward adds the second layer's partial sums.
Under `set_auto_parallel_context(parallel_mode=SEMI_AUTO_PARALLEL)` the
compiled train step (forward, backward, Momentum update) and the eval graph
go through msmlir-cpu-shard-pipeline: upstream MLIR's sharding-propagation
shards the backward ops too, shard-partition writes each rank's program and
its collectives run over MPI. Every rank feeds the whole batch (MindSpore's
full_batch) and keeps only its slices of the split parameters (half of W1,
b1 and W2, and of their Momentum state), updated in place without a gather.

With --check, the same network is also trained in this process without
sharding and the largest parameter difference is printed.
"""
import argparse
import time

import numpy as np

import msmlir as ms
import msmlir.dataset as ds
from msmlir import Parameter, Tensor, nn, parallel
from msmlir.communication import get_group_size, get_rank, init
from msmlir.ops import operations as P
from msmlir.train import LossMonitor, Model


class ShardedDense(nn.Cell):
    """y = x @ W^T + b with W [out, in]; `split` = "column" cuts the outputs
    (W's rows, b), "row" cuts the inputs (W's columns: partial sums)."""

    def __init__(self, d_in, d_out, split, n, seed, activation=None):
        super().__init__()
        rng = np.random.default_rng(seed)
        bound = 1 / np.sqrt(d_in)
        w = rng.uniform(-bound, bound, (d_out, d_in)).astype(np.float32)
        self.weight = Parameter(Tensor(w), name="weight")
        self.bias = Parameter(Tensor(rng.uniform(-bound, bound, (d_out,)).astype(np.float32)),
                              name="bias")
        self.matmul, self.add = P.MatMul(transpose_b=True), P.Add()
        self.act = P.ReLU() if activation == "relu" else None
        if split == "column" and n > 1:
            self.matmul.shard(((1, 1), (n, 1)))
            self.add.shard(((1, n), (n,)))
            if self.act is not None:
                self.act.shard(((1, n),))
        elif split == "row" and n > 1:
            self.matmul.shard(((1, n), (1, n)))

    def construct(self, x):
        y = self.add(self.matmul(x, self.weight), self.bias)
        return self.act(y) if self.act is not None else y


class MegatronMLP(nn.Cell):
    def __init__(self, d_in, hidden, classes, n):
        super().__init__()
        self.fc1 = ShardedDense(d_in, hidden, "column", n, seed=0, activation="relu")
        self.fc2 = ShardedDense(hidden, classes, "row", n, seed=1)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def load_digits(test_fraction=0.2, seed=0):
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data.astype(np.float32) / 8.0 - 1.0)                 # (1797, 64) in [-1, 1]
    y = d.target.astype(np.int32)
    idx = np.random.RandomState(seed).permutation(len(x))       # the same order on every rank
    n_test = int(len(x) * test_fraction)
    return x[idx[n_test:]], y[idx[n_test:]], x[idx[:n_test]], y[idx[:n_test]]


def build(n, lr):
    net = MegatronMLP(64, 256, 10, n)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
    return net, Model(net, loss_fn, opt, metrics={"accuracy"})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--check", action="store_true", help="compare with unsharded training")
    args = ap.parse_args()

    init()
    rank, size = get_rank(), get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    xtr, ytr, xte, yte = load_digits()

    def datasets():   # no shuffling, no sharding: every rank reads the same whole batches
        train = ds.NumpySlicesDataset({"x": xtr, "y": ytr}, shuffle=False)
        test = ds.NumpySlicesDataset({"x": xte, "y": yte}, shuffle=False)
        return train.batch(args.batch, drop_remainder=True), test.batch(args.batch)

    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                 device_num=size, full_batch=True)
    net, model = build(size, args.lr)
    train_ds, test_ds = datasets()
    t0 = time.perf_counter()
    callbacks = [LossMonitor(per_print_times=0)] if rank == 0 else []
    model.train(args.epochs, train_ds, callbacks=callbacks, progress=rank == 0)
    total = time.perf_counter() - t0
    acc = model.eval(test_ds)["accuracy"]
    if rank == 0:
        print(f"semi-auto parallel on {size} ranks: {total:.1f} s for {args.epochs} epochs, "
              f"test accuracy {acc * 100:.2f}%")
    if args.check:
        ms.reset_auto_parallel_context()
        ref, ref_model = build(1, args.lr)
        ref_model.train(args.epochs, datasets()[0], progress=False)
        # a split parameter is kept sliced on each rank: gathered to compare
        diff = max(float(np.abs(parallel.gather_parameter(p) - q.asnumpy()).max())
                   for p, q in zip(net.trainable_params(), ref.trainable_params()))
        if rank == 0:
            print(f"largest parameter difference vs one process: {diff:.2e}")
    return acc


if __name__ == "__main__":
    main()
