"""The cost model's launch overhead (cost.py): each launch costs
LAUNCH_CYCLES plus BLOCK_CYCLES per block; reports and a whole step's
estimate count launches (a group's parts each one); blockDim of tiny
kernels stays small; split-K pays for its second launch."""
import pytest

import msmlir.ascend as A
from msmlir.passes.ascend import cost

pytestmark = pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")


def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def test_launch_constants_and_formula():
    assert cost.LAUNCH_CYCLES == int(5.0 * 1000 * cost.CORE_GHZ)          # 5 us (assumed, documented)
    assert cost.BLOCK_CYCLES == int(0.2 * 1000 * cost.CORE_GHZ)           # 0.2 us per block
    assert cost.launch_cycles(1) == cost.LAUNCH_CYCLES + cost.BLOCK_CYCLES
    assert cost.launch_cycles(24) - cost.launch_cycles(1) == 23 * cost.BLOCK_CYCLES
    assert "ASSUMPTIONS" in cost.__doc__ and "launch" in cost.__doc__


@pytest.mark.parametrize("tiles,tile_cycles,expect", [
    (20, 10, 1),              # twenty tiny tiles: one core (each block costs more than its tile)
    (20, 500, 5),             # a block costs 360: spread while a tile costs more than the blocks added
    (20, 100000, 20),         # twenty big tiles: every tile a core
    (40, 100000, 20),         # more tiles than cores: two each
])
def test_cheapest_block_dim(tiles, tile_cycles, expect):
    assert cost.cheapest_block_dim(tiles, 20, tile_cycles) == expect


def test_reports_and_step_estimate_count_launches():
    """A plain vector kernel is one launch; a conv group one per part; the
    step estimate sums kernels and launches, and its cycles include them."""
    conv = f"""func.func @c(%x: {_t((2, 3, 9, 9))}, %w: {_t((4, 3, 3, 3))}) -> {_t((2, 4, 7, 7))} {{
  %y = mindir.conv2d %x, %w : ({_t((2, 3, 9, 9))}, {_t((4, 3, 3, 3))}) -> {_t((2, 4, 7, 7))}
  return %y : {_t((2, 4, 7, 7))}
}}
func.func @e(%a: {_t((64, 64))}) -> {_t((64, 64))} {{
  %r = mindir.exp %a : {_t((64, 64))}
  return %r : {_t((64, 64))}
}}"""
    prog = A.compile(conv, fallback=False)
    reps = {k.plan.func: k.report for k in prog.kernels.values()}
    (cr,) = [r for f, r in reps.items() if "conv" in f]
    (er,) = [r for f, r in reps.items() if "conv" not in f]
    assert er["launches"] == 1 and er["launch_cycles"] == cost.launch_cycles(er["block_dim"])
    assert cr["launches"] == len(cr["parts"]) > 1
    step = cost.step_estimate(reps.values())
    assert step["kernels"] == 2 and step["launches"] == 1 + cr["launches"]
    assert step["cycles"] == er["cycles"] + cr["cycles"] + er["launch_cycles"] + cr["launch_cycles"]
    assert step["us"] == round(step["cycles"] / (cost.CORE_GHZ * 1000), 1)
    line = cost.format_report(cr)
    assert f"launches={cr['launches']} launch-cycles={cr['launch_cycles']}" in line


def test_tiny_kernel_is_not_spread_over_every_core():
    """A 1 KB elementwise kernel (256 f32): one or two blocks, not 48 (the
    vector planner's tile choice is its own; the copy kernels and cube
    kernels pick blockDim with the launch cost)."""
    text = f"""func.func @s(%a: {_t((2, 128))}, %b: {_t((2, 128))}) -> ({_t((2, 64))}, {_t((2, 64))}) {{
  %r:2 = mindir.split %a {{axis = 1 : i64, output_num = 2 : i64}} : ({_t((2, 128))}) -> ({_t((2, 64))}, {_t((2, 64))})
  return %r#0, %r#1 : {_t((2, 64))}, {_t((2, 64))}
}}
func.func @m(%a: {_t((16, 16))}, %b: {_t((16, 16))}) -> {_t((16, 16))} {{
  %r = mindir.matmul %a, %b : ({_t((16, 16))}, {_t((16, 16))}) -> {_t((16, 16))}
  return %r : {_t((16, 16))}
}}"""
    prog = A.compile(text)
    for k in prog.kernels.values():
        assert k.report["block_dim"] <= 2, (k.name, k.report["block_dim"])
