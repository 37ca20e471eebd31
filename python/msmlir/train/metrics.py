"""Evaluation metrics (mindspore.train / mindspore.nn metrics), computed in numpy
on the host as MindSpore does: Accuracy, TopKCategoricalAccuracy (Top1/Top5),
Loss, Precision, Recall, Fbeta, F1, MAE, MSE; `get_metric_fn(name)` / `names()`
for the names `Model(metrics=...)` accepts.

A metric has `clear()`, `update(*inputs)` and `eval()`; calling it
(`metric(y_pred, y)`) clears, updates and evaluates once. `set_indexes([i, j])`
picks which of the update inputs are the prediction and the label.
"""
from __future__ import annotations

import functools
import sys

import numpy as np

__all__ = ["Metric", "EvaluationBase", "rearrange_inputs", "Accuracy", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Loss", "Precision", "Recall",
           "Fbeta", "F1", "MAE", "MSE", "get_metric_fn", "names"]

_EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(func):
    """Decorator of `update`: applies the indexes set with `set_indexes`."""
    @functools.wraps(func)
    def wrapper(self, *inputs):
        idx = getattr(self, "_indexes", None)
        if idx is not None:
            inputs = [inputs[i] for i in idx]
        return func(self, *inputs)
    return wrapper


def _to_numpy(data):
    if hasattr(data, "asnumpy"):
        return data.asnumpy()
    if isinstance(data, (list, tuple, np.ndarray, np.generic, int, float)):
        return np.asarray(data)
    raise TypeError(f"For 'Metric', the input data must be a Tensor, a list or a numpy.ndarray, "
                    f"but got {type(data).__name__}.")


def _is_onehot(data):
    if data.ndim > 1 and np.equal(data ** 2, data).all():
        return np.equal(np.ones((data.shape[0],) + data.shape[2:]), data.sum(axis=1)).all()
    return False


def _two(inputs, cls):
    if len(inputs) != 2:
        raise ValueError(f"For '{cls}.update', it needs 2 inputs (predicted value, true value), "
                         f"but got {len(inputs)}.")
    return _to_numpy(inputs[0]), _to_numpy(inputs[1])


class Metric:
    """Base class of metrics."""

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data):
        return _to_numpy(data)

    @staticmethod
    def _check_onehot_data(data):
        return _is_onehot(data)

    @property
    def indexes(self):
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise ValueError("For 'set_indexes', 'indexes' must be a list of ints.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    def clear(self):
        raise NotImplementedError("Must define clear function to use this base class")

    def update(self, *inputs):
        raise NotImplementedError("Must define update function to use this base class")

    def eval(self):
        raise NotImplementedError("Must define eval function to use this base class")


class EvaluationBase(Metric):
    """Base of the metrics with an `eval_type` ('classification' or 'multilabel')."""

    def __init__(self, eval_type):
        super().__init__()
        if eval_type not in _EVAL_TYPES:
            raise TypeError(f"The argument 'eval_type' must be in {_EVAL_TYPES}, but got {eval_type}")
        self._type = eval_type

    def _labels(self, y_pred, y, cls):
        """Class-index labels for classification (one-hot labels are converted)."""
        if self._type == "classification" and y_pred.ndim == y.ndim and _is_onehot(y):
            y = y.argmax(axis=1)
        if self._type == "classification":
            if y_pred.ndim != y.ndim + 1 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(f"For '{cls}.update', in the classification case y must have the "
                                 f"shape of y_pred without its axis 1, but got y_pred {y_pred.shape} "
                                 f"and y {y.shape}.")
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"For '{cls}.update', in the multilabel case y_pred and y must have "
                                 f"the same shape, but got {y_pred.shape} and {y.shape}.")
            if not (np.equal(y_pred ** 2, y_pred).all() and np.equal(y ** 2, y).all()):
                raise ValueError(f"For '{cls}.update', in the multilabel case all elements of y_pred "
                                 f"and y must be 0 or 1.")
        return y


class Accuracy(EvaluationBase):
    """Fraction of correct predictions: argmax of y_pred equal to the label
    (classification), or every label of a sample right after rounding (multilabel)."""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(inputs, "Accuracy")
        y = self._labels(y_pred, y, "Accuracy")
        if self._type == "classification":
            if self._class_num == 0:
                self._class_num = y_pred.shape[1]
            elif y_pred.shape[1] != self._class_num:
                raise ValueError(f"For 'Accuracy.update', the number of classes changed from "
                                 f"{self._class_num} to {y_pred.shape[1]}.")
            correct = np.equal(y_pred.argmax(axis=1), y).reshape(-1)
        else:
            y_pred = y_pred.round()
            correct = np.all(np.equal(y_pred, y).reshape(y.shape[0], -1), axis=1)
        self._correct_num += int(correct.sum())
        self._total_num += int(correct.shape[0])

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("The 'Accuracy' can not be calculated, because the number of samples "
                               "is 0.")
        return self._correct_num / self._total_num


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the k highest scores."""

    def __init__(self, k):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', 'k' must be an int >= 1, but got {k}.")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(inputs, "TopKCategoricalAccuracy")
        if y_pred.ndim == y.ndim and _is_onehot(y):
            y = y.argmax(axis=1)
        indices = np.argsort(-y_pred, axis=1)[:, :self.k]
        repeated = y.reshape(-1, 1).repeat(self.k, axis=1)
        self._correct_num += int(np.equal(indices, repeated).sum(axis=1).sum())
        self._samples_num += int(y.shape[0])

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("The 'TopKCategoricalAccuracy' can not be calculated, because the "
                               "number of samples is 0.")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(5)


class Loss(Metric):
    """Average of the batch losses (each batch: the mean of its loss values)."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}.")
        loss = _to_numpy(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the loss must be 0-D or 1-D, but got "
                             f"{loss.ndim}-D.")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples is 0.")
        return self._sum_loss / self._total_num


class _PerClass(EvaluationBase):
    """Precision / Recall: per-class true positives over a per-class count."""

    _name = ""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.eps = sys.float_info.min
        self.clear()

    def clear(self):
        self._class_num = 0
        if self._type == "multilabel":
            self._true_positives = np.empty(0)
            self._denominator = np.empty(0)
            self._true_positives_average = 0
            self._denominator_average = 0
        else:
            self._true_positives = 0
            self._denominator = 0

    def _count(self, y_pred, y):
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(inputs, self._name)
        y = self._labels(y_pred, y, self._name)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For '{self._name}.update', the number of classes changed from "
                             f"{self._class_num} to {y_pred.shape[1]}.")
        c = self._class_num
        if self._type == "classification":
            y = y.astype(np.int64)
            if y.max() + 1 > c:
                raise ValueError(f"For '{self._name}.update', the labels hold {y.max() + 1} classes, "
                                 f"more than the {c} of the predictions.")
            y = np.eye(c)[y.reshape(-1)]
            y_pred = np.eye(c)[y_pred.argmax(axis=1).reshape(-1)]
        else:
            y_pred = y_pred.swapaxes(1, 0).reshape(c, -1)
            y = y.swapaxes(1, 0).reshape(c, -1)
        denominator = self._count(y_pred, y)
        true_positives = (y * y_pred).sum(axis=0)
        if self._type == "multilabel":
            self._true_positives_average += np.sum(true_positives / (denominator + self.eps))
            self._denominator_average += len(denominator)
            self._true_positives = np.concatenate((self._true_positives, true_positives), axis=0)
            self._denominator = np.concatenate((self._denominator, denominator), axis=0)
        else:
            self._true_positives += true_positives
            self._denominator += denominator

    def eval(self, average=False):
        """The per-class values (an array), or their mean with average=True."""
        if self._class_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of "
                               f"samples is 0.")
        if not isinstance(average, bool):
            raise TypeError(f"For '{self._name}.eval', 'average' must be a bool.")
        result = self._true_positives / (self._denominator + self.eps)
        if average:
            if self._type == "multilabel":
                result = self._true_positives_average / (self._denominator_average + self.eps)
            return result.mean()
        return result


class Precision(_PerClass):
    """tp / (tp + fp) per class (the predicted class is the argmax in classification)."""

    _name = "Precision"

    def _count(self, y_pred, y):
        return y_pred.sum(axis=0)


class Recall(_PerClass):
    """tp / (tp + fn) per class."""

    _name = "Recall"

    def _count(self, y_pred, y):
        return y.sum(axis=0)


class Fbeta(Metric):
    """(1 + beta^2) tp / (beta^2 (tp + fn) + (tp + fp)) per class."""

    def __init__(self, beta):
        super().__init__()
        self.eps = sys.float_info.min
        if not beta > 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but got {beta}.")
        self.beta = beta
        self.clear()

    def clear(self):
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(inputs, "Fbeta")
        if y_pred.ndim == y.ndim and _is_onehot(y):
            y = y.argmax(axis=1)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For 'Fbeta.update', the number of classes changed from "
                             f"{self._class_num} to {y_pred.shape[1]}.")
        c = self._class_num
        y = y.astype(np.int64)
        if y.max() + 1 > c:
            raise ValueError(f"For 'Fbeta.update', the labels hold {y.max() + 1} classes, more than "
                             f"the {c} of the predictions.")
        y = np.eye(c)[y.reshape(-1)]
        y_pred = np.eye(c)[y_pred.argmax(axis=1).reshape(-1)]
        self._positives += y_pred.sum(axis=0)
        self._actual_positives += y.sum(axis=0)
        self._true_positives += (y * y_pred).sum(axis=0)

    def eval(self, average=False):
        if self._class_num == 0:
            raise RuntimeError("The 'Fbeta' can not be calculated, because the number of samples is 0.")
        if not isinstance(average, bool):
            raise TypeError("For 'Fbeta.eval', 'average' must be a bool.")
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives
                                                     + self.eps)
        return fbeta.mean() if average else fbeta


class F1(Fbeta):
    """Fbeta with beta = 1."""

    def __init__(self):
        super().__init__(1.0)


class _Error(Metric):
    """MAE / MSE: the summed error over all elements divided by the number of
    samples (y.shape[0]), as MindSpore."""

    _name = ""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(inputs, self._name)
        self._error_sum += self._error(y.reshape(y_pred.shape) - y_pred).sum()
        self._samples_num += y.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of "
                               f"samples is 0.")
        return self._error_sum / self._samples_num


class MAE(_Error):
    """Mean absolute error: sum |y - y_pred| / N."""

    _name = "MAE"

    @staticmethod
    def _error(d):
        return np.abs(d)


class MSE(_Error):
    """Mean squared error: sum (y - y_pred)^2 / N."""

    _name = "MSE"

    @staticmethod
    def _error(d):
        return np.power(d, 2)


_FACTORY = {
    "accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall, "F1": F1,
    "mae": MAE, "mse": MSE, "topk": TopKCategoricalAccuracy,
    "top_1_accuracy": Top1CategoricalAccuracy, "top_5_accuracy": Top5CategoricalAccuracy,
    "loss": Loss,
}


def names():
    """The metric names `get_metric_fn` (and `Model(metrics=...)`) accept."""
    return sorted(_FACTORY)


def get_metric_fn(name, *args, **kwargs):
    """A new metric object by name (e.g. 'accuracy', 'precision', 'mae')."""
    if name not in _FACTORY:
        raise KeyError(f"Unknown Metric: {name!r}; supported: {names()}")
    return _FACTORY[name](*args, **kwargs)


# ---------------------------------------------------------------------------
# More of MindSpore's metrics (host numpy, like the ones above)
# ---------------------------------------------------------------------------

class Perplexity(Metric):
    """exp(mean negative log-likelihood) of the labels under the predicted
    probabilities [N, C] (or [..., C]); labels equal to `ignore_label` are skipped."""

    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = ignore_label
        self.clear()

    def clear(self):
        self._sum_nll = 0.0
        self._num = 0

    def update(self, *inputs):
        preds, labels = _two(inputs, "Perplexity")
        preds = preds.reshape(-1, preds.shape[-1]).astype(np.float64)
        labels = labels.reshape(-1).astype(np.int64)
        if preds.shape[0] != labels.shape[0]:
            raise RuntimeError("For 'Perplexity.update', preds and labels must have the same "
                               "number of samples")
        keep = np.ones(labels.shape, bool) if self.ignore_label is None else \
            labels != self.ignore_label
        p = preds[np.arange(len(labels)), np.where(keep, labels, 0)]
        self._sum_nll += float(-np.log(np.maximum(p[keep], 1e-30)).sum())
        self._num += int(keep.sum())

    def eval(self):
        if self._num == 0:
            raise RuntimeError("For 'Perplexity.eval', no samples (call update first)")
        return float(np.exp(self._sum_nll / self._num))


class CosineSimilarity(Metric):
    """The pairwise cosine (or dot) similarity of the rows of the inputs, the
    diagonal zeroed; reduction 'none' (the matrix), 'sum' or 'mean'."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        if similarity not in ("cosine", "dot") or reduction not in ("none", "sum", "mean"):
            raise ValueError("For 'CosineSimilarity', similarity must be 'cosine' or 'dot' and "
                             "reduction 'none', 'sum' or 'mean'")
        self.similarity, self.reduction, self.zero_diagonal = similarity, reduction, zero_diagonal
        self.clear()

    def clear(self):
        self.sqr_mtx_res = 0

    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError("For 'CosineSimilarity.update', it needs 1 input")
        x = _to_numpy(inputs[0]).astype(np.float64)
        if self.similarity == "cosine":
            x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        m = x @ x.T
        if self.zero_diagonal:
            np.fill_diagonal(m, 0)
        self.sqr_mtx_res = m

    def eval(self):
        m = self.sqr_mtx_res
        if self.reduction == "sum":
            return float(np.sum(m))
        if self.reduction == "mean":
            return float(np.mean(m))
        return m


class ConfusionMatrix(Metric):
    """[num_classes, num_classes] counts, rows the true class, columns the
    predicted one (scores [N, C] are argmax-ed, probabilities of a binary task
    thresholded); normalize 'no_norm', 'target', 'prediction' or 'all'."""

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        if normalize not in ("no_norm", "target", "prediction", "all"):
            raise ValueError(f"For 'ConfusionMatrix', 'normalize' must be 'no_norm', 'target', "
                             f"'prediction' or 'all', but got {normalize!r}")
        self.num_classes, self.normalize, self.threshold = int(num_classes), normalize, threshold
        self.clear()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))

    def update(self, *inputs):
        y_pred, y = _two(inputs, "ConfusionMatrix")
        if y_pred.ndim == y.ndim + 1:
            y_pred = np.argmax(y_pred, axis=1)
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(np.int64)
        idx = y.reshape(-1).astype(np.int64) * self.num_classes + \
            y_pred.reshape(-1).astype(np.int64)
        self.confusion_matrix += np.bincount(
            idx, minlength=self.num_classes ** 2).reshape(self.num_classes, self.num_classes)

    def eval(self):
        m = self.confusion_matrix
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.normalize == "target":
                m = m / m.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                m = m / m.sum(axis=0, keepdims=True)
            elif self.normalize == "all":
                m = m / m.sum()
        return np.nan_to_num(m)


class Dice(Metric):
    """Mean over the updates of 2 sum(y_pred y) / (sum(y_pred^2) + sum(y^2) + smooth)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if smooth <= 0:
            raise ValueError(f"For 'Dice', 'smooth' must be > 0, but got {smooth}")
        self.smooth = smooth
        self.clear()

    def clear(self):
        self._dice = 0.0
        self._samples = 0

    def update(self, *inputs):
        y_pred, y = _two(inputs, "Dice")
        y_pred, y = y_pred.astype(np.float64), y.astype(np.float64)
        inter = float(np.sum(y_pred * y))
        union = float(np.sum(y_pred * y_pred) + np.sum(y * y))
        self._dice += 2 * inter / (union + self.smooth)
        self._samples += 1

    def eval(self):
        if self._samples == 0:
            raise RuntimeError("For 'Dice.eval', no samples (call update first)")
        return self._dice / self._samples


def auc(x, y, reorder=False):
    """The area under the curve (x, y) by the trapezoidal rule (mindspore.train.auc)."""
    x, y = np.asarray(_to_numpy(x), np.float64), np.asarray(_to_numpy(y), np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError("For 'auc', x and y must be 1-D of the same length >= 2")
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    dx = np.diff(x)
    direction = 1.0
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1.0
        else:
            raise ValueError("For 'auc', x must be monotonic (or pass reorder=True)")
    return float(direction * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2))


__all__ += ["Perplexity", "CosineSimilarity", "ConfusionMatrix", "Dice", "auc"]
_FACTORY.update({"perplexity": Perplexity, "dice": Dice})
