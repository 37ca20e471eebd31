"""msmlir-inplace-writeback on real train steps: the parameter updates it lists
as safe to compute in place give, when the compiled step really runs with each
such parameter's array passed as its own out-parameter (the aliasing the
runtime would do), exactly the results of the step with separate buffers; the
weight updates of the matmul kernels are among them (at 1 and 2 threads), and
the small bias kernel that accumulates into its output is not."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from mlir import ir

import msmlir as ms
from msmlir import Tensor, nn
from msmlir.compiler import context
from msmlir.passes import run_pipeline
from msmlir.runtime.compiled_module import data_address

from cg_helpers import pipeline_options


def _train_step(sizes, batch, tmp_path, threads):
    """A TrainOneStepCell (Dense/ReLU MLP, sparse softmax CE, SGD) compiled with
    save_graphs; returns (compiled module, function name, bufferized dump)."""
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Dense(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    net = nn.SequentialCell(layers)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.01))
    train.set_train()
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    y = Tensor(rng.integers(0, sizes[-1], batch).astype(np.int32))
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        with pipeline_options(threads=threads):
            cm = train._graph_fn().lower_module(train, x, y).compile()
    finally:
        ms.set_context(save_graphs=False)
    (dump,) = [p for p in tmp_path.iterdir() if p.name.startswith("graph_")]
    (name,) = cm.signatures
    return cm, name, (dump / "04_bufferized.mlir").read_text()


def _inplace_pairs(bufferized: str) -> list[tuple[int, int]]:
    with context():
        m = ir.Module.parse(bufferized)
        run_pipeline(m, "builtin.module(msmlir-inplace-writeback)")
        for op in m.body.operations:
            if "msmlir.inplace" in op.attributes:
                return [tuple(ir.IntegerAttr(x).value for x in p)
                        for p in ir.ArrayAttr(op.attributes["msmlir.inplace"])]
    return []


def _inputs(sig, seed):
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in sig.inputs:
        if np.issubdtype(dtype, np.integer):
            out.append(np.asarray(rng.integers(0, 10, shape), dtype))
        else:
            out.append(np.asarray(0.1 * rng.standard_normal(shape), dtype))
    return out


def _run_aliased(d, arrays, pairs):
    """One call of dispatcher `d` with the out-parameter of each (result,
    argument) pair pointing at that argument's array; the other write-backs
    are copied as the runtime does."""
    f = d._frame()
    for i, a in enumerate(arrays):
        f.ins[i].allocated = f.ins[i].aligned = data_address(a)
    for r, a in pairs:
        f.out_descs[r].allocated = f.out_descs[r].aligned = data_address(arrays[a])
    d.func(f.packed)
    for r, a in d.writeback:
        if (r, a) not in pairs:
            np.copyto(arrays[a], f.outs[r])
    return [f.outs[j] for j in d.returned]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("sizes,batch", [((784, 512, 512, 10), 128), ((100, 72, 10), 24)])
def test_inplace_updates_equal_copied_updates(tmp_path, threads, sizes, batch):
    cm, name, bufferized = _train_step(sizes, batch, tmp_path, threads)
    d = cm.dispatcher(name)
    pairs = _inplace_pairs(bufferized)
    shapes = {a: d.sig.inputs[a][0] for _, a in d.writeback}
    weights = {a for a, s in shapes.items() if len(s) == 2}
    # every weight matrix's update is computed in place; the last bias (10
    # columns: the column-sum kernel accumulates into its output) is not
    assert weights <= {a for _, a in pairs}, (pairs, shapes)
    assert max(a for _, a in d.writeback) not in {a for _, a in pairs}
    assert set(pairs) <= set(d.writeback)
    for seed in range(3):
        ref = _inputs(d.sig, seed)
        got = [a.copy() for a in ref]
        want_out = [o.copy() for o in d(ref)]
        got_out = _run_aliased(d, got, pairs)
        for _, b in d.writeback:
            np.testing.assert_array_equal(got[b], ref[b], err_msg=f"parameter {b}")
        for o, w in zip(got_out, want_out):
            np.testing.assert_array_equal(o, w)
        # the update really happened (the test would pass on untouched arrays otherwise)
        assert all(not np.array_equal(got[a], _inputs(d.sig, seed)[a]) for a in weights)


def test_dispatcher_with_new_batches_and_an_overlapping_input(tmp_path):
    """The runtime's aliasing across calls: a new batch each step re-checks
    only the new arrays (results equal to the all-copies path), and a new
    input that overlaps a parameter turns the aliasing off for that call."""
    cm, name, _ = _train_step((100, 72, 10), 24, tmp_path, 1)
    d = cm.dispatcher(name)
    targets = {a for _, a in d.inplace}
    assert targets
    n = len(d.sig.inputs)
    params = _inputs(d.sig, 0)
    ref = [a.copy() for a in params]
    for seed in range(1, 4):                  # a fresh batch (new arrays) each step
        batch = _inputs(d.sig, seed)
        args = [params[i] if i in targets else batch[i] for i in range(n)]
        want_args = [ref[i] if i in targets else batch[i].copy() for i in range(n)]
        got_out = d(args)
        want_out = _run_aliased(d, want_args, [])
        for i in range(n):
            np.testing.assert_array_equal(args[i], want_args[i], err_msg=f"input {i}")
        for o, w in zip(got_out, want_out):
            np.testing.assert_array_equal(o, w)
        assert d._frames[-1].aliased
    # a float input (not a parameter) that is a view of a parameter's memory
    t = max(targets, key=lambda a: params[a].size)
    (x,) = [i for i in range(n) if i not in targets and d.sig.inputs[i][1] == np.float32
            and int(np.prod(d.sig.inputs[i][0])) <= params[t].size][:1]
    shape = d.sig.inputs[x][0]
    view = params[t].reshape(-1)[:int(np.prod(shape))].reshape(shape)
    args = [params[i] if i in targets else (view if i == x else batch[i]) for i in range(n)]
    want_args = [ref[i] if i in targets else (ref[t].reshape(-1)[:view.size].reshape(shape).copy()
                                              if i == x else batch[i].copy()) for i in range(n)]
    got_out = d(args)
    assert not d._frames[-1].aliased
    want_out = _run_aliased(d, want_args, [])
    for i in targets:
        np.testing.assert_array_equal(args[i], want_args[i], err_msg=f"parameter {i}")
    for o, w in zip(got_out, want_out):
        np.testing.assert_array_equal(o, w)
