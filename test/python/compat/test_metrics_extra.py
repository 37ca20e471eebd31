"""Perplexity, CosineSimilarity, ConfusionMatrix, Dice, auc (mindspore.train / nn)."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, train


def test_perplexity():
    p = np.float32([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8]])
    y = np.int32([1, 0, 2])
    m = train.Perplexity()
    m.update(ms.Tensor(p), ms.Tensor(y))
    assert m.eval() == pytest.approx(np.exp(-np.mean(np.log([0.5, 0.6, 0.8]))))
    m = train.Perplexity(ignore_label=2)
    m.update(p, y)
    assert m.eval() == pytest.approx(np.exp(-np.mean(np.log([0.5, 0.6]))))
    with pytest.raises(RuntimeError):
        train.Perplexity().eval()


def test_cosine_similarity_and_confusion_matrix():
    x = np.float32([[1, 0], [1, 1], [0, 2]])
    m = nn.CosineSimilarity()
    m.update(x)
    n = x / np.linalg.norm(x, axis=1, keepdims=True)
    ref = n @ n.T
    np.fill_diagonal(ref, 0)
    np.testing.assert_allclose(m.eval(), ref, rtol=1e-6)
    m2 = train.CosineSimilarity(reduction="mean")
    m2.update(x)
    assert m2.eval() == pytest.approx(ref.mean())
    cm = train.ConfusionMatrix(3)
    cm.update(np.float32([[0.1, 0.9, 0], [0.8, 0.1, 0.1], [0, 0.2, 0.8], [0.3, 0.3, 0.4]]),
              np.int32([1, 0, 1, 2]))
    np.testing.assert_array_equal(cm.eval(), [[1, 0, 0], [0, 1, 1], [0, 0, 1]])
    cmn = train.ConfusionMatrix(2, normalize="target")
    cmn.update(np.float32([0.9, 0.2, 0.7]), np.int32([1, 1, 0]))
    np.testing.assert_allclose(cmn.eval(), [[0, 1], [0.5, 0.5]])
    with pytest.raises(ValueError):
        train.ConfusionMatrix(2, normalize="rows")


def test_dice_and_auc():
    d = train.Dice()
    yp, y = np.float32([[0.2, 0.8], [0.6, 0.4]]), np.float32([[0, 1], [1, 0]])
    d.update(yp, y)
    ref = 2 * (yp * y).sum() / ((yp ** 2).sum() + (y ** 2).sum() + 1e-5)
    assert d.eval() == pytest.approx(ref)
    assert train.auc(np.float32([0, 0.5, 1]), np.float32([0, 0.8, 1])) == \
        pytest.approx(0.5 * 0.4 + 0.5 * 0.9)
    assert train.auc([1, 0.5, 0], [1, 0.8, 0]) == pytest.approx(0.65)
    with pytest.raises(ValueError, match="monotonic"):
        train.auc([0, 1, 0.5], [0, 1, 1])
    assert nn.auc is train.auc and "perplexity" in train.names()
