"""LeNet5 on the digits, data-parallel over MPI ranks, as a MindSpore script:

    python -m msmlir.run --nproc 2 examples/lenet5_data_parallel.py [--epochs 8]

Each rank reads its shard of every epoch (`num_shards`/`shard_id`), computes
the gradients of its half of the global batch, and TrainOneStepCell averages
them over the ranks (DATA_PARALLEL: nn.DistributedGradReducer, one all_reduce
per step inside the compiled step), so every rank holds the same parameters.
Rank 0 prints the losses and the test accuracy.
"""
import argparse
import os
import sys
import time

import numpy as np

import msmlir as ms
import msmlir.dataset as ds
from msmlir import nn
from msmlir.communication import get_group_size, get_rank, init
from msmlir.train import LossMonitor, Model

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lenet5 import LeNet5, load_digits_32  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=32, help="global batch (split over the ranks)")
    ap.add_argument("--lr", type=float, default=0.03)
    args = ap.parse_args()

    init()
    rank, size = get_rank(), get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 device_num=size)
    ms.set_seed(1)                                   # the same initial parameters on every rank
    xtr, ytr, xte, yte = load_digits_32()
    train_ds = ds.NumpySlicesDataset({"image": xtr, "label": ytr}, shuffle=True,
                                     num_shards=size, shard_id=rank)
    train_ds = train_ds.batch(args.batch // size, drop_remainder=True)
    test_ds = ds.NumpySlicesDataset({"image": xte, "label": yte}, shuffle=False).batch(args.batch)

    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    model = Model(net, loss_fn, opt, metrics={"accuracy"})
    t0 = time.perf_counter()
    callbacks = [LossMonitor(per_print_times=0)] if rank == 0 else []
    model.train(args.epochs, train_ds, callbacks=callbacks, progress=rank == 0)
    total = time.perf_counter() - t0
    acc = model.eval(test_ds)["accuracy"]
    if rank == 0:
        print(f"{size} ranks, global batch {args.batch}: {total:.1f} s for {args.epochs} epochs, "
              f"test accuracy {acc * 100:.2f}%")
    return acc


if __name__ == "__main__":
    main()
