"""DatasetCache (rows of a source or of a map kept across passes), the vision
transforms RandomAffine / RandomErasing / RandomResize / MixUpBatch, is_pil, and
ds.zip / ds.set_seed."""
import os
import shutil

import numpy as np
import pytest

import msmlir.dataset as ds
from msmlir.dataset import vision


def _folder(root, n=3):
    from PIL import Image
    for c in "ab":
        os.makedirs(root / c)
        for i in range(n):
            Image.fromarray(np.full((4, 4, 3), i * 10 + ord(c), np.uint8)).save(root / c / f"{i}.png")


def _epoch(d):
    return [(int(im[0, 0, 0]), int(lbl)) for im, lbl in
            d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_source_cache_serves_later_passes_and_sampler_still_shuffles(tmp_path):
    root = tmp_path / "imgs"
    _folder(root)
    cache = ds.DatasetCache(session_id=1, size=0)
    d = ds.ImageFolderDataset(str(root), shuffle=True, cache=cache).map(vision.Decode(), "image")
    first = _epoch(d)
    shutil.rmtree(root)                       # later passes cannot read the files any more
    rows = _epoch(d.repeat(4))
    passes = [rows[6 * k:6 * k + 6] for k in range(4)]
    assert all(sorted(p) == sorted(first) for p in passes)
    assert len({tuple(p) for p in passes}) > 1       # the sampler reshuffles every pass
    assert cache.get_stat().num_mem_cached == 6


def test_map_cache_replays_outputs(tmp_path):
    calls = []

    def op(x):
        calls.append(1)
        return x * 2

    cache = ds.DatasetCache(session_id=2)
    d = ds.NumpySlicesDataset(np.arange(5), shuffle=False).map(op, cache=cache)
    a = [int(r[0]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    b = [int(r[0]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert a == b == [0, 2, 4, 6, 8] and len(calls) == 5


def test_cache_limit_and_errors(tmp_path):
    root = tmp_path / "imgs"
    _folder(root, 2)
    tiny = ds.DatasetCache(session_id=3, size=1)                 # 1 MB: rows of ~80 bytes fit
    ds.ImageFolderDataset(str(root), cache=tiny).get_dataset_size()
    with pytest.raises(ValueError, match="spilling"):
        ds.DatasetCache(session_id=1, spilling=True)
    with pytest.raises(ValueError, match="session_id must be a non-negative int"):
        ds.DatasetCache(session_id=-1)
    with pytest.raises(TypeError, match="cache must be a DatasetCache"):
        ds.ImageFolderDataset(str(root), cache="yes")
    src = ds.NumpySlicesDataset(np.arange(4), shuffle=True)
    with pytest.raises(ValueError, match="shuffles them"):
        src.map(lambda x: x, cache=ds.DatasetCache(session_id=4))
    with pytest.raises(ValueError, match="must not be random"):
        ds.NumpySlicesDataset(np.zeros((2, 4, 4, 3), np.uint8), shuffle=False).map(
            vision.RandomHorizontalFlip(), cache=ds.DatasetCache(session_id=4))


IMG = np.arange(64, dtype=np.uint8).reshape(8, 8)


def test_random_affine_exact_cases():
    np.testing.assert_array_equal(vision.RandomAffine((90, 90))(IMG), np.rot90(IMG, -1))
    shifted = vision.RandomAffine(0, translate=(0.25, 0.25, -0.125, -0.125))(IMG)
    expect = np.zeros_like(IMG)
    expect[:7, 2:] = IMG[1:, :6]                                 # 2 right, 1 up, fill 0
    np.testing.assert_array_equal(shifted, expect)
    scaled = vision.RandomAffine(0, scale=(2.0, 2.0), resample=vision.Inter.BILINEAR)(
        np.tile(np.arange(8.0, dtype=np.float32), (8, 1)))
    np.testing.assert_allclose(scaled[3], 3.5 + (np.arange(8) - 3.5) / 2)   # x about the center
    rgb = vision.RandomAffine(10, (-.1, .1), (0.9, 1.1), (-5, 5, -5, 5), fill_value=(1, 2, 3))(
        np.full((6, 7, 3), 200, np.uint8))
    assert rgb.shape == (6, 7, 3) and rgb.dtype == np.uint8
    with pytest.raises(ValueError, match="not supported"):
        vision.RandomAffine(0, resample=vision.Inter.BICUBIC)
    with pytest.raises(ValueError, match=r"translate must lie in \[-1.0, 1.0\]"):
        vision.RandomAffine(0, translate=(0, 2))


def test_random_erasing_and_resize():
    x = np.ones((3, 16, 16), np.float32)
    out = vision.RandomErasing(prob=1.0, value=(0, 5, 7))(x)
    erased = out[0] == 0
    rows, cols = np.nonzero(erased)
    box = erased[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    assert box.all() and 0.02 * 256 <= box.size <= 0.33 * 256 + 32      # one rectangle
    assert (out[1][erased] == 5).all() and (out[2][erased] == 7).all()
    assert (out[:, ~erased] == 1).all()
    np.testing.assert_array_equal(vision.RandomErasing(prob=0.0)(x), x)
    with pytest.raises(RuntimeError, match=r"<C, H, W>"):
        vision.RandomErasing(prob=1.0)(np.ones((4, 4), np.float32))
    img = np.random.default_rng(0).random((10, 12, 3)).astype(np.float32)
    modes = [vision.Inter.LINEAR, vision.Inter.NEAREST, vision.Inter.BICUBIC, vision.Inter.AREA]
    refs = [vision.Resize((5, 6), m)(img) for m in modes]
    for _ in range(8):
        out = vision.RandomResize((5, 6))(img)
        assert any(np.array_equal(out, r) for r in refs)


def test_mixup_batch_in_a_pipeline():
    x = np.random.default_rng(1).random((8, 4, 4, 3)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[np.arange(8) % 4]
    d = ds.NumpySlicesDataset((x, y), column_names=["image", "label"], shuffle=False).batch(8)
    d = d.map(vision.MixUpBatch(0.4), input_columns=["image", "label"])
    (img, lbl), = [tuple(r) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    np.testing.assert_allclose(lbl.sum(1), 1, rtol=1e-6)
    # one lam for the batch and a permutation p: img[i] = lam x[i] + (1 - lam) x[p[i]],
    # lbl[i] = lam y[i] + (1 - lam) y[p[i]]
    def fit(i, k):
        """lam with which row i mixes row k (nan: k == i, any lam), or None."""
        d = (x[i] - x[k]).ravel()
        lam = float(np.dot(img[i].ravel() - x[k].ravel(), d) / d.dot(d)) if k != i else 1.0
        ok = (k == i or 0 < lam < 1 - 1e-6) and \
            np.allclose(img[i], lam * x[i] + (1 - lam) * x[k], atol=1e-5) and \
            np.allclose(lbl[i], lam * y[i] + (1 - lam) * y[k], atol=1e-5)
        return (np.nan if k == i else lam) if ok else None
    matches = [[(k, fit(i, k)) for k in range(8) if fit(i, k) is not None] for i in range(8)]
    assert all(len(m) == 1 for m in matches)
    perm = [m[0][0] for m in matches]
    lams = np.array([m[0][1] for m in matches])
    lams = lams[~np.isnan(lams)]
    assert sorted(perm) == list(range(8))
    assert lams.size and np.ptp(lams) < 1e-4 and 0 < lams[0] < 1
    with pytest.raises(RuntimeError, match="one-hot"):
        vision.MixUpBatch()(x, np.arange(8))
    with pytest.raises(RuntimeError, match="after batch"):
        vision.MixUpBatch()(x[0], y)


def test_is_pil_zip_set_seed():
    from PIL import Image

    from msmlir.dataset.vision import py_transforms_util
    assert py_transforms_util.is_pil(Image.new("RGB", (2, 2))) and not vision.is_pil(IMG)
    a = ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False)
    b = ds.NumpySlicesDataset({"b": np.arange(3) * 10}, shuffle=False)
    rows = [(int(r[0]), int(r[1])) for r in
            ds.zip((a, b)).create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert rows == [(0, 0), (1, 10), (2, 20)]
    with pytest.raises(TypeError, match="tuple of at least 2"):
        ds.zip(a)
    assert ds.set_seed is ds.config.set_seed and ds.get_seed is ds.config.get_seed
