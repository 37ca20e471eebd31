"""A fixed-seed run of the ms-opt mutation fuzzer (test/fuzz/fuzz_ms_opt.py):
every mutant of the lit corpus is a success or a diagnostic — no Python
traceback, no silent failure, no hang, no abort in msmlir's own code.
Aborts inside upstream MLIR (docs/known-issues.md) are tolerated, but only
the known ones."""
import importlib.util
from pathlib import Path

FUZZ = Path(__file__).resolve().parents[2] / "fuzz" / "fuzz_ms_opt.py"


def _harness():
    spec = importlib.util.spec_from_file_location("fuzz_ms_opt", FUZZ)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fuzz_smoke_run_has_no_msmlir_failures():
    fuzz = _harness()
    lines = []
    counts = fuzz.fuzz(count=400, seed=0, workers=2, timeout=60, save=None, log=lines.append)
    report = "\n".join(lines)
    for kind in fuzz.BAD:
        assert counts[kind] == 0, report
    assert counts["diagnostic"] > 100 and counts["success"] > 50, report


def test_classifier_sees_each_kind():
    fuzz = _harness()
    assert fuzz.classify(0, None, False, "") == "success"
    assert fuzz.classify(1, None, False, "in.mlir:3:5: error: bad") == "diagnostic"
    assert fuzz.classify(1, None, False, "") == "silent"
    assert fuzz.classify(1, None, False, "Traceback (most recent call last):\n x") == "traceback"
    assert fuzz.classify(None, 6, False, "MindIROps.cpp:12: Assertion") == "abort:msmlir"
    known = ("Types.cpp:123: unsigned int mlir::Type::getIntOrFloatBitWidth() const: "
             "Assertion `isIntOrFloat() && \"only integers and floats have a bitwidth\"' failed.")
    assert fuzz.classify(None, 6, False, known) == "abort:upstream"
    assert fuzz.classify(None, 11, False, "Segmentation fault") == "abort:unknown"
    assert fuzz.classify(None, None, True, "") == "hang"
