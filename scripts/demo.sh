#!/usr/bin/env bash
# Sets up .venv (see setup.sh) and runs the main demo: LeNet5 trained in graph mode.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
python examples/lenet5.py   # trains LeNet5 on scikit-learn digits (graph mode, CPU)
