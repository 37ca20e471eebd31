"""ImageFolderDataset, Cifar10/100Dataset and the Pillow-backed vision ops (Decode,
RandomCropDecodeResize, RandomColorAdjust), checked against Pillow / numpy directly."""
import io

import numpy as np
import pytest

PIL = pytest.importorskip("PIL")
from PIL import Image, ImageEnhance  # noqa: E402

import msmlir.dataset as ds  # noqa: E402
from msmlir.dataset import vision  # noqa: E402


def _img(h, w, seed):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def _png(arr):
    b = io.BytesIO()
    Image.fromarray(arr).save(b, format="PNG")
    return b.getvalue()


# ---------------------------------------------------------------------------
# ImageFolderDataset
# ---------------------------------------------------------------------------

@pytest.fixture
def folder(tmp_path):
    imgs = {}
    for c, cls in enumerate(["dog", "ant", "cat"]):
        (tmp_path / cls).mkdir()
        for k in range(c + 1):
            arr = _img(5 + k, 7, 10 * c + k)
            p = tmp_path / cls / f"{k}.png"
            p.write_bytes(_png(arr))
            imgs[str(p)] = arr
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    (tmp_path / "stray.png").write_bytes(_png(_img(2, 2, 99)))    # not in a class folder
    return tmp_path, imgs


def test_image_folder_labels_and_bytes(folder):
    root, imgs = folder
    d = ds.ImageFolderDataset(str(root), shuffle=False, extensions=[".png"])
    assert d.get_col_names() == ["image", "label"]
    assert d.get_class_indexing() == {"ant": 0, "cat": 1, "dog": 2}
    rows = list(d.create_tuple_iterator(output_numpy=True))
    order = [("ant", 0), ("ant", 1), ("cat", 0), ("cat", 1), ("cat", 2), ("dog", 0)]
    assert [int(l) for _, l in rows] == [0, 0, 1, 1, 1, 2]
    for (img, lbl), (cls, k) in zip(rows, order):
        assert img.dtype == np.uint8 and img.ndim == 1
        assert img.tobytes() == (root / cls / f"{k}.png").read_bytes()
        assert lbl.dtype == np.int32
    # all files without extensions: the .txt file comes too
    assert ds.ImageFolderDataset(str(root)).get_dataset_size() == 7


def test_image_folder_decode_class_indexing_shards(folder):
    root, imgs = folder
    d = ds.ImageFolderDataset(str(root), shuffle=False, decode=True,
                              class_indexing={"cat": 7, "dog": 3}, extensions=[".png"])
    rows = list(d.create_tuple_iterator(output_numpy=True))
    want = [(imgs[str(root / "cat" / f"{k}.png")], 7) for k in range(3)] + \
        [(imgs[str(root / "dog" / "0.png")], 3)]
    assert len(rows) == 4
    for (img, lbl), (w, wl) in zip(rows, want):
        np.testing.assert_array_equal(img, w)
        assert int(lbl) == wl
    ds.config.set_seed(3)
    parts = [sorted(int(l) for _, l in ds.ImageFolderDataset(
        str(root), num_shards=2, shard_id=s, extensions=[".png"])
        .create_tuple_iterator(output_numpy=True)) for s in range(2)]
    assert sorted(parts[0] + parts[1]) == [0, 0, 1, 1, 1, 2]


def test_image_folder_errors(folder, tmp_path_factory):
    root, _ = folder
    with pytest.raises(ValueError, match="not a directory"):
        ds.ImageFolderDataset(str(root / "nope"))
    with pytest.raises(ValueError, match=r"folders \['bird'\]"):
        ds.ImageFolderDataset(str(root), class_indexing={"bird": 0})
    with pytest.raises(RuntimeError, match="no image files"):
        ds.ImageFolderDataset(str(root), extensions=[".jpg"])
    d = ds.ImageFolderDataset(str(root), decode=True, class_indexing={"cat": 0}, shuffle=False)
    with pytest.raises(RuntimeError, match="notes.txt: Decode: cannot decode"):
        list(d.create_tuple_iterator(output_numpy=True))


# ---------------------------------------------------------------------------
# CIFAR
# ---------------------------------------------------------------------------

def _cifar_records(n, n_labels, seed, label_hi):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, label_hi, (n, n_labels), dtype=np.uint8)
    pix = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
    return np.concatenate([labels, pix], axis=1), labels, pix


def test_cifar10(tmp_path):
    recs = {}
    for name, n, seed in [("data_batch_1.bin", 3, 1), ("data_batch_2.bin", 2, 2),
                          ("test_batch.bin", 4, 3)]:
        r, lab, pix = _cifar_records(n, 1, seed, 10)
        (tmp_path / name).write_bytes(r.tobytes())
        recs[name] = (lab[:, 0], pix.reshape(n, 3, 32, 32).transpose(0, 2, 3, 1))
    (tmp_path / "batches.meta.txt").write_text("airplane\n")
    for usage, names in [("train", ["data_batch_1.bin", "data_batch_2.bin"]),
                         ("test", ["test_batch.bin"]),
                         (None, ["data_batch_1.bin", "data_batch_2.bin", "test_batch.bin"])]:
        d = ds.Cifar10Dataset(str(tmp_path), usage=usage, shuffle=False)
        rows = list(d.create_tuple_iterator(output_numpy=True))
        labels = np.concatenate([recs[n][0] for n in names])
        images = np.concatenate([recs[n][1] for n in names])
        assert len(rows) == len(labels) == d.get_dataset_size()
        for (img, lbl), wi, wl in zip(rows, images, labels):
            assert img.shape == (32, 32, 3) and img.dtype == np.uint8
            np.testing.assert_array_equal(img, wi)
            assert lbl.dtype == np.uint32 and int(lbl) == wl


def test_cifar10_errors(tmp_path):
    with pytest.raises(RuntimeError, match="no data_batch"):
        ds.Cifar10Dataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="usage"):
        ds.Cifar10Dataset(str(tmp_path), usage="valid")
    (tmp_path / "test_batch.bin").write_bytes(b"\x01" * 3000)
    with pytest.raises(RuntimeError, match="not a multiple of the 3073-byte"):
        ds.Cifar10Dataset(str(tmp_path), usage="test")
    r, _, _ = _cifar_records(2, 1, 0, 10)
    r[1, 0] = 42
    (tmp_path / "test_batch.bin").write_bytes(r.tobytes())
    with pytest.raises(RuntimeError, match="a label is 42"):
        ds.Cifar10Dataset(str(tmp_path), usage="test")


def test_cifar100(tmp_path):
    r, lab, pix = _cifar_records(3, 2, 5, 20)
    (tmp_path / "test.bin").write_bytes(r.tobytes())
    d = ds.Cifar100Dataset(str(tmp_path), usage="test", shuffle=False)
    assert d.get_col_names() == ["image", "coarse_label", "fine_label"]
    for k, (img, c, f) in enumerate(d.create_tuple_iterator(output_numpy=True)):
        np.testing.assert_array_equal(img, pix[k].reshape(3, 32, 32).transpose(1, 2, 0))
        assert (int(c), int(f)) == (lab[k, 0], lab[k, 1])
    with pytest.raises(RuntimeError, match="train.bin does not exist"):
        ds.Cifar100Dataset(str(tmp_path), usage="train")


# ---------------------------------------------------------------------------
# vision ops
# ---------------------------------------------------------------------------

def test_decode_png_jpeg():
    arr = _img(9, 11, 0)
    png = _png(arr)
    np.testing.assert_array_equal(vision.Decode()(png), arr)
    np.testing.assert_array_equal(vision.Decode()(np.frombuffer(png, np.uint8)), arr)
    b = io.BytesIO()
    Image.fromarray(arr).save(b, format="JPEG", quality=90)
    jpg = b.getvalue()
    want = np.asarray(Image.open(io.BytesIO(jpg)).convert("RGB"))
    out = vision.Decode()(np.frombuffer(jpg, np.uint8))
    assert out.shape == (9, 11, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, want)
    g = io.BytesIO()
    Image.fromarray(arr[..., 0], "L").save(g, format="PNG")      # grayscale -> RGB
    np.testing.assert_array_equal(vision.Decode()(g.getvalue()),
                                  np.repeat(arr[..., :1], 3, axis=2))
    assert isinstance(vision.Decode(to_pil=True)(png), Image.Image)


def test_decode_errors():
    with pytest.raises(RuntimeError, match="cannot decode the image \\(5 bytes\\)"):
        vision.Decode()(b"hello")
    with pytest.raises(TypeError, match="1-D uint8"):
        vision.Decode()(np.zeros(5, np.float32))
    png = _png(_img(4, 4, 1))
    with pytest.raises(RuntimeError, match="cannot decode"):
        vision.Decode()(png[:40])                    # truncated


def test_random_crop_decode_resize():
    arr = _img(12, 18, 2)
    png = _png(arr)
    # the whole image as the box: the result is Resize of the decoded image
    op = vision.RandomCropDecodeResize((6, 9), scale=(1.0, 1.0), ratio=(1.5, 1.5))
    np.testing.assert_array_equal(op(png), vision.Resize((6, 9))(arr))
    # same random box as RandomResizedCrop on the decoded image
    for seed in range(5):
        np.random.seed(seed)
        a = vision.RandomCropDecodeResize(5, scale=(0.2, 0.6))(np.frombuffer(png, np.uint8))
        np.random.seed(seed)
        b = vision.RandomResizedCrop(5, scale=(0.2, 0.6))(arr)
        np.testing.assert_array_equal(a, b)
        assert a.shape == (5, 5, 3)
    with pytest.raises(RuntimeError, match="RandomCropDecodeResize: cannot decode"):
        op(b"garbage")


def test_color_adjust_fixed_factors_match_pillow():
    arr = _img(10, 13, 3)
    im = Image.fromarray(arr)
    for f in (0.3, 1.7):
        np.testing.assert_array_equal(
            vision.RandomColorAdjust(brightness=(f, f))(arr),
            np.asarray(ImageEnhance.Brightness(im).enhance(f)))
        np.testing.assert_array_equal(
            vision.RandomColorAdjust(contrast=(f, f))(arr),
            np.asarray(ImageEnhance.Contrast(im).enhance(f)))
    # saturation 0: Pillow's grayscale, L = (19595 R + 38470 G + 7471 B + 2^15) >> 16
    a64 = arr.astype(np.int64)
    lum = ((a64[..., 0] * 19595 + a64[..., 1] * 38470 + a64[..., 2] * 7471 + 32768) >> 16)\
        .astype(np.uint8)
    out = vision.RandomColorAdjust(saturation=(0, 0))(arr)
    np.testing.assert_array_equal(out, np.repeat(lum[..., None], 3, axis=2))
    # defaults: identity
    np.testing.assert_array_equal(vision.RandomColorAdjust()(arr), arr)
    # brightness on a grayscale <H, W, 1> image keeps its shape
    g = arr[..., :1]
    want = ImageEnhance.Brightness(Image.fromarray(g[..., 0], "L")).enhance(0.5)
    np.testing.assert_array_equal(vision.RandomColorAdjust(brightness=(0.5, 0.5))(g),
                                  np.asarray(want)[..., None])


def test_color_adjust_hue():
    red = np.zeros((2, 3, 3), np.uint8)
    red[..., 0] = 255
    # +1/3 turn: red -> green, -1/3: red -> blue (Pillow's HSV quantizes H to 1/255 turn)
    g = vision.RandomColorAdjust(hue=(1 / 3, 1 / 3))(red).astype(int)
    b = vision.RandomColorAdjust(hue=(-1 / 3, -1 / 3))(red).astype(int)
    assert np.abs(g - [0, 255, 0]).max() <= 6
    assert np.abs(b - [0, 0, 255]).max() <= 6
    np.testing.assert_array_equal(vision.RandomColorAdjust(hue=0.0)(red), red)


def test_color_adjust_random_ranges_and_seed():
    flat = np.full((4, 4, 3), 100, np.uint8)
    op = vision.RandomColorAdjust(brightness=0.5)
    vals = {int(op(flat)[0, 0, 0]) for _ in range(40)}
    assert min(vals) >= 50 and max(vals) <= 150 and len(vals) > 10
    # a float b > 1 clamps the lower end at 0
    assert vision.RandomColorAdjust(brightness=3.0).brightness == (0.0, 4.0)
    imgs = np.stack([_img(6, 6, k) for k in range(8)])
    op = vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.1)

    def run(workers):
        ds.config.set_seed(11)
        d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
        d = d.map(op, "image", num_parallel_workers=workers)
        return np.stack([r[0] for r in d.create_tuple_iterator(output_numpy=True)])
    a, b, c = run(1), run(1), run(2)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, imgs)


def test_color_adjust_errors():
    with pytest.raises(ValueError, match="brightness must be in"):
        vision.RandomColorAdjust(brightness=-1)
    with pytest.raises(ValueError, match="hue must be in"):
        vision.RandomColorAdjust(hue=0.6)
    with pytest.raises(ValueError, match="hue range"):
        vision.RandomColorAdjust(hue=(-0.6, 0))
    with pytest.raises(ValueError, match="contrast range"):
        vision.RandomColorAdjust(contrast=(1.5, 0.5))
    with pytest.raises(TypeError, match="saturation must be a float"):
        vision.RandomColorAdjust(saturation="x")
    with pytest.raises(TypeError, match="must be uint8"):
        vision.RandomColorAdjust(brightness=0.2)(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(RuntimeError, match="saturation and hue need an RGB"):
        vision.RandomColorAdjust(saturation=0.2)(np.zeros((4, 4), np.uint8))


# ---------------------------------------------------------------------------
# Pillow-backed enhancement ops
# ---------------------------------------------------------------------------

def test_invert_autocontrast_equalize():
    arr = _img(8, 9, 4)
    np.testing.assert_array_equal(vision.Invert()(arr), 255 - arr.astype(int))
    low = (arr // 4 + 60).astype(np.uint8)              # values in [60, 123]
    out = vision.AutoContrast()(low)
    for c in range(3):                                  # per channel: [lo, hi] -> [0, 255]
        ch = low[..., c].astype(np.float64)
        lo, hi = ch.min(), ch.max()
        scale = 255.0 / (hi - lo)
        want = np.clip(np.trunc(ch * scale - lo * scale), 0, 255)   # Pillow's LUT: int()
        np.testing.assert_array_equal(out[..., c], want)
    from PIL import ImageOps
    np.testing.assert_array_equal(vision.AutoContrast(cutoff=10, ignore=[0])(low),
                                  np.asarray(ImageOps.autocontrast(Image.fromarray(low), 10, [0])))
    np.testing.assert_array_equal(vision.Equalize()(arr),
                                  np.asarray(ImageOps.equalize(Image.fromarray(arr))))
    g = arr[..., :1]
    assert vision.Equalize()(g).shape == (8, 9, 1)
    with pytest.raises(TypeError, match="Invert: the image must be uint8"):
        vision.Invert()(arr.astype(np.float32))
    with pytest.raises(ValueError, match="cutoff must be in"):
        vision.AutoContrast(cutoff=60)
    with pytest.raises(RuntimeError, match="Equalize: the image must be"):
        vision.Equalize()(np.zeros((4, 4, 2), np.uint8))


def test_random_sharpness_color_posterize_grayscale():
    arr = _img(8, 9, 5)
    im = Image.fromarray(arr)
    np.testing.assert_array_equal(vision.RandomSharpness((0.4, 0.4))(arr),
                                  np.asarray(ImageEnhance.Sharpness(im).enhance(0.4)))
    np.testing.assert_array_equal(vision.RandomColor((1.6, 1.6))(arr),
                                  np.asarray(ImageEnhance.Color(im).enhance(1.6)))
    np.testing.assert_array_equal(vision.RandomPosterize(3)(arr), arr & 0b11100000)
    seen = {tuple(np.unique(vision.RandomPosterize((1, 2))(arr) & 0b00111111))
            for _ in range(10)}
    assert seen == {(0,)}
    a64 = arr.astype(np.int64)
    lum = ((a64[..., 0] * 19595 + a64[..., 1] * 38470 + a64[..., 2] * 7471 + 32768) >> 16)
    out = vision.RandomGrayscale(1.0)(arr)
    np.testing.assert_array_equal(out, np.repeat(lum[..., None], 3, axis=2))
    np.testing.assert_array_equal(vision.RandomGrayscale(0.0)(arr), arr)
    with pytest.raises(ValueError, match="degrees must be"):
        vision.RandomSharpness((2, 1))
    with pytest.raises(ValueError, match="bits must be"):
        vision.RandomPosterize(9)
    with pytest.raises(ValueError, match="prob must be in"):
        vision.RandomGrayscale(1.5)
    with pytest.raises(RuntimeError, match="RandomColor: the image must be <H, W, 3>"):
        vision.RandomColor()(arr[..., 0])


def test_cutout():
    arr = np.full((10, 12, 3), 7, np.uint8)
    for seed in range(10):
        np.random.seed(seed)
        out = vision.CutOut(4)(arr)
        zero = np.all(out == 0, axis=2)
        ys, xs = np.nonzero(zero)
        assert zero.sum() == 16 and np.ptp(ys) == 3 and np.ptp(xs) == 3     # one 4x4 square
        assert np.all(out[~zero] == 7)
    chw = np.full((3, 10, 12), 7, np.uint8)
    out = vision.CutOut(10, is_hwc=False)(chw)
    assert (out == 0).sum() == 3 * 10 * 10
    with pytest.raises(RuntimeError, match="length 11 is larger"):
        vision.CutOut(11)(arr)
    with pytest.raises(ValueError, match="length must be a positive int"):
        vision.CutOut(0)


def test_random_solarize():
    arr = np.arange(256, dtype=np.uint8).reshape(16, 16)
    out = vision.RandomSolarize((100, 100))(arr)
    want = arr.copy()
    want[arr == 100] = 155
    np.testing.assert_array_equal(out, want)
    for seed in range(5):                       # inverted pixels form one interval
        np.random.seed(seed)
        out = vision.RandomSolarize((50, 200))(arr)
        inv = np.nonzero(out.ravel() != arr.ravel())[0]
        if inv.size:
            assert 50 <= inv.min() and inv.max() <= 200
            assert inv.size == inv.max() - inv.min() + 1
            np.testing.assert_array_equal(out.ravel()[inv], 255 - arr.ravel()[inv])
    with pytest.raises(ValueError, match="threshold must be"):
        vision.RandomSolarize((10, 300))


def test_random_select_subpolicy():
    arr = _img(6, 6, 7)
    pol = vision.RandomSelectSubpolicy([[(vision.Invert(), 1.0)],
                                        [(vision.HorizontalFlip(), 1.0), (vision.Invert(), 0.0)]])
    outs = set()
    for seed in range(12):
        np.random.seed(seed)
        o = pol(arr)
        if np.array_equal(o, 255 - arr):
            outs.add("invert")
        elif np.array_equal(o, arr[:, ::-1]):
            outs.add("flip")
        else:
            raise AssertionError("an output that is neither sub-policy")
    assert outs == {"invert", "flip"}
    with pytest.raises(ValueError, match="policy must be"):
        vision.RandomSelectSubpolicy([[(vision.Invert(), 2.0)]])


def test_random_rotation():
    arr = _img(6, 8, 8)
    # 90 degrees counter-clockwise with expand: numpy's rot90
    np.testing.assert_array_equal(vision.RandomRotation((90, 90), expand=True)(arr),
                                  np.rot90(arr))
    np.testing.assert_array_equal(vision.RandomRotation((180, 180))(arr), arr[::-1, ::-1])
    im = Image.fromarray(arr)
    want = im.rotate(30, Image.Resampling.BILINEAR, fillcolor=(1, 2, 3))
    np.testing.assert_array_equal(
        vision.RandomRotation((30, 30), vision.Inter.BILINEAR, fill_value=(1, 2, 3))(arr),
        np.asarray(want))
    g = arr[..., :1]
    assert vision.RandomRotation(45)(g).shape == (6, 8, 1)
    with pytest.raises(ValueError, match="degrees must be non-negative"):
        vision.RandomRotation(-5)
    with pytest.raises(ValueError, match="resample must be"):
        vision.RandomRotation(5, vision.Inter.AREA)


def test_mindrecord_image_pipeline(tmp_path):
    """MindSpore's usual ImageNet-style pipeline: encoded images in a MindRecord file,
    decoded and augmented in map, batched; reproducible with any worker count."""
    from msmlir.mindrecord import FileWriter
    f = str(tmp_path / "imgs.mindrecord")
    w = FileWriter(f, 2)
    w.add_schema({"data": {"type": "bytes"}, "label": {"type": "int32"}}, "images")
    w.write_raw_data([{"data": _png(_img(12 + k, 16, k)), "label": k} for k in range(6)])
    w.commit()

    def run(workers):
        ds.config.set_seed(7)
        d = ds.MindDataset(f + "0", columns_list=["data", "label"], shuffle=True)
        d = d.map([vision.RandomCropDecodeResize(8, scale=(0.5, 1.0)),
                   vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.1),
                   vision.Normalize([127.5] * 3, [127.5] * 3), vision.HWC2CHW()],
                  "data", num_parallel_workers=workers).batch(2)
        return list(d.create_tuple_iterator(output_numpy=True))
    a, b = run(1), run(3)
    assert len(a) == 3 and a[0][0].shape == (2, 3, 8, 8) and a[0][0].dtype == np.float32
    assert sorted(int(x) for _, l in a for x in l) == list(range(6))
    for (x1, l1), (x2, l2) in zip(a, b):
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_array_equal(l1, l2)
