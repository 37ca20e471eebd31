"""The ascendc dialect as the Ascend level of vector kernels: mskernel-lower-to-ascend
places one `ascendc.kernel` op per vector kernel in the module, the verifiers
check it, and the emitted Ascend C is printed from that op alone (a changed op
changes the kernel that runs on the emulator)."""
import warnings

import numpy as np
import pytest
from mlir import ir

import msmlir.ascend as A
from msmlir.compiler import context
from msmlir.passes.ascend import emit, emit_ascendc, to_ascendc
from msmlir.passes.ascend.lower_to_ascend import plan_kernel

pytestmark = pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")

SOFTMAX_BIAS = """func.func @f(%x: tensor<37x100xf32>, %b: tensor<100xf32>) -> (tensor<37x100xf32>, tensor<100xf32>) {
  %s = mindir.softmax %x {axis = -1 : i64} : tensor<37x100xf32>
  %r = mindir.add %s, %b : (tensor<37x100xf32>, tensor<100xf32>) -> tensor<37x100xf32>
  %c = mindir.reduce_sum %x {axes = array<i64: 0>} : (tensor<37x100xf32>) -> tensor<100xf32>
  return %r, %c : tensor<37x100xf32>, tensor<100xf32>
}"""

MATMUL_ADD = """func.func @f(%a: tensor<16x32xf32>, %w: tensor<32x24xf32>, %b: tensor<24xf32>) -> tensor<16x24xf32> {
  %m = mindir.matmul %a, %w : (tensor<16x32xf32>, tensor<32x24xf32>) -> tensor<16x24xf32>
  %r = mindir.add %m, %b : (tensor<16x24xf32>, tensor<24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}"""


def _kernel_ops(module):
    return [op.operation for op in module.body.operations if op.operation.name == "ascendc.kernel"]


def test_every_vector_kernel_is_an_ascendc_kernel_in_the_module():
    prog = A.compile(SOFTMAX_BIAS)
    leaves = [p for k in prog.kernels.values() for p in (k.parts or [k])]
    ops = _kernel_ops(prog.module)
    vector = [k for k in leaves if to_ascendc.is_vector(k.plan)]
    assert vector and len(ops) == len(vector)
    by_name = {ir.StringAttr(op.attributes["name"]).value: op for op in ops}
    for k in vector:
        op = by_name[k.name]
        assert k.plan.ir is not None and str(k.plan.ir) == str(op)
        assert k.source == emit_ascendc.kernel_source(op)
    modes = sorted(ir.StringAttr(op.attributes["mode"]).value for op in ops)
    assert "col" in modes and "row" in modes
    ops[0].verify()


def test_groups_put_their_vector_parts_on_the_ir_and_the_cube_part_not():
    prog = A.compile(MATMUL_ADD)
    leaves = [p for k in prog.kernels.values() for p in (k.parts or [k])]
    names = {ir.StringAttr(op.attributes["name"]).value for op in _kernel_ops(prog.module)}
    cube = [k for k in leaves if k.plan.cube is not None]
    assert cube and all(k.name not in names and k.plan.ir is None for k in cube)
    assert {k.name for k in leaves if to_ascendc.is_vector(k.plan)} == names


def test_printed_ir_parsed_in_a_new_context_emits_the_same_source():
    prog = A.compile(SOFTMAX_BIAS)
    for op in _kernel_ops(prog.module):
        with context():
            again = ir.Operation.parse(str(op))
            assert emit_ascendc.kernel_source(again) == emit_ascendc.kernel_source(op)


def test_the_ir_is_what_runs_single_buffered_queues():
    """Rewriting every queue of the IR to depth 1 gives BUFFER_NUM = 1 in the
    emitted kernel, and that kernel still computes softmax on the emulator."""
    from msmlir.ascend.emulator import EmulatedKernel, build
    prog = A.compile(SOFTMAX_BIAS)
    k = next(k for k in prog.kernels.values() if not k.parts and to_ascendc.is_vector(k.plan)
             and k.plan.mode == "row")
    op = k.plan.ir
    assert "BUFFER_NUM = 2;" in k.source
    with op.context:
        changed = ir.Operation.parse(str(op).replace(" depth 2 ", " depth 1 "))
    src = emit_ascendc.kernel_source(changed)
    assert "BUFFER_NUM = 1;" in src and "double buffering off" in src
    p = k.plan
    name = p.kernel + "_depth1"
    lib = build(name, src.replace(p.kernel, name), emit.emulator_tiling(p), len(p.inputs) + len(p.outputs) + 2)
    emu = EmulatedKernel(name, lib, p.shapes["in"], p.shapes["out"], list(emit.tiling_values(p).values()),
                         emit.tiling_values(p)["blockDim"], p.shapes.get("in_dtypes"), p.shapes.get("out_dtypes"))
    rng = np.random.default_rng(3)
    ins = [rng.standard_normal(s).astype(np.float32) for s in p.shapes["in"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = k.run(*ins)
    got = emu.run(*ins)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.reshape(g, w.shape), w)


def _plan(text: str, **kw):
    with context():
        m = ir.Module.parse(text)
        from msmlir.passes import run_pipeline
        from msmlir.passes.ascend.pipeline import ascend_stages
        for _, t in ascend_stages():
            run_pipeline(m, f"builtin.module({t})")
        fn = next(op.operation for op in m.body.operations if "mskernel.kind" in op.operation.attributes)
        return m, plan_kernel(fn, "ascend_test", **kw)


BIG = """func.func @f(%x: tensor<4096x256xf32>, %y: tensor<4096x256xf32>) -> tensor<4096x256xf32> {
  %a = mindir.add %x, %y : (tensor<4096x256xf32>, tensor<4096x256xf32>) -> tensor<4096x256xf32>
  %e = mindir.exp %a : tensor<4096x256xf32>
  return %e : tensor<4096x256xf32>
}"""


def test_the_verifier_rejects_tiles_sized_for_a_larger_ub():
    """The planted ub-overflow bug (tiles sized against 4x UB) is an IR the
    verifier rejects; the emulator tests get it only because the op records
    ub_scale (and then the emulator is the one that catches the overflow)."""
    m, plan = _plan(BIG, ub_scale=4)
    with m.context:
        with pytest.raises(ValueError, match=r"ascend_test: invalid ascendc IR: .*buffers need \d+ bytes of UB, "
                                             r"which holds 196608 bytes"):
            to_ascendc.build(plan)
        op = to_ascendc.build(plan, ub_scale=4)
        assert "ub_scale = 4" in str(op)


def test_block_bytes_of_full_and_tail_tiles():
    """Every tile shape the kernel runs is checked: 37 rows of 64 f32 in
    tiles of 5 rows are 1280-byte blocks and a 2-row tail of 512 bytes;
    rows of 100 f32 are 400-byte blocks (DataCopyPad)."""
    from msmlir.passes.ascend.vector import _tiling
    text = BIG.replace("4096x256", "37x64")
    m, plan = _plan(text)
    plan.tiling = _tiling(37, 64, 5, 64, 4)
    with m.context:
        op = to_ascendc.build(plan)
    text_ir = str(op)
    assert 'ascendc.data_copy "x0", "in0Gm[row0 * rowLen + col0]" {block_bytes = array<i64: 1280, 512>' in text_ir
    assert "ascendc.for_tiles 8 per_core 2" in text_ir and "block_dim 4" in text_ir
    assert 'ascendc.vec <Exp> ["out0", "tF0"] count "cntF" elems 320' in text_ir
    m, plan = _plan("""func.func @f(%x: tensor<37x100xf32>) -> tensor<37x100xf32> {
  %s = mindir.softmax %x {axis = -1 : i64} : tensor<37x100xf32>
  return %s : tensor<37x100xf32>
}""")
    with m.context:
        text_ir = str(to_ascendc.build(plan))
    assert "ascendc.data_copy_pad" in text_ir and "block_bytes = array<i64: 400>" in text_ir
    assert "ascendc.data_copy " not in text_ir


def test_only_vector_plans_have_ascendc_ir():
    m, plan = _plan(MATMUL_ADD.replace("%r = mindir.add %m, %b", "%r = mindir.add %m, %m").replace(
        "(tensor<16x24xf32>, tensor<24xf32>) -> tensor<16x24xf32>\n  return",
        "(tensor<16x24xf32>, tensor<16x24xf32>) -> tensor<16x24xf32>\n  return"))
    leaves = [q for q, _, _ in plan.parts] if plan.parts else [plan]
    cube = [q for q in leaves if q.cube is not None]
    assert cube
    with pytest.raises(ValueError, match="not a vector kernel"):
        to_ascendc.kernel_text(cube[0])


def test_an_invalid_kernel_ir_is_an_error_at_its_kernel_function(monkeypatch):
    """A planner bug that the verifiers catch (here: every queue of depth 9)
    is reported at the kernel function by mskernel-lower-to-ascend, naming the
    kernel and the verifier's reason; compile() raises it."""
    real = to_ascendc.kernel_text
    monkeypatch.setattr(to_ascendc, "kernel_text", lambda *a, **k: real(*a, **k).replace(" depth 2 ", " depth 9 "))
    with pytest.raises(A.AscendEmulationError,
                       match=r"mskernel-lower-to-ascend: kernel @\w+: ascend_\w+: invalid ascendc IR: "
                             r"'ascendc.queue' op queue depth must be in \[1, 8\], got 9"):
        A.compile(SOFTMAX_BIAS)
    from msmlir.passes.ascend.lower_to_ascend import lower_module
    with context():
        m = ir.Module.parse(SOFTMAX_BIAS)
        from msmlir.passes import run_pipeline
        from msmlir.passes.ascend.pipeline import ascend_stages
        for _, t in ascend_stages():
            run_pipeline(m, f"builtin.module({t})")
        errors = []
        plans = lower_module(m.operation, errors=errors)
        assert errors and all("depth must be in [1, 8], got 9" in msg for _, msg in errors)
        assert all(not to_ascendc.is_vector(p) for p in plans)     # the failing kernels are not planned


def test_a_library_without_the_dialect_is_a_clear_error(monkeypatch):
    """A dialect library built before dialects/AscendC.td (a stale build after
    a pull): the lowering says which library and how to rebuild it."""
    monkeypatch.setattr(ir.Context, "is_registered_operation", lambda self, name: False)
    with pytest.raises(A.AscendEmulationError, match=r"the dialect library .*libMSMLIRDialects.so has no ascendc "
                                                     r"dialect: .*rebuild it \(pip install"):
        A.compile(SOFTMAX_BIAS)
