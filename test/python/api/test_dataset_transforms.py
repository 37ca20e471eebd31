"""msmlir.dataset vision / transforms vs hand-written numpy references."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.dataset as ds
from msmlir.dataset import transforms, vision

RNG = np.random.default_rng(0)
IMG = RNG.integers(0, 256, (9, 13, 3), dtype=np.uint8)          # HWC


# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------

def ref_bilinear(img, oh, ow):
    """Half-pixel-center bilinear with the source coordinate clamped to the image,
    one output pixel at a time (float64)."""
    ih, iw = img.shape[:2]
    src = img.astype(np.float64)
    out = np.zeros((oh, ow) + img.shape[2:])
    for i in range(oh):
        sy = min(max((i + 0.5) * ih / oh - 0.5, 0.0), ih - 1.0)
        y0 = int(np.floor(sy))
        y1 = min(y0 + 1, ih - 1)
        wy = sy - y0
        for j in range(ow):
            sx = min(max((j + 0.5) * iw / ow - 0.5, 0.0), iw - 1.0)
            x0 = int(np.floor(sx))
            x1 = min(x0 + 1, iw - 1)
            wx = sx - x0
            top = (1 - wx) * src[y0, x0] + wx * src[y0, x1]
            bot = (1 - wx) * src[y1, x0] + wx * src[y1, x1]
            out[i, j] = (1 - wy) * top + wy * bot
    return out


def ref_nearest(img, oh, ow):
    ih, iw = img.shape[:2]
    out = np.zeros((oh, ow) + img.shape[2:], img.dtype)
    for i in range(oh):
        for j in range(ow):
            out[i, j] = img[min(i * ih // oh, ih - 1), min(j * iw // ow, iw - 1)]
    return out


# ---------------------------------------------------------------------------
# Resize
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("in_hw,out_hw", [((9, 13), (20, 31)), ((9, 13), (4, 5)),
                                          ((16, 16), (8, 8)), ((7, 11), (7, 30)),
                                          ((12, 10), (25, 10))])
def test_resize_bilinear_matches_reference(in_hw, out_hw):
    img = RNG.integers(0, 256, in_hw + (3,), dtype=np.uint8)
    ref = ref_bilinear(img, *out_hw)
    f32 = vision.Resize(out_hw, vision.Inter.BILINEAR)(img.astype(np.float32))
    assert f32.dtype == np.float32 and f32.shape == out_hw + (3,)
    np.testing.assert_allclose(f32, ref, rtol=0, atol=2e-3)          # float: exact up to f32
    u8 = vision.Resize(out_hw)(img)                                  # default LINEAR
    assert u8.dtype == np.uint8
    # uint8: OpenCV's 11-bit fixed point -> within 1 of the rounded exact value
    assert np.abs(u8.astype(int) - np.floor(ref + 0.5)).max() <= 1
    g = vision.Resize(out_hw)(img[..., 0])                           # <H, W>
    assert g.shape == out_hw and np.array_equal(g, u8[..., 0])


def test_resize_nearest_and_sizes():
    for out_hw in [(20, 31), (4, 5), (9, 26)]:
        np.testing.assert_array_equal(vision.Resize(out_hw, vision.Inter.NEAREST)(IMG),
                                      ref_nearest(IMG, *out_hw))
    # an int resizes the smaller edge, keeping the aspect ratio (floor)
    assert vision.Resize(6)(IMG).shape == (6, 8, 3)                  # 13 / 9 * 6 = 8.67
    assert vision.Resize(6)(IMG.transpose(1, 0, 2)).shape == (8, 6, 3)
    assert vision.Resize([6])(IMG).shape == (6, 8, 3)
    assert vision.Resize((9, 13))(IMG) is not None
    np.testing.assert_array_equal(vision.Resize((9, 13))(IMG), IMG)   # same size: unchanged
    # an exact 2x downscale is OpenCV's rounded 2x2 box mean
    img = RNG.integers(0, 256, (8, 6, 1), dtype=np.uint8)
    box = img.astype(int).reshape(4, 2, 3, 2, 1).sum(axis=(1, 3))
    np.testing.assert_array_equal(vision.Resize((4, 3))(img), (box + 2) // 4)
    # batches <N, H, W, C>
    batch = np.stack([IMG, IMG[::-1]])
    out = vision.Resize((5, 7))(batch)
    assert out.shape == (2, 5, 7, 3)
    np.testing.assert_array_equal(out[1], vision.Resize((5, 7))(IMG[::-1]))
    with pytest.raises(ValueError):
        vision.Resize(0)
    with pytest.raises(TypeError):
        vision.Resize("big")
    with pytest.raises(RuntimeError):
        vision.Resize(4)(np.zeros(5))


def test_resize_cubic_and_area_are_sane():
    flat = np.full((6, 8, 3), 77, np.uint8)
    for mode in (vision.Inter.BICUBIC, vision.Inter.AREA, vision.Inter.PILCUBIC,
                 vision.Inter.ANTIALIAS):
        for hw in [(12, 16), (3, 4), (5, 11)]:
            assert np.array_equal(vision.Resize(hw, mode)(flat), np.full(hw + (3,), 77))
    # AREA shrinking by 3 is the block mean
    img = RNG.random((6, 9, 2)).astype(np.float32)
    np.testing.assert_allclose(vision.Resize((2, 3), vision.Inter.AREA)(img),
                               img.reshape(2, 3, 3, 3, 2).mean(axis=(1, 3)), atol=1e-6)
    # CUBIC: Keys' kernel (A = -0.75, OpenCV's), half-pixel centers, replicated border
    def keys(d, a=-0.75):
        d = abs(d)
        if d <= 1:
            return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
        return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a if d < 2 else 0.0

    def taps(i, n_in, n_out):
        s = (i + 0.5) * n_in / n_out - 0.5
        x0 = int(np.floor(s))
        return [(min(max(x0 - 1 + k, 0), n_in - 1), keys(s - (x0 - 1 + k))) for k in range(4)]

    src = RNG.random((5, 7)).astype(np.float32)
    out = vision.Resize((9, 4), vision.Inter.BICUBIC)(src)
    ref = np.array([[sum(wy * wx * src[y, x] for y, wy in taps(i, 5, 9) for x, wx in taps(j, 7, 4))
                     for j in range(4)] for i in range(9)])
    np.testing.assert_allclose(out, ref, atol=1e-5)


# ---------------------------------------------------------------------------
# pixel transforms
# ---------------------------------------------------------------------------

def test_rescale_normalize_hwc2chw_totensor():
    r = vision.Rescale(1.0 / 255, -0.5)(IMG)
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, IMG / 255.0 - 0.5, atol=1e-6)
    mean, std = (10.0, 120.0, 250.0), (2.0, 30.0, 5.0)
    n = vision.Normalize(mean, std)(IMG)
    assert n.dtype == np.float32
    np.testing.assert_allclose(n, (IMG - np.array(mean)) / np.array(std), rtol=1e-6)
    chw = IMG.transpose(2, 0, 1)
    np.testing.assert_allclose(vision.Normalize(mean, std, is_hwc=False)(chw),
                               ((IMG - np.array(mean)) / np.array(std)).transpose(2, 0, 1),
                               rtol=1e-6)
    np.testing.assert_allclose(vision.Normalize([5.0], [2.0])(IMG[..., :1]),
                               (IMG[..., :1] - 5.0) / 2.0)
    with pytest.raises(RuntimeError):
        vision.Normalize((1.0, 2.0), (1.0, 1.0))(IMG)             # 2 values, 3 channels
    with pytest.raises(ValueError):
        vision.Normalize((1.0,), (0.0,))
    c = vision.HWC2CHW()(IMG)
    assert c.shape == (3, 9, 13) and c.flags.c_contiguous
    np.testing.assert_array_equal(c[2], IMG[..., 2])
    assert vision.HWC2CHW()(IMG[..., 0]).shape == (9, 13)         # <H, W> unchanged
    t = vision.ToTensor()(IMG)
    assert t.shape == (3, 9, 13) and t.dtype == np.float32
    np.testing.assert_allclose(t, IMG.transpose(2, 0, 1) / 255.0, atol=1e-7)
    assert vision.ToTensor()(IMG[..., 0]).shape == (1, 9, 13)
    assert vision.ToTensor(np.float64)(IMG).dtype == np.float64
    assert vision.ToType(np.int32)(IMG).dtype == np.int32


def test_grayscale_matches_pil_formula():
    g = vision.Grayscale()(IMG)
    r, gg, b = (IMG[..., i].astype(np.int64) for i in range(3))
    ref = (r * 19595 + gg * 38470 + b * 7471 + 0x8000) >> 16     # Pillow's L conversion
    assert g.shape == (9, 13, 1) and g.dtype == np.uint8
    np.testing.assert_array_equal(g[..., 0], ref)
    assert np.abs(ref - (0.299 * r + 0.587 * gg + 0.114 * b)).max() <= 0.5 + 1e-9
    g3 = vision.Grayscale(3)(IMG)
    assert g3.shape == (9, 13, 3) and np.array_equal(g3[..., 2], ref)
    f = vision.Grayscale()(IMG.astype(np.float32))
    np.testing.assert_allclose(f[..., 0], 0.299 * r + 0.587 * gg + 0.114 * b, rtol=1e-5)


# ---------------------------------------------------------------------------
# crops, pads, flips
# ---------------------------------------------------------------------------

def test_center_crop_and_crop():
    out = vision.CenterCrop((4, 6))(IMG)
    np.testing.assert_array_equal(out, IMG[2:6, 3:9])              # floor((9-4)/2), (13-6)/2
    np.testing.assert_array_equal(vision.CenterCrop(5)(IMG), IMG[2:7, 4:9])
    # larger than the image: zero padding, ceil(d/2) before and floor(d/2) after
    big = vision.CenterCrop((12, 16))(IMG)
    ref = np.zeros((12, 16, 3), np.uint8)
    ref[2:11, 2:15] = IMG
    np.testing.assert_array_equal(big, ref)
    mixed = vision.CenterCrop((11, 5))(IMG)                        # pad H, crop W
    ref = np.zeros((11, 13, 3), np.uint8)
    ref[1:10] = IMG
    np.testing.assert_array_equal(mixed, ref[:, 4:9])
    np.testing.assert_array_equal(vision.Crop((1, 2), (3, 4))(IMG), IMG[1:4, 2:6])
    with pytest.raises(RuntimeError):
        vision.Crop((8, 0), 3)(IMG)


def test_pad_modes():
    for mode, np_mode in [(vision.Border.EDGE, "edge"), (vision.Border.REFLECT, "reflect"),
                          (vision.Border.SYMMETRIC, "symmetric")]:
        np.testing.assert_array_equal(
            vision.Pad((1, 2, 3, 4), padding_mode=mode)(IMG),       # left, top, right, bottom
            np.pad(IMG, ((2, 4), (1, 3), (0, 0)), mode=np_mode))
    np.testing.assert_array_equal(vision.Pad(2, fill_value=7)(IMG),
                                  np.pad(IMG, ((2, 2), (2, 2), (0, 0)), constant_values=7))
    np.testing.assert_array_equal(vision.Pad((1, 3))(IMG),          # left/right, top/bottom
                                  np.pad(IMG, ((3, 3), (1, 1), (0, 0))))
    rgb = vision.Pad(1, fill_value=(1, 2, 3))(IMG)
    assert rgb[0, 0].tolist() == [1, 2, 3] and np.array_equal(rgb[1:-1, 1:-1], IMG)


def _is_window(out, padded):
    h, w = out.shape[:2]
    return [(t, l_) for t in range(padded.shape[0] - h + 1) for l_ in range(padded.shape[1] - w + 1)
            if np.array_equal(padded[t:t + h, l_:l_ + w], out)]


def test_random_crop():
    ds.config.set_seed(4)
    rc = vision.RandomCrop((5, 7), padding=2, fill_value=0)
    padded = np.pad(IMG, ((2, 2), (2, 2), (0, 0)))
    seen = set()
    for _ in range(20):
        out = rc(IMG)
        assert out.shape == (5, 7, 3)
        where = _is_window(out, padded)
        assert where
        seen.add(where[0])
    assert len(seen) > 5                                           # positions vary
    # several columns are cropped at the same place
    a, b = rc(IMG, IMG[..., ::-1])
    assert np.array_equal(a[..., ::-1], b)
    # pad_if_needed pads both sides by the missing amount
    small = RNG.integers(0, 256, (3, 4), dtype=np.uint8)
    out = vision.RandomCrop((5, 6), pad_if_needed=True)(small)
    assert out.shape == (5, 6) and _is_window(out, np.pad(small, ((2, 2), (2, 2))))
    with pytest.raises(RuntimeError, match="pad_if_needed"):
        vision.RandomCrop(20)(IMG)
    np.testing.assert_array_equal(vision.RandomCrop((9, 13))(IMG), IMG)


def test_random_flips_and_resized_crop():
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(IMG), IMG[:, ::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(0.0)(IMG), IMG)
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)(IMG), IMG[::-1])
    np.testing.assert_array_equal(vision.HorizontalFlip()(IMG), IMG[:, ::-1])
    np.testing.assert_array_equal(vision.VerticalFlip()(IMG), IMG[::-1])
    ds.config.set_seed(1)
    flips = [np.array_equal(vision.RandomHorizontalFlip()(IMG), IMG[:, ::-1])
             for _ in range(200)]
    assert 60 < sum(flips) < 140
    with pytest.raises(ValueError):
        vision.RandomHorizontalFlip(1.5)
    rrc = vision.RandomResizedCrop((6, 6), scale=(0.2, 0.9))
    outs = [rrc(IMG) for _ in range(5)]
    assert all(o.shape == (6, 6, 3) and o.dtype == np.uint8 for o in outs)
    assert len({o.tobytes() for o in outs}) > 1
    full = vision.RandomResizedCrop((9, 13), scale=(1.0, 1.0), ratio=(13 / 9, 13 / 9))(IMG)
    np.testing.assert_array_equal(full, IMG)


def test_random_transforms_deterministic_in_pipeline():
    imgs = RNG.integers(0, 256, (30, 10, 10, 3), dtype=np.uint8)

    def run():
        d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
        d = d.map([vision.RandomCrop(8), vision.RandomHorizontalFlip(),
                   vision.RandomResizedCrop(6),
                   transforms.RandomChoice([vision.HWC2CHW(), vision.ToTensor()]),
                   transforms.RandomApply([transforms.TypeCast(np.float64)])], "image")
        return [r[0] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]

    ds.config.set_seed(9)
    a = run()
    ds.config.set_seed(9)
    b = run()
    assert all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b))
    assert len({(x.dtype.str, x.tobytes()) for x in a}) > 20
    ms.set_seed(9)                       # the global seed also seeds them
    ds.config._reset()
    ms.set_seed(9)
    c = run()
    ms.set_seed(9)
    assert all(np.array_equal(x, y) for x, y in zip(c, run()))


# ---------------------------------------------------------------------------
# common transforms
# ---------------------------------------------------------------------------

def test_common_transforms():
    assert transforms.TypeCast(ms.float16)(np.array([1, 2])).dtype == np.float16
    assert transforms.TypeCast(np.int8)(np.array([1.7])).tolist() == [1]
    labels = np.array([1, 3, 0], np.int32)
    oh = transforms.OneHot(4)(labels)
    np.testing.assert_array_equal(oh, np.eye(4)[labels])
    assert oh.dtype == np.int32
    sm = transforms.OneHot(4, smoothing_rate=0.2)(labels)
    np.testing.assert_allclose(sm, np.eye(4)[labels] * 0.8 + 0.05, rtol=1e-6)
    assert sm.dtype == np.float32
    with pytest.raises(ValueError):
        transforms.OneHot(3)(np.array([3]))
    comp = transforms.Compose([vision.Rescale(2.0, 0.0), vision.HWC2CHW()])
    np.testing.assert_array_equal(comp(IMG), (IMG.astype(np.float32) * 2).transpose(2, 0, 1))
    np.testing.assert_array_equal(transforms.Fill(3)(np.zeros((2, 2), np.int8)),
                                  np.full((2, 2), 3, np.int8))
    a, b = transforms.Duplicate()(np.arange(3))
    assert np.array_equal(a, b) and a is not b
    np.testing.assert_array_equal(
        transforms.Concatenate(0, np.array([9]), np.array([8]))(np.array([1, 2])),
        [9, 1, 2, 8])
    np.testing.assert_array_equal(transforms.PadEnd([4], -1)(np.array([1, 2])), [1, 2, -1, -1])
    np.testing.assert_array_equal(transforms.PadEnd([1])(np.array([1, 2])), [1])
    np.testing.assert_array_equal(transforms.Slice(slice(1, 3))(np.arange(5)), [1, 2])
    np.testing.assert_array_equal(
        transforms.Mask(transforms.Relational.GT, 2)(np.arange(5)), [0, 0, 0, 1, 1])
    vals, idx, cnt = transforms.Unique()(np.array([5, 3, 5, 1, 3, 5]))
    assert vals.tolist() == [5, 3, 1] and idx.tolist() == [0, 1, 0, 2, 1, 0] and \
        cnt.tolist() == [3, 2, 1]
    ds.config.set_seed(2)
    order = transforms.RandomOrder([lambda v: v * 2, lambda v: v + 1])
    assert {int(order(np.array(3))) for _ in range(30)} == {7, 8}
    assert transforms.RandomApply([lambda v: v + 1], prob=0.0)(np.array(1)) == 1
    assert transforms.RandomApply([lambda v: v + 1], prob=1.0)(np.array(1)) == 2


def test_legacy_module_paths():
    import msmlir.dataset.transforms.c_transforms as c_trans
    import msmlir.dataset.transforms.py_transforms as py_trans
    import msmlir.dataset.vision.c_transforms as c_vision
    import msmlir.dataset.vision.py_transforms as py_vision
    from msmlir.dataset.vision import Inter
    from msmlir.dataset.vision.utils import Border
    assert c_vision.Resize is vision.Resize and c_vision.HWC2CHW is vision.HWC2CHW
    assert c_vision.Resize((4, 4), Inter.BILINEAR)(IMG).shape == (4, 4, 3)
    assert c_trans.TypeCast is transforms.TypeCast and py_trans.Compose is transforms.Compose
    assert py_trans.OneHotOp(3)(np.array([2])).tolist() == [[0, 0, 1]]
    chw = py_vision.ToTensor()(py_vision.ToPIL()(IMG))
    np.testing.assert_allclose(py_vision.Normalize((0.5,) * 3, (0.25,) * 3)(chw),
                               (chw - 0.5) / 0.25, rtol=1e-6)
    assert Border.REFLECT == vision.Border.REFLECT and ds.Inter is vision.Inter
    assert transforms.transforms.OneHot is transforms.OneHot
    assert vision.transforms.Resize is vision.Resize


def test_mnist_style_pipeline_runs_unchanged():
    """The MindSpore 2.x MNIST tutorial's data pipeline, verbatim apart from the import."""
    images = RNG.integers(0, 256, (20, 28, 28, 1), dtype=np.uint8)
    labels = RNG.integers(0, 10, 20).astype(np.uint32)
    dataset = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=True)
    image_transforms = [vision.Rescale(1.0 / 255.0, 0),
                        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                        vision.HWC2CHW()]
    label_transform = transforms.TypeCast(ms.int32)
    dataset = dataset.map(image_transforms, "image")
    dataset = dataset.map(label_transform, "label")
    dataset = dataset.batch(8)
    for image, label in dataset.create_tuple_iterator():
        assert image.shape[1:] == (1, 28, 28) and image.dtype == ms.float32
        assert label.dtype == ms.int32
    assert dataset.get_dataset_size() == 3
