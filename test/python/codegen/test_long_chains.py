"""A Python-unrolled loop is a chain of hundreds of elementwise ops: upstream
elementwise fusion made its compile time quadratic (2000 steps: 24 s); with
msmlir-bound-elementwise-fusion the chain is cut into kernels of at most 64
ops. The result is still right."""
import numpy as np

import msmlir as ms

STEPS = 300


def damped(x):
    for _ in range(STEPS):
        x = x * 0.999 + 0.001
    return x


def test_a_long_unrolled_chain_compiles_and_is_right():
    x = np.linspace(-1, 1, 8).astype(np.float32)
    ref = x.astype(np.float64)
    for _ in range(STEPS):
        ref = ref * 0.999 + 0.001
    np.testing.assert_allclose(np.asarray(ms.jit(damped)(x)), ref, rtol=1e-4, atol=1e-5)
    ir = ms.jit(damped).mlir(x)
    assert ir.count("mindir.mul") == STEPS
