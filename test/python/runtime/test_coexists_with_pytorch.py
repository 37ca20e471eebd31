"""msmlir shares a process with PyTorch: `import msmlir` makes no MLIR/LLVM
symbol global, so PyTorch's Triton (which carries its own MLIR) keeps binding
to its own copy. With msmlir's dialect library or runtime libraries loaded
RTLD_GLOBAL, the PyTorch training loop below died with `realloc(): invalid old
size` / `mremap_chunk(): invalid pointer`. Run in a fresh interpreter so the
import order is the user's."""
import subprocess
import sys

import pytest

pytest.importorskip("torch")

SCRIPT = r"""
import numpy as np
import msmlir
from msmlir import ops

f = msmlir.jit(lambda a, b: ops.tanh(ops.matmul(a, b)).sum(axis=1))
a = np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32)
b = np.random.default_rng(1).standard_normal((16, 4)).astype(np.float32)
np.testing.assert_allclose(np.asarray(f(a, b)), np.tanh(a @ b).sum(1), rtol=1e-5, atol=1e-5)

import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(256, 16), torch.randn(256, 1)
losses = []
for _ in range(5):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < losses[0], losses

g = msmlir.jit(lambda a: ops.exp(a) * 2.0)   # a new compile after PyTorch ran
np.testing.assert_allclose(np.asarray(g(a)), np.exp(a) * 2, rtol=1e-5)
maps = open("/proc/self/maps").read()
print("ok", "libMLIR.so" in maps)
"""


def test_pytorch_training_and_msmlir_in_one_process():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split()[0] == "ok"
