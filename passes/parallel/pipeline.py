"""msmlir-cpu-shard-pipeline: msmlir-cpu-pipeline for sharded (semi-auto
parallel) programs, one SPMD program that every MPI rank runs on its slice.

Why a pipeline of its own: the default CPU path stays exactly as it is; this
one is opt-in (msmlir.parallel.shard compiles with it). Its stages are the
CPU pipeline's (passes/pipelines/cpu.py) with three additions:

  shard-annotate (after the graph preparation, on mindir)
      mindir-insert-shardings: strategies -> shard.grid/sharding/shard ops
  shard (after "linalg", before the tensor codegen and bufferization)
      inline,symbol-dce                   kernels back into their callers
                                          (propagation is function-local)
      msmlir-sink-constants               (works around an upstream crash)
      msmlir-make-shardable               reshapes, ramp constants -> linalg
      msmlir-shard-partition              upstream sharding-propagation +
                                          shard-partition: per-rank slices and
                                          the resharding collectives
      msmlir-shard-collectives-to-mindir, all_gather/all_slice/all_to_all
      convert-mindir-to-linalg            through msmlir's collective and local
                                          slices (no upstream MPI pattern)
      convert-shard-to-mpi                upstream: shard.all_reduce and the
                                          process index -> mpi dialect
      msmlir-mpi-world-comm               its per-call MPI_Comm_split of the
                                          whole world -> MPI_COMM_WORLD, of a
                                          sub-grid -> a host-made communicator
      msmlir-outline-mpi, symbol-dce      mpi ops on buffers out of the way of
                                          the deallocation passes; the
                                          (private) grid dropped
  llvm: msmlir-materialize-mpi before msmlir-materialize-collectives.

Options: the CPU pipeline's, plus device-num (for functions without a
`mindir.device_num` attribute).
"""
from __future__ import annotations

from ..pipelines.cpu import GRAPH_PREPARE, OPTIONS
from ..registry import Option, get_pass, register_pipeline

SHARD_OPTIONS = dict(OPTIONS)
SHARD_OPTIONS["device-num"] = Option(int, 0, "ranks of the device mesh for functions "
                                              "without mindir.device_num")

SHARD_STAGE = ("inline,symbol-dce,"
               "msmlir-sink-constants,msmlir-make-shardable,msmlir-shard-partition,"
               "msmlir-shard-collectives-to-mindir,convert-mindir-to-linalg,"
               "convert-shard-to-mpi,msmlir-mpi-world-comm,"
               "msmlir-outline-mpi,symbol-dce,canonicalize,cse")


def shard_lowering_stages(device_num: int = 0, **options) -> list[tuple[str, str]]:
    """msmlir-cpu-shard-pipeline after GRAPH_PREPARE as named stages
    [(name, pipeline text)]; `options`: msmlir-cpu-pipeline's."""
    from ..pipelines.cpu import cpu_lowering_stages
    stages = []
    for name, text in cpu_lowering_stages(**options):
        if name == "kernels":
            stages.append(("shard-annotate", f"mindir-insert-shardings{{device-num={device_num}}}"))
        if name == "llvm":
            text = text.replace("msmlir-materialize-collectives",
                                "msmlir-materialize-mpi,msmlir-materialize-collectives")
        stages.append((name, text))
        if name == "linalg":
            stages.append(("shard", SHARD_STAGE))
    return stages


@register_pipeline("msmlir-cpu-shard-pipeline",
                   "msmlir-cpu-pipeline + sharding strategies -> per-rank SPMD program (MPI)",
                   options=SHARD_OPTIONS)
def cpu_shard_pipeline(*, device_num: int, graph_kernel: bool, codegen: bool, threads: int,
                       globalize: bool, fast_math: bool, min_work: int, inline_kernels: bool,
                       poly: bool) -> str:
    cpu = get_pass("msmlir-cpu-pipeline").kwargs(dict(
        graph_kernel=graph_kernel, codegen=codegen, threads=threads, globalize=globalize,
        fast_math=fast_math, min_work=min_work, inline_kernels=inline_kernels, poly=poly))
    stages = shard_lowering_stages(device_num, **cpu)
    return ",".join([GRAPH_PREPARE] + [text for _, text in stages])
