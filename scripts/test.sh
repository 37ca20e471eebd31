#!/usr/bin/env bash
# Sets up .venv (see setup.sh) and runs the whole test suite: lit/FileCheck, then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
lit -sv --time-tests -j "$(nproc)" test/
pytest -q test/python
