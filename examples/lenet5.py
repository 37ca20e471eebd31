"""LeNet5 (MindSpore model_zoo definition) trained with msmlir on scikit-learn's
8x8 digits, upsampled to 32x32 — a MindSpore 2.x script with
`import msmlir as ms` in place of `import mindspore as ms`.

    python examples/lenet5.py [--epochs 8] [--batch 32]

Prints per-epoch loss (with a progress bar), the train-step compile time,
training throughput (images/s) and the test accuracy.
"""
import argparse
import time

import numpy as np

import msmlir as ms
import msmlir.dataset as ds
from msmlir import nn
from msmlir.common.initializer import Normal
from msmlir.train import LossMonitor, Model


class LeNet5(nn.Cell):
    """LeNet-5 as in MindSpore's model_zoo (lenet.py)."""

    def __init__(self, num_class=10, num_channel=1, include_top=True):
        super(LeNet5, self).__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode='valid')
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.include_top = include_top
        if self.include_top:
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
            self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
            self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))

    def construct(self, x):
        x = self.conv1(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.conv2(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        if not self.include_top:
            return x
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def load_digits_32(test_fraction=0.2, seed=0):
    from sklearn.datasets import load_digits
    d = load_digits()
    x = d.images.astype(np.float32) / 16.0                      # (1797, 8, 8) in [0, 1]
    x = np.repeat(np.repeat(x, 4, axis=1), 4, axis=2)           # nearest upsampling to 32x32
    x = ((x - 0.5) / 0.5)[:, None, :, :].astype(np.float32)     # (N, 1, 32, 32), normalised
    y = d.target.astype(np.int32)
    idx = np.random.RandomState(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    te, tr = idx[:n_test], idx[n_test:]
    return x[tr], y[tr], x[te], y[te]


class StepTimer(ms.train.Callback):
    """Times the first step (compile + run) and the steady-state steps."""

    def __init__(self, batch):
        self.batch = batch
        self.first = None
        self.times = []

    def on_train_step_begin(self, run_context):
        self._t = time.perf_counter()

    def on_train_step_end(self, run_context):
        dt = time.perf_counter() - self._t
        if self.first is None:
            self.first = dt
        else:
            self.times.append(dt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.03)
    ap.add_argument("--pynative", action="store_true")
    args = ap.parse_args()

    ms.set_context(mode=ms.PYNATIVE_MODE if args.pynative else ms.GRAPH_MODE, device_target="CPU")
    ms.set_seed(1)
    xtr, ytr, xte, yte = load_digits_32()
    print(f"digits: {len(xtr)} train / {len(xte)} test images, 1x32x32")
    train_ds = ds.NumpySlicesDataset({"image": xtr, "label": ytr}, shuffle=True)
    train_ds = train_ds.batch(args.batch, drop_remainder=True)
    test_ds = ds.NumpySlicesDataset({"image": xte, "label": yte}, shuffle=False).batch(args.batch)

    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    opt = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    model = Model(net, loss_fn, opt, metrics={'accuracy'})

    timer = StepTimer(args.batch)
    t0 = time.perf_counter()
    model.train(args.epochs, train_ds, callbacks=[timer, LossMonitor(per_print_times=0)])
    total = time.perf_counter() - t0
    steady = float(np.sum(timer.times))
    n_img = len(timer.times) * args.batch
    acc = model.eval(test_ds)['accuracy']
    print(f"train-step compile time (first step incl. compile): {timer.first:.2f} s")
    print(f"training throughput: {n_img / steady:.0f} images/s "
          f"({steady / len(timer.times) * 1000:.2f} ms/step, batch {args.batch})")
    print(f"total training time: {total:.1f} s for {args.epochs} epochs")
    print(f"test accuracy: {acc * 100:.2f}%")
    return acc


if __name__ == "__main__":
    main()
