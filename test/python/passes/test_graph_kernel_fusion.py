"""Graph-kernel fusion end to end: random graphs of fusible ops give the same
results with fusion on and off (and both match numpy in float64); training
gradients are unchanged; the context switches, the kernel summary and the
save_graphs dump work."""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import msmlir as ms
from msmlir import compiler, nn, ops
from msmlir.compiler import compile_mlir
from msmlir.passes.pipelines.cpu import kernels
from msmlir.passes.registry import option_defaults

ROOT = pathlib.Path(__file__).resolve().parents[3]

N = 8
UNARY = {"exp": np.exp, "tanh": np.tanh, "relu": lambda a: np.maximum(a, 0), "neg": np.negative,
         "abs": np.abs}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum}


def _ty(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def random_graph(seed: int):
    """(mindir text of @f, numpy function computing the same in float64, n inputs)."""
    rng = np.random.default_rng(seed)
    n_in = int(rng.integers(1, 4))
    vals = [(f"%arg{i}", (N, N)) for i in range(n_in)]
    lines, refs = [], []
    for k in range(int(rng.integers(4, 14))):
        choice = rng.choice(["unary", "binary", "binary", "reduce", "matmul", "transpose"])
        name = f"%v{k}"
        a, sa = vals[int(rng.integers(len(vals)))]
        ia = [v for v, _ in vals].index(a)
        full = [(i, v) for i, (v, s) in enumerate(vals) if s == (N, N)]
        if choice == "unary":
            op = str(rng.choice(list(UNARY)))
            if op == "exp":                       # keep values small: exp(tanh(a))
                lines.append(f"{name}_t = mindir.tanh {a} : {_ty(sa)}")
                lines.append(f"{name} = mindir.exp {name}_t : {_ty(sa)}")
                refs.append((lambda ia: lambda env: np.exp(np.tanh(env[ia])))(ia))
            else:
                lines.append(f"{name} = mindir.{op} {a} : {_ty(sa)}")
                refs.append((lambda ia, f: lambda env: f(env[ia]))(ia, UNARY[op]))
            vals.append((name, sa))
        elif choice == "binary":
            b, sb = vals[int(rng.integers(len(vals)))]
            ib = [v for v, _ in vals].index(b)
            op = str(rng.choice(list(BINARY)))
            so = tuple(np.broadcast_shapes(sa, sb))
            lines.append(f"{name} = mindir.{op} {a}, {b} : ({_ty(sa)}, {_ty(sb)}) -> {_ty(so)}")
            refs.append((lambda ia, ib, f: lambda env: f(env[ia], env[ib]))(ia, ib, BINARY[op]))
            vals.append((name, so))
        elif choice == "reduce":
            ia, a = full[int(rng.integers(len(full)))]
            axis = int(rng.integers(2))
            op = str(rng.choice(["reduce_sum", "reduce_max"]))
            so = (N, 1) if axis == 1 else (1, N)
            lines.append(f"{name} = mindir.{op} {a} {{axes = array<i64: {axis}>, keep_dims = true}}"
                         f" : ({_ty((N, N))}) -> {_ty(so)}")
            f = np.sum if op == "reduce_sum" else np.max
            refs.append((lambda ia, f, axis: lambda env: f(env[ia], axis=axis, keepdims=True))(
                ia, f, axis))
            vals.append((name, so))
        elif choice == "matmul":
            ia, a = full[int(rng.integers(len(full)))]
            ib, b = full[int(rng.integers(len(full)))]
            lines.append(f"{name}_m = mindir.matmul {a}, {b} : ({_ty((N, N))}, {_ty((N, N))}) -> "
                         f"{_ty((N, N))}")
            lines.append(f"{name}_s = mindir.constant dense<{1.0 / N}> : tensor<f32>")
            refs.append((lambda ia, ib: lambda env: env[ia] @ env[ib] / N)(ia, ib))
            lines.append(f"{name} = mindir.mul {name}_m, {name}_s : ({_ty((N, N))}, tensor<f32>) "
                         f"-> {_ty((N, N))}")
            vals.append((name, (N, N)))
        else:
            ia, a = full[int(rng.integers(len(full)))]
            lines.append(f"{name} = mindir.transpose {a} {{perm = array<i64: 1, 0>}} : "
                         f"({_ty((N, N))}) -> {_ty((N, N))}")
            refs.append((lambda ia: lambda env: env[ia].T)(ia))
            vals.append((name, (N, N)))
    # results: the last value and one earlier intermediate (a multi-output kernel)
    picks = sorted({len(vals) - 1, int(rng.integers(n_in, len(vals)))})
    args = ", ".join(f"%arg{i}: {_ty((N, N))}" for i in range(n_in))
    rets = [vals[p] for p in picks]
    text = (f"func.func @f({args}) -> ({', '.join(_ty(s) for _, s in rets)}) {{\n  "
            + "\n  ".join(lines)
            + f"\n  return {', '.join(v for v, _ in rets)} : {', '.join(_ty(s) for _, s in rets)}\n}}\n")

    def reference(*inputs):
        env = [x.astype(np.float64) for x in inputs]
        for r in refs:
            env.append(r(env))
        return [env[p] for p in picks]
    return text, reference, n_in


@pytest.mark.parametrize("seed", range(30))
def test_random_graphs_same_with_fusion_on_and_off(seed):
    text, reference, n_in = random_graph(seed)
    rng = np.random.default_rng(100 + seed)
    inputs = [rng.standard_normal((N, N)).astype(np.float32) for _ in range(n_in)]
    results = {}
    for on in (True, False):
        with option_defaults("msmlir-cpu-pipeline", {"graph-kernel": on}):
            out = compile_mlir(text).call("f", *inputs)
        results[on] = out if isinstance(out, (list, tuple)) else [out]
    for got_on, got_off, ref in zip(results[True], results[False], reference(*inputs)):
        scale = max(1.0, float(np.max(np.abs(ref))))
        np.testing.assert_allclose(got_on, ref, rtol=1e-5, atol=1e-5 * scale, err_msg=text)
        np.testing.assert_allclose(got_on, got_off, rtol=1e-5, atol=1e-6 * scale, err_msg=text)


def _mlp_step(enable: bool, steps: int = 3):
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=enable)
    try:
        rng = np.random.default_rng(0)
        net = nn.SequentialCell([nn.Dense(20, 16), nn.ReLU(), nn.Dense(16, 5)])
        for p in net.trainable_params():
            p.set_data(ms.Tensor(rng.uniform(-0.3, 0.3, p.shape).astype(np.float32)))
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                     reduction="mean"))
        step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        x = rng.standard_normal((12, 20)).astype(np.float32)
        y = rng.integers(0, 5, 12).astype(np.int32)
        losses = [float(np.asarray(step(x, y).asnumpy())) for _ in range(steps)]
        return losses, compiler.last_kernel_summary(), dict(compiler._LAST_STATS)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, enable_graph_kernel=True)


def test_training_step_same_with_fusion_on_and_off_and_fewer_kernels():
    on, summary_on, stats_on = _mlp_step(True)
    off, summary_off, stats_off = _mlp_step(False)
    np.testing.assert_allclose(on, off, rtol=1e-5)
    assert on[2] < on[0]
    assert "kernel calls" in summary_on
    assert stats_on["calls"] * 3 <= stats_off["calls"], (summary_on, summary_off)


def test_enable_graph_kernel_is_checked_and_read_back():
    with pytest.raises(TypeError, match="enable_graph_kernel"):
        ms.set_context(enable_graph_kernel="yes")
    assert ms.get_context("enable_graph_kernel") is True


def test_save_graphs_dumps_each_stage_and_every_kernel(tmp_path):
    @ms.jit
    def f(x, w):
        return ops.softmax(ops.relu(ops.matmul(x, w)) * 2.0, axis=-1)
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        f(np.ones((4, 8), np.float32), np.ones((8, 4), np.float32))
    finally:
        ms.set_context(save_graphs=False)
    (d,) = [p for p in tmp_path.iterdir() if p.name.startswith("graph_")]
    stages = sorted(p.name for p in d.iterdir() if p.suffix == ".mlir")
    assert stages == ["00_graph.mlir", "01_kernels.mlir", "02_linalg.mlir", "03_codegen.mlir",
                      "04_bufferized.mlir", "05_llvm.mlir"]
    names = sorted(p.name for p in (d / "kernels").iterdir())
    assert len(names) == 2 and names[0].startswith("cpu_matmul_matmul_relu_mul_")
    assert "mindir.matmul" in (d / "kernels" / names[0]).read_text()
    assert "call @cpu_matmul_" in (d / "01_kernels.mlir").read_text()
    assert os.path.getsize(d / "05_llvm.mlir") > 0
    # ms-opt on the dumped graph reproduces the same kernels
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "ms-opt"), str(d / "00_graph.mlir"),
                          f"--pass-pipeline=builtin.module({kernels(True)})"],
                         capture_output=True, text=True, check=True).stdout
    assert sorted(re.findall(r"func\.func private @(\w+)", out)) == [k[:-5] for k in names]
