"""mindspore.train callbacks msmlir adds for MindSpore scripts: CheckpointConfig +
ModelCheckpoint writing during Model.train, History, LambdaCallback."""
import os

import numpy as np
import pytest

import msmlir as ms
from msmlir import dataset as ds
from msmlir import nn
from msmlir.train import CheckpointConfig, History, LambdaCallback, Model, ModelCheckpoint


def _data(n=12, batch=4):
    rs = np.random.RandomState(0)
    x = rs.randn(n, 3).astype(np.float32)
    y = (x @ np.float32([[1.0], [-2.0], [0.5]])).astype(np.float32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def test_model_checkpoint_during_train(tmp_path):
    ms.set_seed(1)
    net = nn.Dense(3, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    cfg = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2,
                           append_info=["epoch_num", "step_num"])
    ckpt = ModelCheckpoint(prefix="net", directory=str(tmp_path), config=cfg)
    hist = History()
    seen = []
    lam = LambdaCallback(on_train_epoch_end=lambda rc: seen.append(
        rc.original_args().cur_epoch_num))
    model.train(2, _data(), callbacks=[ckpt, hist, lam], progress=False)
    # 3 steps per epoch, a save every 2 steps: steps 2, 4, 6 (= epoch 2 step 3), keep 2
    files = sorted(os.listdir(tmp_path))
    assert files == ["net-2_1.ckpt", "net-2_3.ckpt"], files
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "net-2_3.ckpt")
    params = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    np.testing.assert_array_equal(params[net.weight.name].asnumpy(), net.weight.asnumpy())
    assert int(params["epoch_num"].asnumpy()) == 2 and int(params["step_num"].asnumpy()) == 6
    assert seen == [1, 2]
    assert hist.epoch == [1, 2] and len(hist.history["loss"]) == 2
    assert hist.history["loss"][1] < hist.history["loss"][0]


def test_checkpoint_config_errors(tmp_path):
    with pytest.raises(ValueError, match="save_checkpoint_steps"):
        CheckpointConfig(save_checkpoint_steps=-1)
    with pytest.raises(ValueError, match="one of"):
        CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)
    with pytest.raises(ValueError, match="enc_key"):
        CheckpointConfig(enc_key=b"k" * 16)
    with pytest.raises(TypeError, match="CheckpointConfig"):
        ModelCheckpoint(directory=str(tmp_path), config={"save_checkpoint_steps": 1})
    with pytest.raises(ValueError, match="prefix"):
        ModelCheckpoint(prefix="a/b", directory=str(tmp_path))
    assert CheckpointConfig().get_checkpoint_policy()["keep_checkpoint_max"] == 5
    from msmlir.train.callback import ModelCheckpoint as MC
    assert MC is ModelCheckpoint and ms.ModelCheckpoint is ModelCheckpoint


def _model(lr=0.05):
    ms.set_seed(2)
    net = nn.Dense(3, 1)
    opt = nn.SGD(net.trainable_params(), lr)
    return net, opt, Model(net, nn.MSELoss(), opt)


def test_learning_rate_scheduler():
    from msmlir.train import LearningRateScheduler
    net, opt, model = _model()
    seen = []
    sched = LearningRateScheduler(lambda lr, step: seen.append((lr, step)) or lr * 0.5)
    model.train(1, _data(), callbacks=[sched], progress=False)
    assert [s for _, s in seen] == [1, 2, 3]
    np.testing.assert_allclose([lr for lr, _ in seen], [0.05, 0.025, 0.0125], rtol=1e-6)
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.00625)


def test_early_stopping_and_reduce_lr_on_plateau():
    from msmlir.train import EarlyStopping, ReduceLROnPlateau
    net, opt, model = _model(lr=0.0)          # lr 0: the loss never improves
    stop = EarlyStopping(monitor="loss", patience=2)
    epochs = []
    model.train(10, _data(), callbacks=[stop, LambdaCallback(
        on_train_epoch_end=lambda rc: epochs.append(rc.original_args().cur_epoch_num))],
        progress=False)
    assert epochs == [1, 2, 3] and stop.stopped_epoch == 3
    net, opt, model = _model(lr=0.0)
    _set = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=0.0)
    opt.learning_rate.set_data(ms.Tensor(np.float32(0.0)))
    model.train(3, _data(), callbacks=[_set], progress=False)   # 0 * 0.5 stays 0
    assert float(opt.learning_rate.asnumpy()) == 0.0
    net, opt, model = _model(lr=1e-9)        # improvements below min_delta: plateau
    red = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=1.0)
    model.train(3, _data(), callbacks=[red], progress=False)
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(1e-9 * 0.25, rel=1e-3)
    with pytest.warns(RuntimeWarning, match="eval_loss"):
        _model()[2].train(1, _data(), callbacks=[EarlyStopping()], progress=False)
    with pytest.raises(ValueError, match="mode"):
        EarlyStopping(mode="up")


def _ls_data():
    rs = np.random.RandomState(3)
    return ms.Tensor(rs.randn(8, 3).astype(np.float32)), ms.Tensor(rs.randn(8, 1).astype(np.float32))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_loss_scale_cell_matches_plain_training(mode):
    x, y = _ls_data()
    ms.set_context(mode=mode)
    try:
        ms.set_seed(4)
        a = nn.Dense(3, 1)
        plain = nn.TrainOneStepCell(nn.WithLossCell(a, nn.MSELoss()),
                                    nn.Momentum(a.trainable_params(), 0.1, 0.9))
        ms.set_seed(4)
        b = nn.Dense(3, 1)
        scaled = nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(b, nn.MSELoss()), nn.Momentum(b.trainable_params(), 0.1, 0.9),
            ms.Tensor(np.float32(1024.0)))
        for _ in range(3):
            la = plain(x, y)
            lb, overflow, scale = scaled(x, y)
            assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 1024.0
            np.testing.assert_allclose(lb.asnumpy(), la.asnumpy(), rtol=1e-5)
        np.testing.assert_allclose(b.weight.asnumpy(), a.weight.asnumpy(), rtol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_dynamic_loss_scale_skips_overflowing_steps():
    from msmlir.train import DynamicLossScaleManager, FixedLossScaleManager
    x, y = _ls_data()
    net = nn.Dense(3, 1)
    mgr = DynamicLossScaleManager(init_loss_scale=2.0 ** 10, scale_factor=2, scale_window=2)
    cell = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()),
                                            nn.SGD(net.trainable_params(), 0.1),
                                            mgr.get_update_cell())
    w0 = net.weight.asnumpy().copy()
    big = ms.Tensor(x.asnumpy() * np.float32(1e25))
    _, overflow, _ = cell(big, y)          # the scaled gradients overflow float32
    assert bool(overflow.asnumpy())
    np.testing.assert_array_equal(net.weight.asnumpy(), w0)       # the update was skipped
    assert float(cell.scale_sense.asnumpy()) == 2.0 ** 9
    cell.set_sense_scale(4.0)
    _, o1, _ = cell(x, y)
    _, o2, _ = cell(x, y)                  # two clean steps: the scale doubles
    assert not bool(o1.asnumpy()) and not bool(o2.asnumpy())
    assert float(cell.scale_sense.asnumpy()) == pytest.approx(8.0)
    assert not np.array_equal(net.weight.asnumpy(), w0)
    # Model with a loss-scale manager trains as without one
    ms.set_seed(5)
    n1 = nn.Dense(3, 1)
    m1 = Model(n1, nn.MSELoss(), nn.SGD(n1.trainable_params(), 0.05),
               loss_scale_manager=FixedLossScaleManager(256.0))
    m1.train(1, _data(), progress=False)
    ms.set_seed(5)
    n2 = nn.Dense(3, 1)
    Model(n2, nn.MSELoss(), nn.SGD(n2.trainable_params(), 0.05)).train(1, _data(),
                                                                        progress=False)
    np.testing.assert_allclose(n1.weight.asnumpy(), n2.weight.asnumpy(), rtol=1e-5)
    m = DynamicLossScaleManager(8, 2, 2)
    m.update_loss_scale(True)
    assert m.get_loss_scale() == 4
    with pytest.raises(ValueError):
        FixedLossScaleManager(0.5)
