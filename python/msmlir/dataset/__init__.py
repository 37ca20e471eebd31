"""MindSpore's `mindspore.dataset`: data pipelines feeding msmlir Tensors.

    import msmlir as ms
    ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=True)
    ds = ds.map(lambda v: v * 2, input_columns="x").batch(32, drop_remainder=True)
    for x_batch, y_batch in ds.create_tuple_iterator(num_epochs=1):
        ...

See `engine` for the pipeline semantics (prefetching thread, error propagation,
determinism) and `config` for seeds and prefetch sizes.
"""
from . import config, transforms, vision  # noqa: F401
from .engine import (BatchInfo, Dataset, GeneratorDataset, MnistDataset,  # noqa: F401
                     NumpySlicesDataset)

__all__ = ["Dataset", "NumpySlicesDataset", "GeneratorDataset", "MnistDataset", "BatchInfo",
           "config", "transforms", "vision"]
