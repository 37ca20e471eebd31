"""`import mindspore` answered by msmlir (msmlir.compat.alias) and the runner of
MindSpore's own tests (tools/run_mindspore_tests.py): module identity, MindSpore's
split submodules, honest failures, the platform rule, the cause grouping."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _run(code, **kw):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, **kw)


def test_mindspore_paths_are_msmlir_modules():
    r = _run("""
        import msmlir, msmlir.ops.operations as P0
        from msmlir.compat import alias
        alias.install()
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import context, Tensor
        from mindspore.ops import operations as P
        from mindspore.ops.operations import _grad_ops as G, array_ops
        import mindspore.ops.operations.math_ops as M
        from mindspore.common.api import _pynative_executor, jit
        from mindspore.common import dtype as mstype
        assert ms is msmlir and Tensor is msmlir.Tensor and P is P0
        assert G is P0 and array_ops is P0 and M is P0
        assert nn is msmlir.nn and mstype.float32 is msmlir.float32
        assert P0.__spec__.name == "msmlir.ops.operations"   # not the alias's spec
        import numpy as np
        x = Tensor(np.array([[1., -2.], [3., 4.]], np.float32))
        np.testing.assert_array_equal(P.ReduceSum(keep_dims=True)(x, 1).asnumpy(), [[-1.], [7.]])
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_missing_module_and_name_fail_honestly():
    r = _run("""
        from msmlir.compat import alias
        alias.install()
        try:
            import mindspore.no_such_module
        except ModuleNotFoundError as e:
            print(e)
        try:
            from mindspore.ops.operations import _grad_ops as G
            G.NoSuchGrad
        except AttributeError as e:
            print(e)
        alias.uninstall()
        try:
            import mindspore
        except ModuleNotFoundError:
            print("gone")
    """)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "No module named 'mindspore.no_such_module'"
    assert "has no attribute 'NoSuchGrad'" in out[1]
    assert out[2] == "gone"


def test_refuses_a_real_mindspore():
    r = _run("""
        import sys, types
        sys.modules["mindspore"] = types.ModuleType("mindspore")
        from msmlir.compat import alias
        try:
            alias.install()
        except RuntimeError as e:
            print("refused")
    """)
    assert r.stdout.strip() == "refused", r.stderr


sys.path.insert(0, str(ROOT / "tools"))
import run_mindspore_tests as rmt  # noqa: E402


@pytest.mark.parametrize("marks, runs", [
    ((), True),
    (("level0", "onecard"), True),
    (("platform_gpu",), False),
    (("platform_ascend", "platform_ascend910b"), False),
    (("platform_gpu", "cpu_linux", "cpu_windows"), True),
    (("platform_x86_gpu_training", "platform_x86_cpu"), True),
    (("platform_arm_ascend_training", "env_onecard"), False),
])
def test_platform_rule(marks, runs):
    assert (rmt.not_cpu(marks) is None) == runs


@pytest.mark.parametrize("exc, msg, cause", [
    ("ModuleNotFoundError", "No module named 'mindspore.ops.auto_generate'",
     "missing module mindspore.ops.auto_generate"),
    ("ImportError", "cannot import name 'foo' from 'msmlir.common.api' (/x/api.py)",
     "missing name mindspore.common.api.foo"),
    ("AttributeError", "module 'msmlir.ops.operations' has no attribute 'ApplyFtrl'",
     "missing name mindspore.ops.operations.ApplyFtrl"),
    ("CompileTypeError", "/t/x.py:12:3: error: 'module' object has no attribute 'ApplyFtrl'",
     "missing name *.ApplyFtrl"),
    ("TypeError", "pad() got an unexpected keyword argument 'mode'",
     "argument form: pad() has no keyword 'mode'"),
    ("Failed", "DID NOT RAISE <class 'TypeError'>", "no error raised (<class 'TypeError'> expected)"),
    ("AssertionError", "\nNot equal to tolerance rtol=1e-07", "wrong value (assertion)"),
    ("AttributeError", "module 'numpy' has no attribute 'int'",
     "test-side: numpy 2 has no numpy.int (test written for numpy 1)"),
    ("AttributeError", "`np.complex_` was removed in the NumPy 2.0 release. Use `np.complex128`",
     "test-side: numpy 2 has no numpy.complex_ (test written for numpy 1)"),
    ("ModuleNotFoundError", "No module named 'yaml'", "test-side: needs the Python package yaml"),
    ("ValueError", "For 'Pad', got shape (2, 3) and 17 pads", "ValueError: For 'Pad', got shape (N, N) and N pads"),
])
def test_cause_grouping(exc, msg, cause):
    assert rmt.cause_of(exc, msg) == cause


def test_runner_end_to_end(tmp_path):
    """A fake MindSpore tests tree: one CPU test passing, one failing on a missing
    name, one GPU-only test skipped, one file that cannot import."""
    tests = tmp_path / "tests"
    (tests / "st" / "ops").mkdir(parents=True)
    (tests / "__init__.py").write_text("")
    (tests / "st" / "__init__.py").write_text("")
    (tests / "st" / "ops" / "test_a.py").write_text(textwrap.dedent("""
        import numpy as np
        import pytest
        import mindspore as ms
        from mindspore import ops

        @pytest.mark.cpu_linux
        def test_add():
            x = ms.Tensor(np.ones(3, np.float32))
            assert np.allclose(ops.add(x, x).asnumpy(), 2)

        @pytest.mark.cpu_linux
        def test_missing():
            ops.no_such_op_at_all(1)

        @pytest.mark.platform_gpu
        def test_gpu():
            raise RuntimeError("never runs")
    """))
    # a conftest.py that imports mindspore itself (tests/ut/python has one): the alias must
    # be in place before pytest loads it
    (tests / "st" / "conftest.py").write_text("import mindspore\n")
    (tests / "st" / "ops" / "test_b.py").write_text(
        "import mindspore.no_such\n\ndef test_x():\n    pass\n\ndef test_y():\n    pass\n")
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "run_mindspore_tests.py"),
                        str(tests / "st"), "-j", "1", "--timeout", "60", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    import json
    s = json.loads((out / "summary.json").read_text())
    assert s["totals"]["passed"] == 1
    assert s["totals"]["failed"] == 1
    assert s["totals"]["skipped-not-cpu"] == 1
    assert s["totals"]["not-collected"] == 2
    causes = dict(s["causes"])
    assert causes["missing name mindspore.ops.no_such_op_at_all"] == 1
    assert causes["missing module mindspore.no_such"] == 2
    assert "pass rate: 1/2 of the tests that ran" in (out / "summary.md").read_text()
