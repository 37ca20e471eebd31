"""The repeated-call path of a GRAPH_MODE Cell (nn/cell.py's call plan, jit's
fast key, Lowered.run's Parameter arrays): everything cached between calls is
dropped when what it depends on changes."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor, nn, ops
from msmlir.common import context


@pytest.fixture(autouse=True)
def _graph_mode():
    context._reset_context()
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    context._reset_context()


class Affine(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w = Parameter(Tensor(w), name="w")
        self.b = Parameter(Tensor(b), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


def _affine(n=3, m=2, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, m)).astype(np.float32),
            rng.standard_normal(m).astype(np.float32),
            rng.standard_normal((4, n)).astype(np.float32))


def test_set_context_between_calls_switches_graph_and_pynative():
    w, b, x = _affine()
    net = Affine(w, b)
    want = x @ w + b
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    jf = net._graph_fn()
    hits = jf.cache_info()["hits"]
    net(Tensor(x))
    assert jf.cache_info()["hits"] == hits + 1            # the cached plan ran the graph
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = net(Tensor(x))
    assert isinstance(out, Tensor)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert jf.cache_info()["hits"] == hits + 1            # PyNative: construct ran as Python
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert jf.cache_info()["hits"] == hits + 2
    assert jf.cache_info()["compiles"] == 1


def test_pipeline_option_change_between_cell_calls_recompiles():
    w, b, x = _affine()
    net = Affine(w, b)
    net(Tensor(x))
    jf = net._graph_fn()
    assert jf.cache_info()["compiles"] == 1
    ms.set_context(enable_graph_kernel=not ms.get_context("enable_graph_kernel"))
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    assert net._graph_fn().cache_info()["compiles"] == 1 + (net._graph_fn() is jf)


def test_set_data_same_shape_is_seen_by_the_next_call():
    w, b, x = _affine()
    net = Affine(w, b)
    net(Tensor(x))
    net(Tensor(x))
    net.w.set_data(Tensor(2 * w))
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ (2 * w) + b, rtol=1e-5, atol=1e-6)
    net.b.asnumpy()[...] = 5                               # written in place: the same array
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ (2 * w) + 5, rtol=1e-5, atol=1e-6)


def test_set_data_with_a_new_shape_recompiles():
    w, b, x = _affine()
    net = Affine(w, b)
    net(Tensor(x))
    net(Tensor(x))
    jf = net._graph_fn()
    w2, b2, _ = _affine(3, 5, seed=1)
    net.w.set_data(Tensor(w2), slice_shape=True)
    net.b.set_data(Tensor(b2), slice_shape=True)
    out = net(Tensor(x))
    assert out.shape == (4, 5)
    np.testing.assert_allclose(out.asnumpy(), x @ w2 + b2, rtol=1e-5)
    assert jf.cache_info()["compiles"] == 2
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ w2 + b2, rtol=1e-5)
    assert jf.cache_info()["compiles"] == 2
    net.w.set_data(Tensor(w), slice_shape=True)            # back: built again, not stale
    net.b.set_data(Tensor(b), slice_shape=True)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ w + b, rtol=1e-5, atol=1e-6)


def test_new_input_shape_recompiles_and_old_one_is_still_cached():
    w, b, x = _affine()
    net = Affine(w, b)
    x2 = np.ones((7, 3), np.float32)
    net(Tensor(x))
    np.testing.assert_allclose(net(Tensor(x2)).asnumpy(), x2 @ w + b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    assert net._graph_fn().cache_info()["compiles"] == 2


def test_replacing_a_parameter_object_is_seen():
    w, b, x = _affine()
    net = Affine(w, b)
    net(Tensor(x))
    net(Tensor(x))
    net.w = Parameter(Tensor(3 * w), name="w")
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), x @ (3 * w) + b, rtol=1e-5, atol=1e-6)


class Outer(nn.Cell):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(self.inner(x))


def test_set_train_switches_graphs_back_and_forth():
    w, b, _ = _affine()
    x = np.ones((64, 3), np.float32)
    net = Outer(Affine(w, b))
    want = x @ w + b
    net.set_train(False)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    net.set_train(True)
    out = net(Tensor(x)).asnumpy()
    zeros = out == 0
    assert zeros.any() and not zeros.all()                 # dropout on
    np.testing.assert_allclose(out[~zeros], 2 * want[~zeros], rtol=1e-5)
    net.set_train(False)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    net.drop.training = True                               # one sub-cell's flag, set directly
    assert (net(Tensor(x)).asnumpy() == 0).any()
    assert len(net._graph_cache) == 3                     # eval, train, drop-only train


class Twice(nn.Cell):
    def construct(self, x):
        return x * 2


def test_sub_cell_replaced_in_the_children_dict_is_seen():
    w, b, x = _affine()
    net = Outer(Affine(w, b))
    net.set_train(False)
    net(Tensor(x))
    net(Tensor(x))
    net.__dict__["_cells"]["inner"] = Twice()              # as msmlir.amp does
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), 2 * x, rtol=1e-5, atol=1e-6)


def test_to_float_between_calls_is_seen():
    w, b, x = _affine()
    net = Affine(w, b)
    assert net(Tensor(x)).dtype == ms.float32
    net.to_float(ms.float16)
    out = net(Tensor(x))
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), x @ w + b, rtol=2e-2, atol=2e-2)


def test_errors_after_the_fast_path_still_point_at_the_users_line():
    w, b, x = _affine()
    net = Affine(w, b)
    net(Tensor(x))
    net(Tensor(x))
    with pytest.raises(Exception) as e:
        net(Tensor(np.ones((4, 5), np.float32)))             # matmul: 5 vs 3
    assert "test_call_plan.py" in str(e.value)


def test_train_step_repeated_calls_match_numpy_sgd():
    rng = np.random.default_rng(3)
    w = rng.standard_normal((3, 1)).astype(np.float32)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.standard_normal((8, 1)).astype(np.float32)
    net = Affine(w, np.zeros(1, np.float32))
    lr = 0.1
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=lr))
    step.set_train()
    ww, bb = w.astype(np.float64), np.zeros(1)
    for i in range(4):
        if i == 2:          # set_data between steps: the next step starts from it
            net.w.set_data(Tensor(np.full((3, 1), 0.5, np.float32)))
            ww = np.full((3, 1), 0.5)
        loss = float(step(Tensor(x), Tensor(y)).asnumpy())
        r = x @ ww + bb - y
        assert loss == pytest.approx(float(np.mean(r ** 2)), rel=1e-5)
        ww = ww - lr * (2 / r.size) * x.T @ r
        bb = bb - lr * (2 / r.size) * r.sum(0)
        np.testing.assert_allclose(net.w.asnumpy(), ww, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(net.b.asnumpy(), bb, rtol=1e-5, atol=1e-6)
