#!/usr/bin/env bash
# Sets up .venv (see setup.sh) and runs the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
python examples/mlp.py
