"""A whole MLP train step (Dense + ReLU + Dense, sparse softmax cross-entropy,
SGD) through the Ascend target: every kernel of the graph is Ascend C run on
the emulator (matmuls as transpose / cube / epilogue groups, the relu mask as
an i1 tensor, the labels as i32), the host graph interpreted by
msmlir.ascend; the losses of 5 steps match the CPU target's.

The graph's mindir comes from `save_graphs` so that its kernels can also be
compiled one by one; `msmlir.ascend.compile_graph` runs it as
`set_context(device_target="Ascend")` does (parameter write-back included).
"""
import glob
import re

import numpy as np
import pytest

import msmlir as ms
import msmlir.ascend as A
from msmlir import Tensor, nn

from support.models import lenet5_with_biases

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]


@pytest.fixture(scope="module")
def mlp_dump(tmp_path_factory):
    """The MLP train step compiled for the CPU with save_graphs: (graph dir, CPU losses, x, y, init)."""
    path = tmp_path_factory.mktemp("mlp")
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(path))
    try:
        net = nn.SequentialCell([nn.Dense(20, 16), nn.ReLU(), nn.Dense(16, 10)])
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
        train.set_train()
        init = {p.name: p.asnumpy().copy() for p in train.get_parameters()}
        rng = np.random.default_rng(1)
        x = rng.random((8, 20)).astype(np.float32)
        y = (np.arange(8) % 10).astype(np.int32)
        cpu = [float(train(Tensor(x), Tensor(y)).asnumpy()) for _ in range(5)]
    finally:
        ms.set_context(save_graphs=False)
    return glob.glob(str(path / "*"))[0], cpu, x, y, init


def _ascend_steps(graph_file: str, args: list, steps: int = 5):
    """(the Ascend program, the losses of `steps` train steps) of a dumped
    graph; `args` (its arrays, parameters last) take the parameter updates."""
    text = open(graph_file).read()
    name = re.search(r"func.func @(\w+)", text).group(1)
    compiled = A.compile_graph(text)
    return compiled.program, [float(compiled.call(name, *args)[0]) for _ in range(steps)]


def test_mlp_train_step_matches_cpu(mlp_dump):
    graph_dir, cpu, x, y, init = mlp_dump
    args = [x, y] + [init[n] for n in ("0.weight", "0.bias", "2.weight", "2.bias", "global_step",
                                       "learning_rate")]
    prog, losses = _ascend_steps(f"{graph_dir}/00_graph.mlir", args)
    assert len(prog.kernels) == 9
    assert sum(1 for k in prog.kernels.values() if k.parts) == 5        # the five matmul kernels
    np.testing.assert_allclose(losses, cpu, rtol=1e-5)


def test_every_mlp_kernel_matches_the_cpu_target(mlp_dump):
    """Each outlined kernel (kernels/<name>.mlir), compiled alone for the CPU
    and for Ascend, on the same random inputs."""
    from msmlir.compiler import compile_mlir
    graph_dir = mlp_dump[0]
    files = sorted(glob.glob(f"{graph_dir}/kernels/*.mlir"))
    assert len(files) == 9
    rng = np.random.default_rng(0)
    for f in files:
        text = open(f).read().replace("func.func private", "func.func")
        text = re.sub(r" attributes \{mskernel.kind = [^}]*\}", "", text)
        kname = re.search(r"func.func @(\w+)", text).group(1)
        text = text.replace("@" + kname, "@host")            # the kernel gets its own name again
        ins = []
        for t in re.findall(r"tensor<([^>]*)>", re.search(r"func.func @host\((.*?)\) ->", text).group(1)):
            *dims, et = t.split("x")
            shape = [int(d) for d in dims]
            ins.append(rng.random(shape) > 0.5 if et == "i1" else rng.integers(0, 10, shape).astype(np.int32)
                       if et == "i32" else rng.standard_normal(shape).astype(np.float32))
        ref = compile_mlir(text).call("host", *ins)
        ref = ref if isinstance(ref, (list, tuple)) else [ref]
        got = A.compile(text).call("host", *ins)
        for a, b in zip(ref, got):
            np.testing.assert_allclose(np.asarray(b, np.float64), np.asarray(a, np.float64), rtol=1e-5, atol=1e-5,
                                       err_msg=kname)


def test_lenet5_train_step_matches_cpu(tmp_path):
    """All 26 kernels of the LeNet5 train step as Ascend C, 5 steps: the five
    convolution kernels (forward with bias, input and filter gradients) as
    im2col + cube groups, the four max-pool kernels (forward, gradient) on the
    vector path, the two bias-gradient sums over (N, H, W) as a row-mode then
    a column-mode vector kernel: none on the scalar fallback."""
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        net = lenet5_with_biases()
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), nn.SGD(net.trainable_params(), learning_rate=0.05))
        train.set_train()
        init = {p.name: p.asnumpy().copy() for p in train.get_parameters()}
        order = [p.name for p in net.trainable_params()] + ["global_step", "learning_rate"]
        rng = np.random.default_rng(0)
        x = rng.random((4, 1, 32, 32)).astype(np.float32)
        y = np.arange(4).astype(np.int32)
        cpu = [float(train(Tensor(x), Tensor(y)).asnumpy()) for _ in range(5)]
    finally:
        ms.set_context(save_graphs=False)
    args = [x, y] + [init[n] for n in order]
    prog, losses = _ascend_steps(glob.glob(str(tmp_path / "*" / "00_graph.mlir"))[0], args)
    assert len(prog.kernels) == 26
    assert not [k for k in prog.kernels.values() if k.report["bound"] == "scalar fallback"]
    bias_grads = [k for k in prog.kernels.values() if k.plan.parts and k.plan.parts[0][0].kernel.endswith("_rows")]
    assert len(bias_grads) == 2
    convs = [k for k in prog.kernels.values() if "conv" in k.function]
    assert len(convs) == 5 and all(any(p.cube is not None for p, _, _ in k.plan.parts) for k in convs)
    cubes = [p for k in prog.kernels.values() for p, _, _ in (k.plan.parts or [(k.plan, 0, 0)]) if p.cube is not None]
    assert len(cubes) == 14 and all(p.double_buffer and p.report["double_buffer"] for p in cubes)
    pools = [k for k in prog.kernels.values() if "pool" in k.function]
    assert len(pools) == 4 and all(k.plan.pool is not None for k in pools)
    np.testing.assert_allclose(losses, cpu, rtol=1e-5)


def test_every_lenet5_kernel_matches_the_cpu_target(tmp_path):
    """Each of the 26 outlined kernels of the LeNet5 train step, compiled alone
    for the CPU and for Ascend, on the same random inputs: the elementwise,
    pooling and mask kernels bit-identical; products (cube), convolutions and
    sums within f32 summation-order error (1e-5 relative, 1e-5 of the largest
    element absolute)."""
    from msmlir.compiler import compile_mlir

    from kernel_cases import host_function, random_inputs
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        net = lenet5_with_biases()
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                                           reduction="mean")),
                                    nn.SGD(net.trainable_params(), learning_rate=0.05))
        train(Tensor(np.zeros((4, 1, 32, 32), np.float32)), Tensor(np.arange(4).astype(np.int32)))
    finally:
        ms.set_context(save_graphs=False)
    files = sorted(glob.glob(str(tmp_path / "*" / "kernels" / "*.mlir")))
    assert len(files) == 26
    rng = np.random.default_rng(5)
    for f in files:
        kname, text = host_function(f)
        ins = random_inputs(text, rng)
        ref = compile_mlir(text).call("host", *ins)
        got = A.compile(text, fallback=False).call("host", *ins)
        for j, (g, r) in enumerate(zip(got, ref)):
            g, r = np.asarray(g), np.asarray(r)
            assert g.dtype == r.dtype and g.shape == r.shape, kname
            if np.array_equal(g, r):
                continue
            assert any(s in kname for s in ("_conv_", "_matmul_", "_reduce_")), (kname, j)     # else bit for bit
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5 * float(np.abs(r).max()),
                                       err_msg=f"{kname} result {j}")
