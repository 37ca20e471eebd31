"""Random differentiable programs, their msmlir gradients against central
finite differences (float64): the guard that keeps autodiff at 0 mismatches.

A fixed seed generates a few dozen Python functions from smooth ops
(elementwise, broadcasting, reductions, matmul, softmax) and control flow
(tensor `if`/`else` -> scf.if, tensor `while` -> scf.while, Python `for` ->
unrolled). Each is written to a real file so `jit` compiles it from source, as
a user's function, then `msmlir.grad` w.r.t. both inputs is compared with
(f(x + h e_i) - f(x - h e_i)) / 2h of the compiled forward function.
"""
import importlib.util
import random

import numpy as np
import pytest

import msmlir as ms

N_GRAPHS = 36
SHAPES = {"m": (3, 4), "v": (4,), "c": (3, 1)}

UNARY = ["ops.sin({0})", "ops.cos({0})", "ops.tanh({0})", "ops.exp({0} * 0.3)",
         "ops.sigmoid({0})", "({0} * {0})", "ops.sqrt({0} * {0} + 1.0)",
         "ops.log({0} * {0} + 1.0)", "({0} * 0.5 - 0.25)"]
BINARY = ["({0} + {1})", "({0} - {1})", "({0} * {1})", "({0} / ({1} * {1} + 1.0))"]


class Gen:
    """Emits statements; every variable name maps to a shape kind (m/v/c)."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.vars = {"x": "m", "y": "v"}
        self.n = 0

    def fresh(self, kind):
        self.n += 1
        name = f"t{self.n}"
        self.vars[name] = kind
        return name

    def pick(self, kinds=("m", "v", "c")):
        return self.rng.choice([v for v, k in self.vars.items() if k in kinds])

    def expr_m(self, depth=2):
        """An expression of shape (3, 4) built from existing variables."""
        r = self.rng.random()
        if depth == 0 or r < 0.25:
            a = self.pick()
            return a if self.vars[a] == "m" else f"({a} + x * 0.0)"
        if r < 0.5:
            return self.rng.choice(UNARY).format(self.expr_m(depth - 1))
        if r < 0.8:
            other = self.pick()
            return self.rng.choice(BINARY).format(self.expr_m(depth - 1), other)
        if r < 0.9:
            return f"ops.softmax({self.expr_m(depth - 1)}, -1)"
        # (3,4) @ (4,3) @ (3,4) back to (3,4), scaled down
        a = self.expr_m(depth - 1)
        return f"ops.matmul(ops.matmul({a}, ops.transpose(x, (1, 0))), x) * 0.1"

    def statement(self, indent=""):
        r = self.rng.random()
        e = self.expr_m()
        if r < 0.55:
            self.lines.append(f"{indent}{self.fresh('m')} = {e}")
        elif r < 0.7:
            self.lines.append(f"{indent}{self.fresh('v')} = ({e}).mean(axis=0)")
        else:
            self.lines.append(f"{indent}{self.fresh('c')} = ({e}).sum(axis=1, keepdims=True)")

    def control_flow(self):
        r = self.rng.random()
        if r < 0.4:
            cond, a, b = self.pick(), self.expr_m(), self.expr_m()
            t = self.fresh("m")
            self.lines += [f"if {cond}.sum() > {self.rng.uniform(-1, 1):.2f}:",
                           f"    {t} = {a}", "else:", f"    {t} = {b}"]
        elif r < 0.7:
            a = self.expr_m()
            t = self.fresh("m")
            self.lines += [f"{t} = {a}",
                           f"while ops.reduce_sum({t} * {t}) < 30.0:",
                           f"    {t} = {t} * 1.5 + 0.3"]
        else:
            a, other = self.expr_m(1), self.pick()
            t = self.fresh("m")
            self.lines += [f"{t} = {a}",
                           f"for _ in range({self.rng.randint(1, 3)}):",
                           f"    {t} = ops.tanh({t}) + {other} * 0.5"]

    def function(self, name):
        for _ in range(self.rng.randint(2, 5)):
            if self.rng.random() < 0.3:
                self.control_flow()
            else:
                self.statement()
        terms = [f"({v} * {v}).sum()" for v in list(self.vars)[-3:]]
        body = "\n".join("    " + ln for ln in self.lines)
        return f"def {name}(x, y):\n{body}\n    return {' + '.join(terms)}\n"


def _programs(tmp_path_factory):
    rng = random.Random(20261124)
    src = ["from msmlir import ops", ""]
    for i in range(N_GRAPHS):
        src.append(Gen(rng).function(f"g{i}"))
    path = tmp_path_factory.mktemp("graphs") / "random_graphs.py"
    path.write_text("\n".join(src))
    spec = importlib.util.spec_from_file_location("random_graphs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path.read_text()


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return _programs(tmp_path_factory)


def _central_differences(f, args, h=1e-6):
    grads = []
    for k, a in enumerate(args):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in args]
            minus = [b.copy() for b in args]
            plus[k][idx] += h
            minus[k][idx] -= h
            g[idx] = (float(np.asarray(f(*plus))) - float(np.asarray(f(*minus)))) / (2 * h)
        grads.append(g)
    return grads


@pytest.mark.parametrize("i", range(N_GRAPHS))
def test_random_graph_gradient_matches_finite_differences(programs, i):
    mod, source = programs
    fn = getattr(mod, f"g{i}")
    rng = np.random.default_rng(i)
    x = rng.uniform(-1.0, 1.0, SHAPES["m"])
    y = rng.uniform(-1.0, 1.0, SHAPES["v"])
    forward = ms.jit(fn)
    dx, dy = ms.grad(fn, grad_position=(0, 1))(x, y)
    fx, fy = _central_differences(forward, [x, y])
    where = f"g{i}:\n" + source.split(f"def g{i}(")[1].split("\ndef ")[0]
    np.testing.assert_allclose(np.asarray(dx), fx, rtol=1e-5, atol=1e-6, err_msg=where)
    np.testing.assert_allclose(np.asarray(dy), fy, rtol=1e-5, atol=1e-6, err_msg=where)
