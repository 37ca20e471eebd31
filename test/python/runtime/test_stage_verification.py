"""The compiler driver verifies the module once per pipeline stage, not after
each pass (msmlir/compiler.py, _run_stage): a pass that leaves invalid IR is
reported with the stage it ran in (not crash the process), and an invalid
input module before any pass runs."""
import numpy as np
import pytest
from mlir import ir

from msmlir import compiler
from msmlir.passes import registry

ADD = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mindir.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}"""


def _parse(text):
    with compiler.context():
        return ir.Module.parse(text)


def _drop_results(module):
    """Makes every function claim it returns nothing: each func.return with
    operands is then invalid (what a buggy pass could leave)."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and op.regions[0].blocks:
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ft.inputs, []))


def test_compiles_and_runs():
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(compiler.compile_mlir(ADD).call("f", x)[0], x + x)


def test_invalid_stage_output_names_the_stage(monkeypatch):
    real = registry.run_pipeline

    def broken_kernels(module, text, verify_each=True):
        assert verify_each is False          # the driver verifies once, after the stage
        real(module, text, verify_each)
        if "mskernel-outline-kernels" in text:   # the "kernels" stage
            with module.context:
                _drop_results(module)
    monkeypatch.setattr(compiler, "run_pipeline", broken_kernels)
    with pytest.raises(ir.MLIRError) as e:
        compiler.compile_module(_parse(ADD))
    msg = str(e.value)
    assert "msmlir-cpu-pipeline stage 'kernels' produced invalid IR" in msg
    assert "func.return" in msg and "enclosing function" in msg


def test_invalid_input_module():
    module = _parse(ADD)
    with module.context:
        _drop_results(module)
    with pytest.raises(ir.MLIRError, match="(?s)invalid input module:.*func.return"):
        compiler.compile_module(module)

