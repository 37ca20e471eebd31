"""Usage-weighted coverage: the analyser resolves MindSpore's import aliases and
counts each name once per file; the stored counts reproduce docs/compat.md's figures."""
import subprocess
import sys
import textwrap

from msmlir.compat import usage

SRC = textwrap.dedent("""
    import mindspore as ms
    import mindspore.nn as nn
    from mindspore import ops, Tensor
    from mindspore.ops import operations as P
    from mindspore.ops import functional as F
    from mindspore.ops import composite as C
    from mindspore.common import dtype as mstype
    from mindspore.nn.layer import Dense
    from mindspore.communication.management import init
    import mindspore.dataset.vision.c_transforms as CV

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mm = P.MatMul()
            self.mm2 = P.MatMul(transpose_b=True)
            self.grad = C.GradOperation()
            self.resize = CV.Resize((2, 2))
            self.dense = nn.layer.basic.Dense(2, 3)

        def construct(self, x):
            y = F.cast(ops.Add()(x, x), mstype.float32)
            return ops.relu(y).asnumpy().append(1)
    """)


def test_scan_file_resolves_aliases(tmp_path):
    f = tmp_path / "net.py"
    f.write_text(SRC)
    uses = usage.scan_file(f)
    assert uses == {
        ("mindspore", "Tensor"), ("nn", "Cell"), ("nn", "Dense"),
        ("ops.operations", "MatMul"), ("ops.operations", "Add"), ("ops", "GradOperation"),
        ("ops", "cast"), ("ops", "relu"), ("mindspore", "float32"), ("mindspore", "dtype"),
        ("communication", "init"), ("dataset", "vision.Resize"), ("Tensor", "asnumpy"),
    }   # `.append` is a list method, not counted as a Tensor method
    (tmp_path / "plain.py").write_text("import numpy as np\nnp.zeros(3).reshape(3)\n")
    counts, nfiles = usage.scan([tmp_path])
    assert nfiles == 1 and counts[("ops.operations", "MatMul")] == 1   # once per file


def test_coverage_and_stored_counts(tmp_path):
    counts = {("ops.operations", "MatMul"): 3, ("ops.operations", "NoSuchPrim"): 1,
              ("nn", "Dense"): 2}
    cov = usage.coverage(counts)
    assert cov["ops.operations"]["uses"] == 4 and cov["ops.operations"]["covered"] == 3
    assert cov["ops.operations"]["missing"] == [("NoSuchPrim", 1)]
    usage.save_counts(counts, ["corpus x"], tmp_path / "c.tsv")
    assert usage.load_counts(tmp_path / "c.tsv") == (counts, ["corpus x"])
    stored, header = usage.load_counts()
    assert "Python files importing mindspore" in header[0] and len(stored) > 1000


def test_command_line(tmp_path):
    (tmp_path / "a.py").write_text("from mindspore import ops\nops.Add()\n")
    out = subprocess.run([sys.executable, "-m", "msmlir.compat", "--usage", str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    assert "ops.operations" in out and "100.0% of" in out
    bad = subprocess.run([sys.executable, "-m", "msmlir.compat", "--usage", str(tmp_path / "no")],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "no Python file importing mindspore" in bad.stderr


def test_mint_submodules_are_kept(tmp_path):
    (tmp_path / "m.py").write_text("from mindspore import mint\nmint.nn.functional.relu(1)\n"
                                   "mint.nn.Dropout(0.1)\nmint.add(1, 2)\n")
    uses = usage.scan_file(tmp_path / "m.py")
    assert uses == {("mint", "nn.functional.relu"), ("mint", "nn.Dropout"), ("mint", "add")}
    assert all(usage.covered(*u) for u in uses)
