"""nn.DistributedGradReducer (MindSpore's): data-parallel gradient averaging.

Every rank computes the gradients of its shard of the batch; the reducer sums
them over the ranks (one all_reduce per bucket, not per parameter) and divides
by the number of ranks when `mean`. Gradients are flattened and concatenated
into buckets of at most `bucket_mb` MiB per dtype, so a LeNet5 step does one
all-reduce; in graph mode the flatten/concat/split/reshape around it fuse with
the neighbouring kernels and the collective is compiled into the step.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..ops import comm
from ..runtime import mpi
from .cell import Cell

__all__ = ["DistributedGradReducer"]


def _buckets(shapes_dtypes, limit_bytes: int) -> list[list[int]]:
    """Indices of the gradients grouped into buckets: same dtype, in order, at
    most `limit_bytes` each (a single larger gradient gets its own bucket)."""
    buckets, current, size, dtype = [], [], 0, None
    for i, (shape, dt) in enumerate(shapes_dtypes):
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize
        if current and (dt != dtype or size + nbytes > limit_bytes):
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        size += nbytes
        dtype = dt
    if current:
        buckets.append(current)
    return buckets


class DistributedGradReducer(Cell):
    """grads -> the ranks' (mean) gradients, in the same structure.

    `parameters`: the parameters the gradients belong to (their shapes and
    dtypes decide the buckets); `mean`: divide the sum by `degree` (default:
    the number of ranks); `fusion_type`/`group` are accepted for MindSpore
    scripts (one bucket set; the world group)."""

    def __init__(self, parameters, mean=True, degree=None, fusion_type=1, group=None,
                 bucket_mb=64):
        super().__init__(auto_prefix=False)
        if group not in (None, "mpi_world_group", "hccl_world_group", "nccl_world_group"):
            raise ValueError(f"group {group!r}: only the world group is supported")
        if not mpi.initialized():
            raise RuntimeError("DistributedGradReducer needs msmlir.communication.init() first")
        self.mean = bool(mean)
        self.degree = int(degree) if degree is not None else mpi.size()
        if self.degree < 1:
            raise ValueError(f"degree must be positive, got {degree}")
        params = list(parameters)
        self._shapes = [tuple(p.shape) for p in params]
        dtypes = [np.asarray(p.asnumpy()).dtype for p in params]
        self._plan = _buckets(list(zip(self._shapes, dtypes)), int(bucket_mb * 2 ** 20))

    def construct(self, grads):
        grads = tuple(grads)
        if len(grads) != len(self._shapes):
            raise ValueError(f"DistributedGradReducer: {len(grads)} gradients for "
                             f"{len(self._shapes)} parameters")
        out = list(grads)
        for bucket in self._plan:
            flat = ops.concat([ops.reshape(grads[i], (-1,)) for i in bucket]) if len(bucket) > 1 \
                else ops.reshape(grads[bucket[0]], (-1,))
            total = comm.all_reduce(flat)
            if self.mean and self.degree != 1:
                total = total / float(self.degree)
            sizes = [int(np.prod(self._shapes[i], dtype=np.int64)) for i in bucket]
            parts = ops.split(total, sizes) if len(bucket) > 1 else (total,)
            for i, part in zip(bucket, parts):
                out[i] = ops.reshape(part, self._shapes[i])
        return tuple(out)
