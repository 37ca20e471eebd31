"""Run by test_adasum.py under mpirun: AdaSumByGradWrapCell vs a numpy
reference of the seed's formula and tree (a zero and a parallel gradient included)."""
import numpy as np
import msmlir as ms
from msmlir import nn, Tensor
from msmlir import communication as comm
from msmlir.nn.adasum import AdaSumByGradWrapCell
comm.init()
rank, size = comm.get_rank(), comm.get_group_size()
ms.set_context(mode=ms.GRAPH_MODE)

def adasum_np(a, b):
    dot = float(a.ravel() @ b.ravel())
    na, nb = float(a.ravel() @ a.ravel()), float(b.ravel() @ b.ravel())
    ca = 1 - (dot / (2 * na) if na > 0 else 0)
    cb = 1 - (dot / (2 * nb) if nb > 0 else 0)
    return ca * a + cb * b

def tree_np(rows):
    while len(rows) > 1:
        nxt = [adasum_np(rows[i], rows[i + 1]) for i in range(0, len(rows) - 1, 2)]
        if len(rows) % 2: nxt.append(rows[-1])
        rows = nxt
    return rows[0]

rng = np.random.default_rng(7)
shapes = [(4, 3), (5,), (2, 2, 2)]
grads_all = [[rng.standard_normal(s).astype(np.float64) for s in shapes] for _ in range(size)]
grads_all[0][1][:] = 0.0            # a zero gradient on rank 0
grads_all[size - 1][2] = grads_all[0][2] * 3.0   # parallel gradients
params = [ms.Parameter(Tensor(np.zeros(s, np.float64)), name=f"w{i}") for i, s in enumerate(shapes)]
opt = nn.SGD(params, learning_rate=1.0)
wrap = AdaSumByGradWrapCell(opt)

@ms.jit
def apply(g0, g1, g2):
    return wrap((g0, g1, g2))

apply(*[Tensor(g) for g in grads_all[rank]])
for i, p in enumerate(params):
    want = -tree_np([grads_all[r][i] for r in range(size)])
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12, atol=1e-12)
print("ok", rank)
