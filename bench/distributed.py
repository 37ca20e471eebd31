"""Data-parallel scaling of the LeNet5 train step (examples/lenet5.py, global
batch 64, SGD):
step time on 1 and 2 MPI ranks, the all-reduce's share, and the bytes each
rank sends per step, plus a projection for more ranks.

    python bench/distributed.py            # launches itself under mpirun for 1 and 2 ranks
    python bench/distributed.py --collectives   # all_gather / broadcast / reduce_scatter:
                                           # native MPI calls vs a zero-padded MPI_Allreduce;
                                           # all_to_all(_v): MPI_Alltoall(v) vs all_gather + slices
    python bench/distributed.py --bytes        # the bytes each rank sends per collective
                                           # (OpenMPI's pml monitoring), the same pairs
    python bench/distributed.py --calibrate    # the AUTO_PARALLEL cost model's constants

On one 2-vCPU machine both ranks share the cores, so 2 ranks measure the
overhead of the scheme (each rank does half the batch plus one all-reduce of
the gradients), not a speed-up across machines. The thread CPU time per step
is less sensitive to other load than the wall time (it includes MPI's
busy-waiting inside the all-reduce).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

GLOBAL_BATCH = 64
STEPS = 30


def worker() -> None:
    import numpy as np
    import msmlir as ms
    from msmlir import Tensor, communication as comm, nn
    from msmlir.nn.distributed import DistributedGradReducer
    from msmlir.ops import comm as C

    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE)

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    from lenet5 import LeNet5           # MindSpore's model_zoo LeNet5 (examples/lenet5.py)

    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss_fn), None, opt.parameters)
    reducer = DistributedGradReducer(opt.parameters) if size > 1 else None

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(reducer(grads) if reducer is not None else grads)
        return loss

    rng = np.random.default_rng(0)
    b = GLOBAL_BATCH // size
    x = Tensor(rng.standard_normal((b, 1, 32, 32)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, b).astype(np.int32))
    t0 = time.perf_counter()
    step(x, y)
    first = time.perf_counter() - t0
    times, cpu = [], []
    for _ in range(STEPS):
        t0, c0 = time.perf_counter(), time.thread_time()
        step(x, y)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    n_params = sum(int(np.prod(p.shape)) for p in opt.parameters)
    allreduce = None
    if size > 1:   # the step's collective alone: one all_reduce of every gradient
        flat = np.zeros(n_params, np.float32)
        ar = ms.jit(lambda g: C.all_reduce(g))
        ar(flat)
        ts = []
        for _ in range(STEPS):
            t0 = time.perf_counter()
            ar(flat)
            ts.append(time.perf_counter() - t0)
        allreduce = min(ts)
    if rank == 0:
        print(json.dumps({"ranks": size, "step_ms": min(times) * 1e3,
                          "cpu_ms": min(cpu) * 1e3,
                          "median_ms": float(np.median(times)) * 1e3, "first_call_s": first,
                          "params": n_params,
                          "allreduce_ms": None if allreduce is None else allreduce * 1e3}))


def gathered_all_to_all(x, split_dim, concat_dim, r, n):
    """all_to_all as it was composed before MPI_Alltoall (HEAD~ of
    ops/comm.py): every rank's whole x all_gathered, this rank's chunks sliced
    out (N times the bytes)."""
    from msmlir.ops import comm as C, reshape, slice as _slice, transpose
    nd = len(x.shape)
    c = x.shape[split_dim] // n
    ranks = reshape(C.all_gather(reshape(x, (1,) + tuple(x.shape))), (n,) + tuple(x.shape))
    begin = [0] * (nd + 1)
    begin[1 + split_dim] = r * c
    size = [n] + list(x.shape)
    size[1 + split_dim] = c
    mine = _slice(ranks, begin, size)
    perm = list(range(1, nd + 1))
    perm.insert(concat_dim, 0)
    out = list(mine.shape[1:])
    out[concat_dim] *= n
    return reshape(transpose(mine, tuple(perm)), tuple(out))


def gathered_all_to_all_v(x, sends, r, n):
    """all_to_all_v as it was composed before MPI_Alltoallv: each rank's x
    zero-padded to the longest, one all_gather, static slices."""
    from msmlir.ops import comm as C, concat, pad, reshape, slice as _slice
    numel = x.shape[0]
    longest = max(sum(row) for row in sends)
    padded = pad(x, (0, longest - numel)) if longest > numel else x
    everyone = C.all_gather(reshape(padded, (1, longest)))
    pieces = [reshape(_slice(everyone, (j, sum(sends[j][:r])), (1, sends[j][r])), (sends[j][r],))
              for j in range(n) if sends[j][r]]
    return pieces[0] if len(pieces) == 1 else concat(pieces, 0)


def uneven_counts(n: int, total: int) -> list[list[int]]:
    """sends[k][j]: what rank k sends rank j, uneven ((j + k) % n + 1 units),
    each rank sending `total` elements in all."""
    unit = total // (n * (n + 1) // 2)
    rows = [[((j + k) % n + 1) * unit for j in range(n)] for k in range(n)]
    for row in rows:
        row[-1] += total - sum(row)
    return rows


COLLECTIVE_SIZES = (1024, 65536, 1048576)      # float32 elements per rank
REPS = 40


def collectives_worker() -> None:
    """Each collective compiled two ways in one process, timed interleaved
    (min over REPS wall-clock calls, the ranks aligned by a barrier before
    each): natively (MPI_Allgather / MPI_Bcast / MPI_Reduce_scatter_block,
    what mindir.all_gather / broadcast / reduce_scatter lower to; MPI_Alltoall /
    MPI_Alltoallv for all_to_all / all_to_all_v) and as they were built
    before (written here with user-level ops: the zero-padded all_reduce; the
    all_gather plus slices of all_to_all and all_to_all_v, uneven counts)."""
    import numpy as np
    import msmlir as ms
    from msmlir import communication as comm, ops
    from msmlir.ops import comm as C
    from msmlir.runtime import mpi

    comm.init()
    r, n = comm.get_rank(), comm.get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE)

    def padded_gather(x):
        z = ops.zeros_like(x)
        return C.all_reduce(ops.concat([x if k == r else z for k in range(n)], 0))

    def padded_bcast(x):
        return C.all_reduce(x if r == 0 else ops.zeros_like(x))

    def padded_scatter(x):
        m = x.shape[0] // n
        return C.all_reduce(x)[r * m:(r + 1) * m]

    pairs = {"all_gather": (lambda x: C.all_gather(x), padded_gather),
             "broadcast": (lambda x: C.broadcast(x, 0), padded_bcast),
             "reduce_scatter": (lambda x: C.reduce_scatter(x), padded_scatter),
             "all_to_all": (lambda x: C.all_to_all(x, 1, 0),
                            lambda x: gathered_all_to_all(x, 1, 0, r, n))}
    rows = []
    for size in COLLECTIVE_SIZES:
        x = (np.arange(size, dtype=np.float32) + r).reshape(n, -1) if size % n == 0 else None
        sends = uneven_counts(n, size)
        recv = [sends[j][r] for j in range(n)]
        pairs["all_to_all_v"] = (lambda x, s=sends[r], v=recv: C.all_to_all_v(x.reshape(-1), s, v),
                                 lambda x, s=sends: gathered_all_to_all_v(x.reshape(-1), s, r, n))
        for name, (native, padded) in pairs.items():
            fs = [ms.jit(native), ms.jit(padded)]
            outs = [np.asarray(f(x)) for f in fs]
            np.testing.assert_array_equal(outs[0], outs[1], err_msg=name)
            times = [[], []]
            for _ in range(REPS):
                for k, f in enumerate(fs):
                    mpi.barrier()
                    t0 = time.perf_counter()
                    f(x)
                    times[k].append(time.perf_counter() - t0)
            rows.append({"op": name, "elements": size, "native_us": min(times[0]) * 1e6,
                         "padded_us": min(times[1]) * 1e6})
    if r == 0:
        print(json.dumps({"ranks": n, "rows": rows}))


def bytes_worker(variant: str) -> None:
    """10 calls of one variant of COLLECTIVE_BYTES_VARIANTS (256 KiB per rank)
    under OpenMPI's pml monitoring, which counts the bytes each rank sends."""
    import numpy as np
    import msmlir as ms
    from msmlir import communication as comm, ops
    from msmlir.ops import comm as C

    comm.init()
    r, n = comm.get_rank(), comm.get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE)
    x = np.ones((n, 65536 // n), np.float32)
    m = x.shape[0] // n
    sends = uneven_counts(n, 65536)
    recv = [sends[j][r] for j in range(n)]
    f = ms.jit({
        "all_to_all": lambda v: C.all_to_all(v, 1, 0),
        "all_to_all gathered": lambda v: gathered_all_to_all(v, 1, 0, r, n),
        "all_to_all_v": lambda v: C.all_to_all_v(v.reshape(-1), sends[r], recv),
        "all_to_all_v gathered": lambda v: gathered_all_to_all_v(v.reshape(-1), sends, r, n),
        "all_gather": lambda v: C.all_gather(v),
        "all_gather padded": lambda v: C.all_reduce(
            ops.concat([v if k == r else ops.zeros_like(v) for k in range(n)], 0)),
        "broadcast": lambda v: C.broadcast(v, 0),
        "broadcast padded": lambda v: C.all_reduce(v if r == 0 else ops.zeros_like(v)),
        "reduce_scatter": lambda v: C.reduce_scatter(v),
        "reduce_scatter padded": lambda v: C.all_reduce(v)[r * m:(r + 1) * m]}[variant])
    for _ in range(10):
        f(x)


COLLECTIVE_BYTES_VARIANTS = ("all_gather", "all_gather padded", "broadcast", "broadcast padded",
                             "reduce_scatter", "reduce_scatter padded", "all_to_all",
                             "all_to_all gathered", "all_to_all_v", "all_to_all_v gathered")


def bytes_main(n: int = 2) -> None:
    """Bytes each rank sends the other ranks per call, counted by OpenMPI's pml monitoring
    (`--mca pml_monitoring_enable 2`; minus the one 96-byte message of
    init's checks), native vs the zero-padded all_reduce."""
    import tempfile
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    from msmlir.run import command
    print(f"| op ({n} ranks, 256 KiB per rank) | bytes sent per call: " +
          " | ".join(f"rank {k}" for k in range(n)) + " | total |")
    print("|---|" + "---|" * (n + 1))
    for variant in COLLECTIVE_BYTES_VARIANTS:
        with tempfile.TemporaryDirectory() as d:
            cmd = command(n, [__file__, "--bytes-worker", variant], timeout=600)
            cmd[1:1] = ["--mca", "pml_monitoring_enable", "2", "--mca",
                        "pml_monitoring_enable_output", "3", "--mca", "pml_monitoring_filename",
                        os.path.join(d, "mon")]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{variant} failed:\n{r.stderr[-3000:]}")
            sent = []
            for k in range(n):
                with open(os.path.join(d, f"mon.{k}.prof")) as f:
                    # point-to-point bytes to the other ranks (MPI_Alltoallv's
                    # copy of a rank's own block goes through the pml too)
                    rows = [line.split("\t") for line in f if line.startswith("I\t")]
                    b = sum(int(row[3].split()[0]) for row in rows if row[1] != row[2])
                sent.append(max(b - 96, 0) // 10)
        print(f"| {variant} | " + " | ".join(str(b) for b in sent) + f" | {sum(sent)} |")


def collectives_main(n: int = 2) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    from msmlir.run import command
    r = subprocess.run(command(n, [__file__, "--collectives-worker"], timeout=600),
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{n} ranks failed:\n{r.stderr[-3000:]}")
    rows = json.loads(r.stdout.strip().splitlines()[-1])["rows"]
    print(f"| op ({n} ranks) | float32 per rank | native us | before us (padded all_reduce; "
          f"all_to_all(_v): all_gather + slices) | speed-up |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['op']} | {row['elements']} | {row['native_us']:.1f} | "
              f"{row['padded_us']:.1f} | {row['padded_us'] / row['native_us']:.2f}x |")
    print("(bytes sent: python bench/distributed.py --bytes)")


def calibrate_worker() -> None:
    """The AUTO_PARALLEL cost model's constants measured here (parallel/auto.py):
    per rank, compiled matmul FLOP/s and elementwise elements/s (thread CPU
    time, min over reps, at the default thread count), and the collectives'
    latency and bandwidth: MPI_Allreduce wall time over sizes, fitted
    t = latency + (ring bytes 2 (n-1)/n S) / bandwidth by least squares
    (min over reps, ranks aligned by a barrier)."""
    import numpy as np
    import msmlir as ms
    from msmlir import communication as comm, ops
    from msmlir.ops import comm as C
    from msmlir.runtime import mpi

    comm.init()
    r, n = comm.get_rank(), comm.get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE)
    rng = np.random.default_rng(r)

    def cpu_min(f, args, reps):
        f(*args)
        best = float("inf")
        for _ in range(reps):
            t0 = time.thread_time()
            f(*args)
            best = min(best, time.thread_time() - t0)
        return best

    flops = {}
    for m in (128, 256, 512):
        a = rng.standard_normal((m, m)).astype(np.float32)
        t = cpu_min(ms.jit(lambda x, y: ops.matmul(x, y)), (a, a), 20 if m < 512 else 8)
        flops[m] = 2.0 * m ** 3 / t
    x = rng.standard_normal(1 << 20).astype(np.float32)
    elem = {name: x.size / cpu_min(ms.jit(f), (x,), 20)
            for name, f in (("exp", lambda v: ops.exp(v)), ("add", lambda v: v + 1.0),
                            ("relu", lambda v: ops.relu(v)))}
    sizes = (1, 256, 4096, 65536, 262144, 1048576)
    f = ms.jit(lambda v: C.all_reduce(v))
    rows = []
    for k in sizes:
        v = np.ones(k, np.float32)
        f(v)
        best = float("inf")
        for _ in range(60 if k < 65536 else 20):
            mpi.barrier()
            t0 = time.perf_counter()
            f(v)
            best = min(best, time.perf_counter() - t0)
        rows.append((2.0 * (n - 1) / n * 4 * k, best))
    A = np.array([[1.0, b] for b, _ in rows])
    t = np.array([s for _, s in rows])
    (lat, inv_bw), *_ = np.linalg.lstsq(A, t, rcond=None)
    if r == 0:
        print(json.dumps({"ranks": n, "matmul_flops": flops, "elementwise_per_s": elem,
                          "allreduce": rows, "latency_s": lat, "bandwidth_Bps": 1.0 / inv_bw}))


def calibrate_main(n: int = 2) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    from msmlir.run import command
    r = subprocess.run(command(n, [__file__, "--calibrate-worker"], timeout=600),
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{n} ranks failed:\n{r.stderr[-3000:]}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    print("matmul FLOP/s per rank (m^3, thread CPU time): "
          + ", ".join(f"{m}: {v:.3g}" for m, v in out["matmul_flops"].items()))
    print("elementwise elements/s per rank (2^20 float32): "
          + ", ".join(f"{k}: {v:.3g}" for k, v in out["elementwise_per_s"].items()))
    print("| all_reduce float32 | ring bytes per rank | wall us (min) | fit us |")
    print("|---|---|---|---|")
    for b, t in out["allreduce"]:
        fit = out["latency_s"] + b / out["bandwidth_Bps"]
        print(f"| {int(b / 4 / (2 * (n - 1) / n))} | {int(b)} | {t * 1e6:.1f} | {fit * 1e6:.1f} |")
    print(f"fit: latency {out['latency_s'] * 1e6:.1f} us, bandwidth {out['bandwidth_Bps']:.3g} B/s")


def main() -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    from msmlir.run import command
    rows = []
    for n in (1, 2):
        r = subprocess.run(command(n, [__file__, "--worker"], timeout=600), capture_output=True,
                           text=True)
        if r.returncode != 0:
            sys.exit(f"{n} ranks failed:\n{r.stderr[-3000:]}")
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
    nbytes = rows[0]["params"] * 4
    print("| ranks | batch per rank | step ms (min) | median | step CPU ms per rank (thread time, "
          "min) | all-reduce ms | all-reduce share | bytes sent per rank per step (ring) |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        n = row["ranks"]
        ar = row["allreduce_ms"]
        share = f"{ar / row['step_ms']:.0%}" if ar else "-"
        sent = int(2 * (n - 1) / n * nbytes)
        print(f"| {n} | {GLOBAL_BATCH // n} | {row['step_ms']:.2f} | {row['median_ms']:.2f} | "
              f"{row['cpu_ms']:.2f} | "
              f"{'-' if ar is None else f'{ar:.3f}'} | {share} | {sent} |")
    print(f"\nLeNet5: {rows[0]['params']} parameters = {nbytes} bytes of gradients per step. "
          "Projection (ring all-reduce, the optimum for MPI_Allreduce on large buffers): each rank "
          "sends 2(N-1)/N of that per step: "
          + ", ".join(f"N={n}: {int(2 * (n - 1) / n * nbytes)} B" for n in (8, 16, 32, 64))
          + "; at 10 Gb/s that is ~0.4 ms per step whatever N, plus 2(N-1) message latencies "
            "(~5 us each over TCP: 0.07 ms at N=8, 0.63 ms at N=64). Adasum as implemented "
            "(all-gather) sends (N-1)x the gradients per rank instead: "
          + ", ".join(f"N={n}: {(n - 1) * nbytes} B" for n in (8, 64)) + ".")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    elif "--collectives-worker" in sys.argv:
        collectives_worker()
    elif "--collectives" in sys.argv:
        collectives_main()
    elif "--bytes-worker" in sys.argv:
        bytes_worker(sys.argv[sys.argv.index("--bytes-worker") + 1])
    elif "--bytes" in sys.argv:
        bytes_main()
    elif "--calibrate-worker" in sys.argv:
        calibrate_worker()
    elif "--calibrate" in sys.argv:
        calibrate_main()
    else:
        main()
