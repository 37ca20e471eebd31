"""msmlir.ops at run time: it loads nothing above its layer, runs eagerly on its
own, and still offers MindSpore's ops.grad & co. (added by msmlir.autodiff)."""
import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_and_eager_ops_load_only_lower_layers():
    out = _run("""
        import sys
        import numpy as np
        import msmlir.ops as ops
        r = ops.add(np.ones(2, np.float32), 1.0)           # PyNative: traced, compiled, run
        assert r.tolist() == [2.0, 2.0], r
        above = [m for m in sys.modules if m.startswith(("msmlir.autodiff", "msmlir.numpy",
                 "msmlir.common", "msmlir.nn", "msmlir.frontend.parser", "msmlir.frontend.jit",
                 "msmlir.frontend.fallback"))]
        print(above)
    """)
    assert out.strip() == "[]"


def test_function_transforms_under_ops():
    out = _run("""
        import numpy as np
        import msmlir.ops as ops
        g = ops.grad(lambda x: (x * x).sum())(np.arange(3, dtype=np.float32))   # loads autodiff
        import msmlir.autodiff as ad
        print(g.tolist(), ops.GradOperation is ad.GradOperation, "vmap" in ops.__all__)
    """)
    assert out.strip() == "[0.0, 2.0, 4.0] True True"
