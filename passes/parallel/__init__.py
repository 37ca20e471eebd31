"""Semi-auto parallelism: MindSpore sharding strategies -> upstream `shard`
dialect -> per-rank SPMD programs whose collectives call MPI.

    insert_shardings.py   mindir-insert-shardings: strategies -> shard annotations
    sink_constants.py     msmlir-sink-constants: constants into linalg bodies
    shardable.py          msmlir-make-shardable: unit-dim reshapes and ramp
                          constants -> linalg.generic (shardable)
    partition.py          msmlir-shard-partition: upstream sharding-propagation +
                          shard-partition (in an isolated mlir-opt)
    collectives_to_mindir.py  msmlir-shard-collectives-to-mindir: all_gather /
                          all_slice / all_to_all (no upstream MPI pattern) ->
                          mindir.all_gather and local slices
    world_comm.py         msmlir-mpi-world-comm: comm_split of the world -> world
    outline_mpi.py        msmlir-outline-mpi: mpi ops on buffers -> helper calls
    materialize_mpi.py    msmlir-materialize-mpi: the helpers' bodies (after
                          bufferization)
    pipeline.py           msmlir-cpu-shard-pipeline (opt-in)
"""
from . import (collectives_to_mindir, insert_shardings, materialize_mpi, outline_mpi,  # noqa: F401
               partition, pipeline, shardable, sink_constants, world_comm)
