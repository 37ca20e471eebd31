"""docs/compat.md is the output of `python -m msmlir.compat` (kept true), and the
table's statuses are what the code has."""
import subprocess
import sys
from pathlib import Path

import msmlir as ms
from msmlir import compat
from msmlir.compat._reference import NAMES

ROOT = Path(__file__).resolve().parents[3]


def test_docs_compat_md_is_generated_from_the_code():
    text = (ROOT / "docs" / "compat.md").read_text()
    assert text.rstrip("\n") == compat.markdown().rstrip("\n"), (
        "docs/compat.md is stale: regenerate it with "
        "`python -m msmlir.compat > docs/compat.md`")


def test_statuses_match_the_namespaces():
    rows = compat.table()
    assert len(rows) == sum(len(v) for v in NAMES.values())
    for ns, name, st, note in rows:
        root = compat._lookup_root(ns)
        assert (st != "missing") == hasattr(root, name), (ns, name, st)
        if st == "partial":
            assert note
    # every partial note names something msmlir has (else it is a missing name)
    for key in compat.PARTIAL:
        ns, name = key.split(":", 1)
        assert name in NAMES[ns], key
    assert compat.status("ops.operations", "ReduceSum") == ("supported", "")
    assert compat.status("ops.operations", "AllReduce") == ("supported", "")
    assert compat.status("ops.operations", "AlltoAll") == ("supported", "")   # one MPI_Alltoall
    assert compat.status("ops.operations", "NPUGetFloatStatus")[0] == "partial"
    assert "overflow" in compat.status("ops.operations", "NPUGetFloatStatus")[1]
    assert compat.status("ops.operations", "Einsum")[0] == "missing"
    assert "functional twin" in compat.status("ops.operations", "Einsum")[1]
    assert compat.status("Tensor", "transpose")[0] == "supported"
    assert ms.Tensor.acos is not None


def test_command_line():
    out = subprocess.run([sys.executable, "-m", "msmlir.compat", "--summary"],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert "ops.operations" in out and "present" in out
