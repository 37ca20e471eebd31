"""Double-buffered cube kernels (cube.py): two buffers per queue (L1, L0A/L0B,
L0C), the next K step's A and B tiles copied in before this step's
Split/Mmad; the emulator holds the schedule to the queue depth (with one
buffer the prefetch finds none free), the report says double buffering is
on, and the cost model's estimate is below the serial one."""
import copy

import numpy as np
import pytest

import msmlir.ascend as A
from msmlir.ascend.emulator import EmulatedKernel, build
from msmlir.passes.ascend import cost, emit

pytestmark = pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")

RNG = np.random.default_rng(11)


def _mm(M, K, N):
    return f"""func.func @f(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %r = mindir.matmul %a, %b : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}"""


@pytest.fixture(scope="module")
def kernel():
    # 2 x 2 tiles of 128 x 128 (tails 72 and 2), 5 K steps of 64 (the last 44): one tile per core
    return A.compile_kernel(_mm(200, 300, 130), cores=2)


def test_double_buffered_matmul_numerics_and_report(kernel):
    a = RNG.standard_normal((200, 300)).astype(np.float32)
    b = RNG.standard_normal((300, 130)).astype(np.float32)
    (c,) = kernel.run(a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    t, r = kernel.plan.cube["tiling"], kernel.report
    assert kernel.plan.cube["depth"] == (2, 2) and r["double_buffer"] is True
    assert (t["baseM"], t["baseN"], t["baseK"], t["tilesPerCore"]) == (128, 128, 64, 2)
    # both buffers of each queue are reserved, and that is what the emulator saw in use
    assert r["l0a_bytes"] == 2 * 128 * 64 * 4 == r["measured"]["peak_l0a"]
    assert r["l0c_bytes"] == 2 * 128 * 128 * 4 == r["measured"]["peak_l0c"] == 128 * 1024
    assert "constexpr int32_t BUFFER_NUM = 2;" in kernel.source
    assert "if (s + 1 < steps) CopyIn(s + 1);" in kernel.source and "TQue<QuePosition::A1, BUFFER_NUM>" in kernel.source
    assert "(double-buffered)" in r["bound"]


def test_double_buffering_lowers_the_estimate(kernel):
    serial = copy.copy(kernel.plan)
    serial.cube = dict(kernel.plan.cube, depth=(1, 1))
    db, one = cost.estimate(kernel.plan)["cycles"], cost.estimate(serial)["cycles"]
    t = kernel.plan.cube["tiling"]
    steps = t["tilesPerCore"] * -(-t["K"] // t["baseK"])
    mte2 = 2 * cost.DMA_LATENCY + 2 * 128 * 64 * 4 // cost.MTE_BYTES
    mmad = 128 * 128 * 64 // cost.CUBE_MACS
    fix = cost.DMA_LATENCY + 128 * 128 * 4 // cost.MTE_BYTES
    assert one == t["tilesPerCore"] * (5 * (mte2 + mmad) + fix)
    assert db == mte2 + (steps - 1) * max(mte2, mmad) + mmad + fix + max(0, fix - 5 * max(mte2, mmad))
    assert db < one


def test_prefetch_with_one_buffer_is_an_emulator_error(kernel):
    """The same source with queues of depth 1: the next step's CopyIn finds the
    only L1 buffer still queued (the emulator's queue-depth rule)."""
    p = kernel.plan
    name = p.kernel + "_depth1"
    src = kernel.source.replace("constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
    assert src != kernel.source
    lib = build(name, src.replace(p.kernel, name), emit.emulator_tiling(p), 5)
    ek = EmulatedKernel(name, lib, p.shapes["in"], p.shapes["out"], list(emit.tiling_values(p).values()),
                        emit.tiling_values(p)["blockDim"])
    a = np.ones((200, 300), np.float32)
    b = np.ones((300, 130), np.float32)
    with pytest.raises(A.AscendEmulationError,
                       match=rf"^{name}: TQue::AllocTensor: no free buffer: all 1 buffer\(s\) of the queue are allocated"):
        ek.run(a, b)


def test_thin_tiles_take_a_deeper_k_step():
    """baseK is the cost model's cheapest candidate: a 16-row A (a filter
    gradient's shape) takes K steps of 256 (two buffers still fit L0A/L0B)
    instead of 64, fewer fixed-cost copies."""
    k = A.compile_kernel(_mm(6, 3000, 25))
    t = k.plan.cube["tiling"]
    assert t["baseK"] == 256 and k.report["l0b_bytes"] <= 64 * 1024
    a = RNG.standard_normal((6, 3000)).astype(np.float32)
    b = RNG.standard_normal((3000, 25)).astype(np.float32)
    np.testing.assert_allclose(k.run(a, b)[0], a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
