"""Demo: a small MLP forward pass compiled by msmlir to native CPU code.

The function is parsed from its source (not traced) into the mindir dialect,
lowered through linalg and LLVM, JIT-compiled, and run on numpy arrays. The
result is printed next to numpy's.
"""
import time

import numpy as np

import msmlir as ms
from msmlir import ops


@ms.jit
def mlp(x, w1, b1, w2, b2):
    h = ops.relu(ops.matmul(x, w1) + b1)
    logits = ops.matmul(h, w2) + b2
    return ops.softmax(logits, axis=-1)


def mlp_numpy(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0)
    z = h @ w2 + b2
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    w1 = (rng.standard_normal((64, 32)) / 8).astype(np.float32)
    b1 = (rng.standard_normal(32) / 8).astype(np.float32)
    w2 = (rng.standard_normal((32, 10)) / 6).astype(np.float32)
    b2 = (rng.standard_normal(10) / 6).astype(np.float32)

    print("mindir compiled from the Python source:\n")
    print(mlp.lower(x, w1, b1, w2, b2))

    t0 = time.perf_counter()
    got = mlp(x, w1, b1, w2, b2)
    t1 = time.perf_counter()
    ref = mlp_numpy(x, w1, b1, w2, b2)
    np.set_printoptions(precision=5, suppress=True)
    print(f"msmlir (compiled in {1e3 * (t1 - t0):.0f} ms), first row:\n{got[0]}")
    print(f"numpy, first row:\n{ref[0]}")
    err = float(np.abs(got - ref).max())
    print(f"max |msmlir - numpy| over {got.size} outputs: {err:.2e}")
    if not err < 1e-5:
        raise SystemExit("MISMATCH")


if __name__ == "__main__":
    main()
