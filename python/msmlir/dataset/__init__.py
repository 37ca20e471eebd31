"""MindSpore's `mindspore.dataset`: data pipelines feeding msmlir Tensors.

    import msmlir as ms
    import msmlir.dataset as ds
    from msmlir.dataset import transforms, vision

    data = ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=True)
    data = data.map([vision.RandomCrop(28, padding=2), vision.Rescale(1 / 255, 0),
                     vision.HWC2CHW()], "image", num_parallel_workers=2)
    data = data.map(transforms.TypeCast(ms.int32), "label").batch(32, drop_remainder=True)
    for image, label in data.create_tuple_iterator(num_epochs=1):
        ...

The pipeline: `datasets` (the Dataset node and its operations), `sources` and
`file_sources` (MindDataset, ImageFolderDataset, CIFAR), `tfrecord`, `schema`,
`iterators` (prefetching thread, error propagation), `_parallel` (the thread pool
behind num_parallel_workers), `_run` (seeds and determinism); `samplers` for the
samplers, `config` for seeds, worker counts and prefetch sizes, `vision` /
`transforms` for the transforms, `cache` for DatasetCache (rows kept in memory
across passes).
"""
from . import config, samplers, transforms, vision  # noqa: F401
from .datasets import (BatchDataset, BatchInfo, ConcatDataset, Dataset,  # noqa: F401
                       FilterDataset, MapDataset, ProjectDataset, RenameDataset, RepeatDataset,
                       ShuffleDataset, SkipDataset, TakeDataset, ZipDataset)
from .sources import GeneratorDataset, MnistDataset, NumpySlicesDataset  # noqa: F401
from .file_sources import (Cifar10Dataset, Cifar100Dataset, ImageFolderDataset,  # noqa: F401
                           MindDataset, PaddedDataset, Shuffle)
from .samplers import (DistributedSampler, RandomSampler, Sampler,  # noqa: F401
                       SequentialSampler, SubsetRandomSampler, SubsetSampler,
                       WeightedRandomSampler)
from .schema import Schema  # noqa: F401
from .tfrecord import TFRecordDataset  # noqa: F401
from .vision import Border, Inter  # noqa: F401
from .cache import DatasetCache  # noqa: F401
from .config import set_seed, get_seed  # noqa: F401  (mindspore.dataset.core.config's)


def zip(datasets):   # noqa: A001 - MindSpore's name
    """`mindspore.dataset.zip((d1, d2, ...))`: the rows of the datasets side by side."""
    if not isinstance(datasets, tuple) or len(datasets) < 2:
        raise TypeError(f"zip: datasets must be a tuple of at least 2 datasets, got {datasets!r}")
    return datasets[0].zip(datasets[1:])

__all__ = ["Dataset", "NumpySlicesDataset", "GeneratorDataset", "MnistDataset", "BatchInfo",
           "MapDataset", "BatchDataset", "FilterDataset", "ShuffleDataset", "RepeatDataset",
           "TakeDataset", "SkipDataset", "ProjectDataset", "RenameDataset", "ZipDataset",
           "ConcatDataset", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "SubsetSampler", "DistributedSampler", "WeightedRandomSampler",
           "MindDataset", "ImageFolderDataset", "Cifar10Dataset", "Cifar100Dataset", "Shuffle",
           "Schema", "TFRecordDataset", "PaddedDataset",
           "Inter", "Border", "config", "samplers", "transforms", "vision", "DatasetCache",
           "zip"]
