"""File-backed sources: MindDataset (record files of `msmlir.mindrecord`),
ImageFolderDataset (one sub-directory per class), Cifar10Dataset / Cifar100Dataset
(the binary versions of CIFAR). All are random-access sources: shuffle, samplers,
num_samples and num_shards/shard_id work as in `sources._SourceDataset`."""
from __future__ import annotations

import os
from enum import Enum

import numpy as np

from .sources import _RandomAccessDataset

__all__ = ["MindDataset", "ImageFolderDataset", "Cifar10Dataset", "Cifar100Dataset", "Shuffle",
           "PaddedDataset"]


class Shuffle(str, Enum):
    """MindSpore's shuffle levels for file sources. msmlir shuffles rows globally for all
    three (a file-level-only shuffle is a performance trade-off of MindSpore's reader)."""
    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


def _shuffle_arg(shuffle, what):
    if isinstance(shuffle, Shuffle):
        return True
    if shuffle is None or isinstance(shuffle, bool):
        return shuffle
    raise TypeError(f"{what}: shuffle must be a bool, None or a dataset.Shuffle, got "
                    f"{shuffle!r}")


class MindDataset(_RandomAccessDataset):
    """Rows of record files written by `msmlir.mindrecord.FileWriter` (msmlir's own,
    validated layout, see `msmlir.mindrecord`). `dataset_files`: one file name (its
    whole shard set is read) or a list of files. Columns: `columns_list` (default all
    schema fields, in schema order). Values: numeric scalars as 0-d arrays of their
    type, shaped fields as arrays, strings as 0-d str arrays, bytes as 1-D uint8 arrays
    (e.g. encoded images for vision.Decode). Rows come shard by shard, in write order
    within a shard. `padded_sample` (a dict of all columns) repeated `num_padded` times
    is appended, as MindSpore does to even out shards. `Shuffle.FILES` / `INFILE` shuffle
    globally, like True."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, sampler=None,
                 padded_sample=None, num_padded=None, num_samples=None, cache=None):
        from ..mindrecord import open_file_set, select_columns
        self._shards = open_file_set(dataset_files, "MindDataset")
        cols = select_columns(self._shards[0], columns_list, "MindDataset", "columns_list")
        schema = self._shards[0].schema
        self._pad = None
        self._num_padded = 0
        if (padded_sample is None) != (num_padded is None):
            raise ValueError("MindDataset: padded_sample and num_padded must be given together")
        if padded_sample is not None:
            if not isinstance(padded_sample, dict) or set(padded_sample) != set(cols):
                raise ValueError(f"MindDataset: padded_sample must be a dict with exactly the "
                                 f"columns {cols}")
            if isinstance(num_padded, bool) or not isinstance(num_padded, int) or \
                    num_padded < 0:
                raise ValueError(f"MindDataset: num_padded must be a non-negative int, got "
                                 f"{num_padded!r}")
            self._pad = tuple(self._pad_value(c, schema[c], padded_sample[c]) for c in cols)
            self._num_padded = num_padded
        super().__init__(cols, num_samples, _shuffle_arg(shuffle, "MindDataset"), sampler,
                         num_shards, shard_id, num_parallel_workers)
        self._set_cache(cache)
        self._starts = np.cumsum([0] + [len(s) for s in self._shards])

    @staticmethod
    def _pad_value(name, spec, value):
        if spec["type"] == "bytes" and isinstance(value, (bytes, bytearray)):
            return np.frombuffer(bytes(value), dtype=np.uint8).copy()
        if spec["type"] == "string":
            return np.asarray(str(value))
        from ..mindrecord import _NUMERIC
        return np.asarray(value, dtype=_NUMERIC[spec["type"]].newbyteorder("="))

    def _n(self):
        return int(self._starts[-1]) + self._num_padded

    def _get(self, i):
        if i >= self._starts[-1]:
            return tuple(np.array(v, copy=True) for v in self._pad)
        k = int(np.searchsorted(self._starts, i, side="right")) - 1
        row = self._shards[k].read(i - int(self._starts[k]))
        return tuple(np.asarray(row[c]) for c in self._columns)


class ImageFolderDataset(_RandomAccessDataset):
    """Images in `dataset_dir/<class>/<file>`: columns 'image' (the file's bytes, 1-D
    uint8, or with `decode=True` an RGB HWC uint8 array, decoded by Pillow) and 'label'
    (int32). Classes are the sub-directories sorted by name, labelled 0, 1, ... unless
    `class_indexing` ({folder: label}) gives the labels (and then only those folders
    are read). Files in a class directory are sorted by name; `extensions` (e.g.
    ['.JPEG', '.png'], matched exactly) keeps only those files (default: all files).
    Row order without shuffling: class by class in sorted folder order."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None, cache=None, decrypt=None):
        if not isinstance(dataset_dir, str) or not os.path.isdir(dataset_dir):
            raise ValueError(f"ImageFolderDataset: dataset_dir {dataset_dir!r} is not a "
                             f"directory")
        if extensions is not None and (not isinstance(extensions, (list, tuple)) or
                                       not all(isinstance(e, str) for e in extensions)):
            raise TypeError(f"ImageFolderDataset: extensions must be a list of str, got "
                            f"{extensions!r}")
        if not isinstance(decode, bool):
            raise TypeError(f"ImageFolderDataset: decode must be a bool, got {decode!r}")
        folders = sorted(d for d in os.listdir(dataset_dir)
                         if os.path.isdir(os.path.join(dataset_dir, d)))
        if class_indexing is None:
            class_indexing = {d: i for i, d in enumerate(folders)}
        else:
            if not isinstance(class_indexing, dict) or not all(
                    isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and
                    v >= 0 for k, v in class_indexing.items()):
                raise TypeError(f"ImageFolderDataset: class_indexing must be a dict of folder "
                                f"name -> non-negative int, got {class_indexing!r}")
            missing = [k for k in class_indexing if k not in folders]
            if missing:
                raise ValueError(f"ImageFolderDataset: class_indexing names folders {missing} "
                                 f"that are not in {dataset_dir}")
            class_indexing = dict(class_indexing)
        exts = None if extensions is None else set(extensions)
        files, labels = [], []
        for d in sorted(class_indexing):
            sub = os.path.join(dataset_dir, d)
            for f in sorted(os.listdir(sub)):
                p = os.path.join(sub, f)
                if os.path.isfile(p) and (exts is None or os.path.splitext(f)[1] in exts):
                    files.append(p)
                    labels.append(class_indexing[d])
        if not files:
            raise RuntimeError(f"ImageFolderDataset: no image files found in the class folders "
                               f"of {dataset_dir}" + (f" with extensions {sorted(exts)}"
                                                      if exts is not None else ""))
        super().__init__(["image", "label"], num_samples,
                         _shuffle_arg(shuffle, "ImageFolderDataset"), sampler, num_shards,
                         shard_id, num_parallel_workers)
        self._set_cache(cache)
        self._files = files
        self._labels = np.asarray(labels, dtype=np.int32)
        self._class_indexing = class_indexing
        self._decode = decode

    def get_class_indexing(self):
        return dict(self._class_indexing)

    def _n(self):
        return len(self._files)

    def _get(self, i):
        with open(self._files[i], "rb") as f:
            data = np.frombuffer(f.read(), dtype=np.uint8)
        if self._decode:
            from .vision import Decode
            try:
                data = Decode()(data)
            except RuntimeError as e:
                raise RuntimeError(f"ImageFolderDataset: {self._files[i]}: {e}") from None
        return data, np.asarray(self._labels[i])


def _read_cifar(paths, n_labels, what):
    """(images HWC uint8 [N, 32, 32, 3], labels uint8 [N, n_labels]) from CIFAR binary
    files: per record n_labels label bytes, then 3072 pixel bytes (R, G, B planes of
    32 x 32, row-major)."""
    rec = n_labels + 3072
    imgs, labels = [], []
    for p in paths:
        with open(p, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        if raw.size == 0 or raw.size % rec:
            raise RuntimeError(f"{what}: {p} has {raw.size} bytes, not a multiple of the "
                               f"{rec}-byte CIFAR record")
        raw = raw.reshape(-1, rec)
        imgs.append(raw[:, n_labels:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        labels.append(raw[:, :n_labels])
    return np.ascontiguousarray(np.concatenate(imgs)), np.concatenate(labels)


def _cifar_usage(usage, what):
    usage = "all" if usage is None else usage
    if usage not in ("train", "test", "all"):
        raise ValueError(f"{what}: usage must be 'train', 'test' or 'all', got {usage!r}")
    return usage


class Cifar10Dataset(_RandomAccessDataset):
    """CIFAR-10, binary version, in `dataset_dir`: data_batch_*.bin (train, sorted by
    name) and test_batch.bin (test). Columns 'image' (uint8, [32, 32, 3] HWC) and
    'label' (uint32). `usage`: 'train', 'test' or 'all' (default; train then test).
    Files are checked (record size, labels < 10)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = _cifar_usage(usage, "Cifar10Dataset")
        if not isinstance(dataset_dir, str) or not os.path.isdir(dataset_dir):
            raise ValueError(f"Cifar10Dataset: dataset_dir {dataset_dir!r} is not a directory")
        names = os.listdir(dataset_dir)
        paths = []
        if usage in ("train", "all"):
            train = sorted(n for n in names if n.startswith("data_batch_") and
                           n.endswith(".bin"))
            if not train:
                raise RuntimeError(f"Cifar10Dataset: no data_batch_*.bin in {dataset_dir}")
            paths += train
        if usage in ("test", "all"):
            if "test_batch.bin" not in names:
                raise RuntimeError(f"Cifar10Dataset: no test_batch.bin in {dataset_dir}")
            paths.append("test_batch.bin")
        paths = [os.path.join(dataset_dir, n) for n in paths]
        self._images, labels = _read_cifar(paths, 1, "Cifar10Dataset")
        if labels.max() > 9:
            raise RuntimeError(f"Cifar10Dataset: a label is {int(labels.max())}; CIFAR-10 "
                               f"labels are 0..9 (is this the CIFAR-100 binary version?)")
        self._labels = labels[:, 0].astype(np.uint32)
        super().__init__(["image", "label"], num_samples, shuffle, sampler, num_shards,
                         shard_id, num_parallel_workers)
        self._set_cache(cache)

    def _workers(self):
        return 1

    def _n(self):
        return len(self._labels)

    def _get(self, i):
        return self._images[i], np.asarray(self._labels[i])


class Cifar100Dataset(_RandomAccessDataset):
    """CIFAR-100, binary version, in `dataset_dir`: train.bin and test.bin (per record a
    coarse label byte, a fine label byte, 3072 pixel bytes). Columns 'image' (uint8,
    [32, 32, 3]), 'coarse_label' and 'fine_label' (uint32). Labels are checked
    (coarse < 20, fine < 100)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = _cifar_usage(usage, "Cifar100Dataset")
        if not isinstance(dataset_dir, str) or not os.path.isdir(dataset_dir):
            raise ValueError(f"Cifar100Dataset: dataset_dir {dataset_dir!r} is not a "
                             f"directory")
        parts = ["train", "test"] if usage == "all" else [usage]
        paths = [os.path.join(dataset_dir, f"{p}.bin") for p in parts]
        for p in paths:
            if not os.path.isfile(p):
                raise RuntimeError(f"Cifar100Dataset: {p} does not exist")
        self._images, labels = _read_cifar(paths, 2, "Cifar100Dataset")
        if labels[:, 0].max() > 19 or labels[:, 1].max() > 99:
            raise RuntimeError("Cifar100Dataset: labels out of range (coarse must be < 20, "
                               "fine < 100)")
        self._labels = labels.astype(np.uint32)
        super().__init__(["image", "coarse_label", "fine_label"], num_samples, shuffle,
                         sampler, num_shards, shard_id, num_parallel_workers)
        self._set_cache(cache)

    def _workers(self):
        return 1

    def _n(self):
        return len(self._labels)

    def _get(self, i):
        return self._images[i], np.asarray(self._labels[i, 0]), np.asarray(self._labels[i, 1])


class PaddedDataset(_RandomAccessDataset):
    """Rows given as a list of dicts (all with the same keys: the columns, in the first
    dict's order), in order; MindSpore uses it to pad a dataset (via concat) so that its
    shards get equal rows."""

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list) or not padded_samples or \
                not all(isinstance(r, dict) for r in padded_samples):
            raise TypeError("PaddedDataset: padded_samples must be a non-empty list of dicts")
        cols = list(padded_samples[0])
        for k, r in enumerate(padded_samples):
            if set(r) != set(cols):
                raise ValueError(f"PaddedDataset: sample {k} has columns {sorted(r)}, sample 0 "
                                 f"has {sorted(cols)}")
        from ._util import to_numpy
        self._rows_data = [tuple(to_numpy(r[c]) for c in cols) for r in padded_samples]
        super().__init__(cols, None, False, None, None, None, None)

    def _n(self):
        return len(self._rows_data)

    def _get(self, i):
        return tuple(np.array(v, copy=True) for v in self._rows_data[i])
