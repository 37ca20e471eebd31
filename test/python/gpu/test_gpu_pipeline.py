"""msmlir.gpu.compile_gpu: option validation (a bad chip/features combination
is a Python error, never an LLVM abort), stages, remarks of ptxas problems."""
import pytest
from mlir import ir

from msmlir.gpu import compile_gpu, ptxas
from msmlir.passes.gpu import target
from msmlir.passes.registry import PipelineError

TEXT = """
func.func @f(%x: tensor<64x300xf32>) -> tensor<64x300xf32> {
  %r = "mindir.softmax"(%x) {axis = -1 : i64} : (tensor<64x300xf32>) -> tensor<64x300xf32>
  return %r : tensor<64x300xf32>
}"""


@pytest.mark.parametrize("chip,features,message", [
    ("sm_90", "+ptx60", "PTX version 6.0 does not support target 'sm_90'"),
    ("sm_91", "+ptx80", "'sm_91' is not a recognized processor"),
    ("sm_90", "+ptx99", "'+ptx99' is not a recognized feature"),
    ("sm90", "+ptx80", "invalid chip 'sm90'"),
    ("sm_90", "ptx80", "invalid features 'ptx80'"),
])
def test_bad_target_is_an_error_not_an_abort(chip, features, message):
    with pytest.raises(PipelineError, match=message.replace("+", r"\+")):
        compile_gpu(TEXT, chip=chip, features=features)
    # the process is alive and still compiles
    assert compile_gpu(TEXT, stop_after="linalg").module is not None


def test_unknown_option_and_stage():
    with pytest.raises(TypeError, match="no option 'warps'"):
        compile_gpu(TEXT, warps=4)
    with pytest.raises(ValueError, match="no stage 'llvm'"):
        compile_gpu(TEXT, stop_after="llvm")


def test_stages_and_launches():
    mapped = compile_gpu(TEXT, stop_after="mapped")
    assert "gpu.launch" not in str(mapped.module) and "#gpu.loop_dim_map" in str(mapped.module)
    prog = compile_gpu(TEXT)
    assert prog.objects and all(b".target sm_90" in o for o in prog.objects.values())
    # fill, row max (a block per row), exp, fill, row sum, divide
    assert [(l.grid, l.block) for l in prog.launches] == [
        ((1, 1, 1), (64, 1, 1)), ((64, 1, 1), (256, 1, 1)), ((2, 64, 1), (256, 1, 1)),
        ((1, 1, 1), (64, 1, 1)), ((64, 1, 1), (256, 1, 1)), ((2, 64, 1), (256, 1, 1))]
    sm80 = compile_gpu(TEXT, chip="sm_80", features="+ptx70")
    assert all(b".target sm_80" in o for o in sm80.objects.values())


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas")
def test_ptxas_problems_are_remarks(monkeypatch):
    prog = compile_gpu(TEXT)
    monkeypatch.setattr(ptxas, "_problems", lambda r: ["spills 8 bytes (stores) / 8 bytes (loads)"])
    seen = []

    def handler(d):
        seen.append((d.severity, str(d.message)))
        return True
    with prog.module.context:
        h = prog.module.context.attach_diagnostic_handler(handler)
        try:
            reports = ptxas.check_program(prog)
        finally:
            h.detach()
    assert all(r.problems for r in reports.values())
    assert len(seen) == len(reports)
    assert all(sev == ir.DiagnosticSeverity.REMARK and "ptxas: kernel" in msg and "spills 8 bytes" in msg
               for sev, msg in seen)


def test_toolkit_lookup():
    tk = target.cuda_toolkit()
    if tk is None:
        pytest.skip("no CUDA toolkit / nvidia-cuda-nvcc wheel")
    assert target.ptxas_path().startswith(tk)
    assert target.libdevice_path() is None or target.libdevice_path().endswith(".bc")


def test_no_device_is_a_clear_error(monkeypatch, tmp_path):
    from msmlir.gpu import GpuUnavailableError, cuda_device_count, require_device
    monkeypatch.setenv("MSMLIR_LIBCUDA", str(tmp_path / "libcuda-missing.so"))
    assert cuda_device_count() == 0
    with pytest.raises(GpuUnavailableError, match="cannot run on the GPU: no CUDA driver library"):
        require_device()
