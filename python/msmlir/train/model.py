"""`msmlir.train.Model` (mindspore.train.Model): train / eval / predict loops.

Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None):
`train` builds WithLossCell + TrainOneStepCell (one compiled train step in
GRAPH_MODE), iterates the dataset `epoch` times calling the callbacks (a text
progress bar per epoch is shown unless `progress=False`); with
`dataset_sink_mode=True` it runs `sink_size` steps (default: the whole epoch)
per call of one compiled loop over the stacked batches (the step callbacks
fire once per call, as MindSpore's sink mode; a change of batch shape starts a
new call); `eval` returns
{metric name: value} (names as `metrics.names()`: 'accuracy', 'loss', 'precision', 'recall',
'F1', 'mae', 'mse', 'top_1_accuracy', ...; Precision/Recall/F1 give per-class arrays).
"""
from __future__ import annotations

import numpy as np

from ..common.tensor import Tensor
from .callbacks import Callback, ProgressBar, RunContext, _Params
from .metrics import Loss, get_metric_fn, names

__all__ = ["Model"]


def _make_metrics(metrics):
    """{name: metric} from a set/list of names, or a dict of metric objects."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        return dict(metrics)
    if isinstance(metrics, str):
        metrics = [metrics]
    out = {}
    for m in metrics:
        if m not in names():
            raise ValueError(f"unknown metric {m!r}; supported: {names()}")
        out[m] = get_metric_fn(m)
    return out


def _batches(dataset):
    if hasattr(dataset, "create_tuple_iterator"):
        return dataset.create_tuple_iterator(num_epochs=1)
    return iter(dataset)


def _arrays(batch):
    return tuple(np.asarray(b.asnumpy() if hasattr(b, "asnumpy") else b) for b in batch)


def _sink_chunks(dataset, size: int):
    """Runs of up to `size` consecutive batches of one signature (dtypes and
    shapes), each stacked into arrays with a leading step axis."""
    run, key = [], None
    for batch in _batches(dataset):
        arrays = _arrays(batch)
        k = tuple((a.dtype.str, a.shape) for a in arrays)
        if run and (k != key or len(run) == size):
            yield tuple(np.stack(col) for col in zip(*run)), len(run)
            run = []
        run.append(arrays)
        key = k
    if run:
        yield tuple(np.stack(col) for col in zip(*run)), len(run)


def _sink_loop(train_network):
    """A cell running `train_network` once per leading index of its inputs, as
    one compiled loop (scf.while; the optimizer's parameter updates are
    carried through it by mindir-hoist-assigns); returns the last loss."""
    from ..nn.cell import Cell
    from .. import ops

    class SinkLoop(Cell):
        def __init__(self, net):
            super().__init__(auto_prefix=False)
            self.net = net

        def construct(self, *stacked):
            i = ops.zeros((), np.int32)
            loss = ops.zeros((), np.float32)
            while i < stacked[0].shape[0]:
                loss = self.net(*[s[i] for s in stacked])
                i = i + 1
            return loss

    return SinkLoop(train_network)


class Model:
    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        from .. import nn
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metrics = _make_metrics(metrics)
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._amp_level = amp_level
        if optimizer is not None and amp_level != "O0":
            from ..amp import build_train_network
            self._train_network = build_train_network(
                network, optimizer, loss_fn, amp_level,
                loss_scale_manager=self._loss_scale_manager)
        elif optimizer is not None:
            net = nn.WithLossCell(network, loss_fn) if loss_fn is not None else network
            mgr = self._loss_scale_manager
            if mgr is not None:
                from ..common.tensor import Tensor
                import numpy as _np
                cell = mgr.get_update_cell()
                sense = cell if cell is not None else Tensor(_np.float32(mgr.get_loss_scale()))
                self._train_network = nn.TrainOneStepWithLossScaleCell(net, optimizer, sense)
            else:
                self._train_network = nn.TrainOneStepCell(net, optimizer)
        else:
            self._train_network = None
        self._eval_network = eval_network
        self.train_time = None

    @property
    def train_network(self):
        return self._train_network

    @property
    def predict_network(self):
        return self._network

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0, progress=True):
        if self._train_network is None:
            raise ValueError("Model.train needs an optimizer")
        cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else \
            ([callbacks] if callbacks is not None else [])
        if progress and not any(isinstance(c, ProgressBar) for c in cbs):
            cbs.insert(0, ProgressBar())
        size = train_dataset.get_dataset_size() if hasattr(train_dataset, "get_dataset_size") else None
        p = _Params(train_network=self._train_network, network=self._network, epoch_num=epoch,
                    batch_num=size or 0, cur_epoch_num=0, cur_step_num=0, net_outputs=None,
                    optimizer=self._optimizer, loss_fn=self._loss_fn, train_dataset=train_dataset,
                    mode="train", list_callback=cbs)
        rc = RunContext(p)

        def fire(name):
            for c in cbs:
                getattr(c, name)(rc)
                old = {"on_train_begin": "begin", "on_train_epoch_begin": "epoch_begin",
                       "on_train_step_begin": "step_begin", "on_train_step_end": "step_end",
                       "on_train_epoch_end": "epoch_end", "on_train_end": "end"}[name]
                if getattr(type(c), old, None) is not getattr(Callback, old):
                    getattr(c, old)(rc)   # a MindSpore 1.x style callback

        self._train_network.set_train(True)
        sink = _sink_loop(self._train_network) if dataset_sink_mode else None
        chunk = sink_size if sink_size and sink_size > 0 else (size or 2 ** 31)
        fire("on_train_begin")
        for e in range(initial_epoch, epoch):
            p.cur_epoch_num = e + 1
            fire("on_train_epoch_begin")
            n = 0
            if sink is not None:   # sink_size steps per compiled call, callbacks per call
                for stacked, steps in _sink_chunks(train_dataset, chunk):
                    p.cur_step_num += steps
                    n += steps
                    fire("on_train_step_begin")
                    p.net_outputs = sink(*[Tensor(a) for a in stacked])
                    fire("on_train_step_end")
                    if rc.get_stop_requested():
                        break
            for batch in (_batches(train_dataset) if sink is None else ()):
                p.cur_step_num += 1
                n += 1
                fire("on_train_step_begin")
                p.net_outputs = self._train_network(*batch)
                fire("on_train_step_end")
                if rc.get_stop_requested():
                    break
            if not p.batch_num:
                p.batch_num = n
            fire("on_train_epoch_end")
            if rc.get_stop_requested():
                break
        fire("on_train_end")
        self._train_network.set_train(False)

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        if not self._metrics:
            raise ValueError("Model.eval needs metrics (e.g. metrics={'accuracy'})")
        for m in self._metrics.values():
            m.clear()
        self._network.set_train(False)
        for batch in _batches(valid_dataset):
            data, label = batch[0], batch[-1]
            if self._eval_network is not None:
                loss, out, label = self._eval_network(data, label)
            else:
                out = self._network(data)
                loss = self._loss_fn(out, label) if self._loss_fn is not None else None
            for m in self._metrics.values():
                if isinstance(m, Loss):
                    if loss is not None:
                        m.update(loss)
                else:
                    m.update(out, label)
        return {k: m.eval() for k, m in self._metrics.items()}

    def predict(self, *predict_data):
        self._network.set_train(False)
        out = self._network(*predict_data)
        return out if not isinstance(out, np.ndarray) else Tensor(out)
