"""msmlir.numpy array manipulation vs numpy (eager)."""
import numpy as np
import pytest

import msmlir.numpy as mnp

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
XI = np.arange(12, dtype=np.int32).reshape(3, 4)


def _same(got, want):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def test_shapes():
    _same(mnp.reshape(X, (4, -1)), X.reshape(4, -1))
    _same(mnp.ravel(X), X.ravel())
    _same(mnp.squeeze(X[:, :1, None]), np.squeeze(X[:, :1, None]))
    _same(mnp.squeeze(X[:, :1], axis=1), np.squeeze(X[:, :1], axis=1))
    _same(mnp.expand_dims(X, (0, 4)), np.expand_dims(X, (0, 4)))
    _same(mnp.expand_dims(XI, -1), np.expand_dims(XI, -1))
    _same(mnp.transpose(X), np.transpose(X))
    _same(mnp.transpose(X, (1, 0, 2)), np.transpose(X, (1, 0, 2)))
    _same(mnp.swapaxes(X, 0, 2), np.swapaxes(X, 0, 2))
    _same(mnp.moveaxis(X, 0, -1), np.moveaxis(X, 0, -1))
    _same(mnp.moveaxis(X, (0, 1), (2, 0)), np.moveaxis(X, (0, 1), (2, 0)))
    for axis, start in ((2, 0), (0, 3), (1, -1), (2, 2)):
        _same(mnp.rollaxis(X, axis, start), np.rollaxis(X, axis, start))
    assert (mnp.shape(X), mnp.ndim(X), mnp.size(X), mnp.size(X, 1)) == ((2, 3, 4), 3, 24, 3)


def test_joining():
    y = X + 100
    _same(mnp.concatenate((X, y), axis=1), np.concatenate((X, y), axis=1))
    _same(mnp.concatenate([X, y], axis=None), np.concatenate([X, y], axis=None))
    _same(mnp.append(XI, [[1, 2, 3, 4]], axis=0), np.append(XI, [[1, 2, 3, 4]], axis=0).astype(np.int32))
    _same(mnp.append(XI, XI), np.append(XI, XI))
    _same(mnp.stack((X, y), axis=-1), np.stack((X, y), axis=-1))
    v = np.arange(4, dtype=np.float32)
    _same(mnp.vstack((v, XI.astype(np.float32))), np.vstack((v, XI.astype(np.float32))))
    _same(mnp.row_stack((v, v)), np.vstack((v, v)))
    _same(mnp.hstack((v, v)), np.hstack((v, v)))
    _same(mnp.hstack((X, y)), np.hstack((X, y)))
    _same(mnp.dstack((v, v)), np.dstack((v, v)))
    _same(mnp.dstack((XI, XI)), np.dstack((XI, XI)))
    _same(mnp.column_stack((v, v, XI[:, :4].T.astype(np.float32))),
          np.column_stack((v, v, XI[:, :4].T.astype(np.float32))))
    # mixed dtypes are promoted
    assert np.asarray(mnp.concatenate((XI, XI.astype(np.float32)))).dtype == np.float32


def test_splitting():
    _same(mnp.split(X, 2), tuple(np.split(X, 2)))
    _same(mnp.split(X, [1, 3], axis=2), tuple(np.split(X, [1, 3], axis=2)))
    _same(mnp.array_split(X, 3, axis=2), tuple(np.array_split(X, 3, axis=2)))
    _same(mnp.hsplit(XI, 2), tuple(np.hsplit(XI, 2)))
    _same(mnp.vsplit(XI, [1]), tuple(np.vsplit(XI, [1])))
    _same(mnp.dsplit(X, [3]), tuple(np.dsplit(X, [3])))


def test_repetition_and_broadcast():
    _same(mnp.tile(XI, 2), np.tile(XI, 2))
    _same(mnp.tile(XI, (2, 1, 2)), np.tile(XI, (2, 1, 2)))
    _same(mnp.repeat(XI, 2), np.repeat(XI, 2))
    _same(mnp.repeat(X, 3, axis=1), np.repeat(X, 3, axis=1))
    _same(mnp.repeat(XI, [1, 0, 2], axis=0), np.repeat(XI, [1, 0, 2], axis=0))
    _same(mnp.broadcast_to(XI[:1], (2, 3, 4)), np.broadcast_to(XI[:1], (2, 3, 4)))
    got = mnp.broadcast_arrays(XI[:, :1], np.arange(4, dtype=np.int32), 5)
    want = np.broadcast_arrays(XI[:, :1], np.arange(4, dtype=np.int32), np.int32(5))
    _same(got, tuple(want))


def test_reordering():
    _same(mnp.flip(X), np.flip(X))
    _same(mnp.flip(X, (0, 2)), np.flip(X, (0, 2)))
    _same(mnp.fliplr(XI), np.fliplr(XI))
    _same(mnp.flipud(X), np.flipud(X))
    _same(mnp.roll(X, 5), np.roll(X, 5))
    _same(mnp.roll(X, -1, axis=2), np.roll(X, -1, axis=2))
    _same(mnp.roll(X, (1, 7), axis=(0, 2)), np.roll(X, (1, 7), axis=(0, 2)))
    for k in (1, 2, 3, -1):
        _same(mnp.rot90(X, k), np.rot90(X, k))
    _same(mnp.rot90(X, 1, axes=(2, 0)), np.rot90(X, 1, axes=(2, 0)))


def test_take():
    idx = np.array([[0, 2], [3, 1]], np.int32)
    _same(mnp.take(X, idx, axis=2), np.take(X, idx, axis=2))
    _same(mnp.take(X, [5, 0, 23]), np.take(X, [5, 0, 23]))
    _same(mnp.take(XI, 1, axis=0), np.take(XI, 1, axis=0))
    out_of_range = np.array([-1, 4, 9], np.int32)
    _same(mnp.take(XI, out_of_range, axis=1), np.take(XI, out_of_range, axis=1, mode="clip"))
    _same(mnp.take(XI, out_of_range, axis=1, mode="wrap"), np.take(XI, out_of_range, axis=1, mode="wrap"))
    _same(mnp.take(XI, [-1, 2], axis=1, mode="raise"), np.take(XI, [-1, 2], axis=1))


def test_take_along_axis_and_choose():
    y = np.random.default_rng(3).permutation(24).reshape(2, 3, 4).astype(np.float32)
    order = np.argsort(y, axis=1).astype(np.int32)
    _same(mnp.take_along_axis(y, order, 1), np.take_along_axis(y, order, 1))
    idx = np.array([[[0], [2], [-1]]], np.int32)  # broadcasts over dim 0; negative index
    _same(mnp.take_along_axis(y, idx, 2), np.take_along_axis(y, idx, 2))
    _same(mnp.take_along_axis(y, np.array([3, 0, 23], np.int32), None),
          np.take_along_axis(y, np.array([3, 0, 23]), None))
    choices = [XI, XI * 10, np.full((3, 4), -1, np.int32)]
    sel = np.array([[0, 1, 2, 0], [2, 2, 1, 0], [1, 0, 0, 2]], np.int32)
    _same(mnp.choose(sel, choices), np.choose(sel, choices))
    _same(mnp.choose(sel + 2, choices, mode="wrap"), np.choose(sel + 2, choices, mode="wrap"))


def test_where_select():
    c = XI % 3 == 0
    _same(mnp.where(c, XI, -XI), np.where(c, XI, -XI))
    _same(mnp.where(c, 1.5, XI), np.where(c, 1.5, XI).astype(np.float32))
    conds = [XI < 3, XI > 8]
    _same(mnp.select(conds, [XI, XI * 2]), np.select(conds, [XI, XI * 2]).astype(np.int32))
    _same(mnp.select(conds, [XI, XI * 2], default=-1), np.select(conds, [XI, XI * 2], -1).astype(np.int32))


def test_atleast():
    s = np.float32(3.0)
    v = np.arange(3, dtype=np.float32)
    for n in (1, 2, 3):
        fn, ref = getattr(mnp, f"atleast_{n}d"), getattr(np, f"atleast_{n}d")
        _same(fn(v), ref(v))
        _same(fn(XI), ref(XI))
        _same(fn(np.asarray(s), v), tuple(ref(np.asarray(s), v)))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap", "maximum",
                                  "minimum", "mean"])
def test_pad(mode):
    kw = {"constant_values": ((1, 2), (3, 4))} if mode == "constant" else {}
    widths = ((1, 2), (3, 5)) if mode not in ("maximum", "minimum", "mean") else ((1, 2), (0, 3))
    _same(mnp.pad(XI, widths, mode=mode, **kw), np.pad(XI, widths, mode=mode, **kw))
    xf = X[0]
    _same(mnp.pad(xf, 2, mode=mode), np.pad(xf, 2, mode=mode))


def test_pad_scalar_constant_and_stat_length():
    _same(mnp.pad(X, ((0, 0), (1, 1), (2, 0)), constant_values=-1.5),
          np.pad(X, ((0, 0), (1, 1), (2, 0)), constant_values=-1.5))
    _same(mnp.pad(XI, (2, 1), mode="maximum", stat_length=2), np.pad(XI, (2, 1), mode="maximum", stat_length=2))


def test_unravel_index():
    flat = np.array([0, 5, 11, 7], np.int32)
    _same(mnp.unravel_index(flat, (3, 4)), tuple(a.astype(np.int32) for a in np.unravel_index(flat, (3, 4))))
    _same(mnp.unravel_index(flat, (2, 2, 3), order="F"),
          tuple(a.astype(np.int32) for a in np.unravel_index(flat, (2, 2, 3), order="F")))
