"""End to end runs of tensor-dependent `if`/`while` (scf.if / scf.while).

Each program runs in a child process: a crash of the CPU pipeline on one of
them must not end the test session. A pipeline that cannot compile the
program yet makes the test xfail with its message; wrong numbers fail it."""
from __future__ import annotations

import pytest

from jit_testutil import run_in_child


@pytest.mark.parametrize("check", [
    "check_while_doubling",
    "check_data_dependent_if",
    "check_early_return",
    "check_while_python_bound_with_helper",
])
def test_tensor_control_flow_runs(check):
    run_in_child("jit_cf_programs", check)
