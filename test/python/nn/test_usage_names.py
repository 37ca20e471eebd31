"""mindspore.nn helper names real code imports (nn/usage_names.py): opt_init_args_register
records an optimizer's arguments, _Loss is LossBase, _VirtualDatasetCell runs its backbone
(PyNative and jit), no_init_parameters is a scope that leaves parameters initialized."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import nn


def test_opt_init_args_register_records_the_arguments():
    class MyOpt(nn.Momentum):
        @nn.opt_init_args_register
        def __init__(self, params, learning_rate, momentum, weight_decay=0.0):
            super().__init__(params, learning_rate, momentum, weight_decay)

    net = nn.Dense(3, 2)
    opt = MyOpt(net.trainable_params(), ms.Tensor(np.float32(0.1)), 0.9)
    assert opt.init_args["momentum"] == 0.9 and opt.init_args["weight_decay"] == 0.0
    assert float(opt.init_args["learning_rate"]) == pytest.approx(0.1)
    assert "params" not in opt.init_args
    assert list(opt.init_params["params"]) == list(net.trainable_params())
    with pytest.raises(TypeError):
        MyOpt(net.trainable_params())                     # missing arguments still fail


def test_loss_alias_virtual_dataset_cell_and_no_init_parameters():
    assert nn._Loss is nn.LossBase
    with nn.no_init_parameters():
        dense = nn.Dense(4, 3)
    assert dense.weight.asnumpy().shape == (3, 4) and np.abs(dense.weight.asnumpy()).sum() > 0
    wrapped = nn._VirtualDatasetCell(dense)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32))
    np.testing.assert_allclose(wrapped(x).asnumpy(), dense(x).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(ms.jit(lambda a: wrapped(a))(x).asnumpy(), dense(x).asnumpy(),
                               rtol=1e-6)
    with pytest.raises(TypeError):
        nn._VirtualDatasetCell()
