"""mindir.grad semantics (sens, has_aux, return_value, grad_position), higher
order (grad of grad of grad, Hessian-vector products, second derivatives
through loops), the Python API (register_bprop / register_fallback) and the
diagnostics of mindir-autodiff."""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from support.gradcheck import numeric_grad
from support.ir_autodiff import autodiff_text, check_grad, run
from msmlir.compiler import context
from msmlir.dialects import mindir
from msmlir.passes import run_pipeline
from msmlir.passes.autodiff import (differentiable_ops, non_differentiable_ops,
                                    register_bprop, register_fallback, unregister_fallback)
from msmlir.passes.autodiff import registry

TANH_CHAIN = """
func.func @t(%x: tensor<{T}>) -> tensor<{T}> {{
  %y = mindir.tanh %x : tensor<{T}>
  return %y : tensor<{T}>
}}
func.func @t1(%x: tensor<{T}>) -> tensor<{T}> {{
  %g = mindir.grad @t(%x) {{grad_position = array<i64: 0>}} : (tensor<{T}>) -> tensor<{T}>
  return %g : tensor<{T}>
}}
func.func @t2(%x: tensor<{T}>) -> tensor<{T}> {{
  %g = mindir.grad @t1(%x) {{grad_position = array<i64: 0>}} : (tensor<{T}>) -> tensor<{T}>
  return %g : tensor<{T}>
}}
func.func @t3(%x: tensor<{T}>) -> tensor<{T}> {{
  %g = mindir.grad @t2(%x) {{grad_position = array<i64: 0>}} : (tensor<{T}>) -> tensor<{T}>
  return %g : tensor<{T}>
}}
"""


def test_tanh_derivatives_f64():
    [(d1,), (d2,), (d3,)] = run(TANH_CHAIN.format(T="f64"),
                                [(n, [np.array(2.0)]) for n in ("t1", "t2", "t3")],
                                key="grad^3(tanh)")
    t = np.tanh(2.0)
    e1 = 1 - t * t
    e2 = -2 * t * e1
    e3 = -2 * e1 * e1 - 2 * t * e2
    np.testing.assert_allclose([d1, d2, d3], [e1, e2, e3], rtol=1e-13)
    # MindSpore's printout (float32): grad, grad(grad), grad(grad(grad)) of tanh at 2.0
    np.testing.assert_allclose([d1, d2, d3], [0.070650816, -0.13621868, 0.25265405], rtol=2e-7)


def test_tanh_derivatives_f32_match_mindspore():
    [(d1,), (d2,), (d3,)] = run(TANH_CHAIN.format(T="f32"),
                                [(n, [np.array(2.0, np.float32)]) for n in ("t1", "t2", "t3")])
    np.testing.assert_allclose([d1, d2, d3], [0.070650816, -0.13621868, 0.25265405],
                               rtol=1e-6)


HVP = """
func.func @f(%x: tensor<3xf64>, %w: tensor<4x3xf64>) -> tensor<f64> {
  %x2 = mindir.reshape %x {shape = array<i64: 3, 1>} : (tensor<3xf64>) -> tensor<3x1xf64>
  %h = mindir.matmul %w, %x2 : (tensor<4x3xf64>, tensor<3x1xf64>) -> tensor<4x1xf64>
  %t = mindir.tanh %h : tensor<4x1xf64>
  %s = mindir.mul %t, %t : (tensor<4x1xf64>, tensor<4x1xf64>) -> tensor<4x1xf64>
  %e = mindir.exp %x : tensor<3xf64>
  %r1 = mindir.reduce_sum %s : (tensor<4x1xf64>) -> tensor<f64>
  %r2 = mindir.reduce_sum %e : (tensor<3xf64>) -> tensor<f64>
  %r = mindir.add %r1, %r2 : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %r : tensor<f64>
}
func.func @g(%x: tensor<3xf64>, %w: tensor<4x3xf64>) -> tensor<3xf64> {
  %g = mindir.grad @f(%x, %w) {grad_position = array<i64: 0>} : (tensor<3xf64>, tensor<4x3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @gv(%x: tensor<3xf64>, %w: tensor<4x3xf64>, %v: tensor<3xf64>) -> tensor<f64> {
  %g = call @g(%x, %w) : (tensor<3xf64>, tensor<4x3xf64>) -> tensor<3xf64>
  %p = mindir.mul %g, %v : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = mindir.reduce_sum %p : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @hvp(%x: tensor<3xf64>, %w: tensor<4x3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %h = mindir.grad @gv(%x, %w, %v) {grad_position = array<i64: 0>} : (tensor<3xf64>, tensor<4x3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %h : tensor<3xf64>
}
"""


def _hessian(x, w):
    # f = sum(tanh(W x)^2) + sum(exp(x)); H = W^T diag(2 (1 - t^2)(1 - 3 t^2)) W + diag(exp x)
    t = np.tanh(w @ x)
    d = 2 * (1 - t * t) * (1 - 3 * t * t)
    return w.T @ np.diag(d) @ w + np.diag(np.exp(x))


def test_hessian_vector_product():
    rng = np.random.default_rng(7)
    x, w, v = rng.standard_normal(3), rng.standard_normal((4, 3)) * 0.5, rng.standard_normal(3)
    [(hv,), (g,)] = run(HVP, [("hvp", [x, w, v]), ("g", [x, w])], key="hvp")
    np.testing.assert_allclose(hv, _hessian(x, w) @ v, rtol=1e-10)
    t = np.tanh(w @ x)
    np.testing.assert_allclose(g, w.T @ (2 * t * (1 - t * t)) + np.exp(x), rtol=1e-12)


SECOND_ORDER_LOOP = """
func.func private @f0(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<3xf64>) {
    %m = mindir.mul %h, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %t = mindir.sin %m : tensor<3xf64>
    %a = mindir.add %t, %h : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %a : tensor<3xf64>
  }
  %s = mindir.reduce_sum %r : (tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %g = mindir.grad @f0(%x, %w) {grad_position = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
"""


def test_second_derivative_through_a_loop():
    """grad of a function whose gradient holds a forward loop with stacks and a
    reverse loop (tensor.insert_slice / extract_slice rules)."""
    check_grad(SECOND_ORDER_LOOP, [np.array([0.3, -0.4, 0.8]), np.array([1.1, 0.7, -0.9])],
               [0, 1], key="grad(grad(for))", rtol=1e-6, atol=1e-7)


AUX = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>) {
  %m = mindir.mul %x, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %t = mindir.tanh %m : tensor<3xf64>
  %l = mindir.reduce_sum %t : (tensor<3xf64>) -> tensor<f64>
  return %l, %t : tensor<f64>, tensor<3xf64>
}
func.func @aux(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %l, %t, %dx, %dw = mindir.grad @f(%x, %w) {grad_position = array<i64: 0, 1>, has_aux, return_value}
      : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %l, %t, %dx, %dw : tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}
func.func @aux_sens(%x: tensor<3xf64>, %w: tensor<3xf64>, %s: tensor<f64>) -> tensor<3xf64> {
  %dx = mindir.grad @f(%x, %w) sens(%s : tensor<f64>) {grad_position = array<i64: 0>, has_aux}
      : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %dx : tensor<3xf64>
}
func.func @all(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %dw, %dx, %dw2 = mindir.grad @f(%x, %w) {grad_position = array<i64: 1, 0, 1>}
      : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %dw, %dx, %dw2 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}
"""


def test_has_aux_return_value_sens_positions():
    x, w = np.array([0.3, -0.5, 1.2]), np.array([0.7, 1.4, -0.6])
    [(l, t, dx, dw), (dxs,), (a_dw, a_dx, a_dw2)] = run(AUX, [
        ("aux", [x, w]), ("aux_sens", [x, w, np.array(2.5)]), ("all", [x, w])], key="has_aux")
    tt = np.tanh(x * w)
    np.testing.assert_allclose(l, tt.sum(), rtol=1e-14)
    np.testing.assert_allclose(t, tt, rtol=1e-14)            # aux passes through
    np.testing.assert_allclose(dx, (1 - tt ** 2) * w, rtol=1e-13)   # only the loss
    np.testing.assert_allclose(dw, (1 - tt ** 2) * x, rtol=1e-13)
    np.testing.assert_allclose(dxs, 2.5 * (1 - tt ** 2) * w, rtol=1e-13)
    # without has_aux both results are differentiated (cotangents of ones)
    np.testing.assert_allclose(a_dx, 2 * (1 - tt ** 2) * w, rtol=1e-13)
    np.testing.assert_allclose(a_dw, 2 * (1 - tt ** 2) * x, rtol=1e-13)
    np.testing.assert_allclose(a_dw2, a_dw, rtol=0)


INT_POS = """
func.func @f(%x: tensor<3xf64>, %i: tensor<2xi32>) -> tensor<2xf64> {
  %g = mindir.gather %x, %i : (tensor<3xf64>, tensor<2xi32>) -> tensor<2xf64>
  %e = mindir.exp %g : tensor<2xf64>
  return %e : tensor<2xf64>
}
func.func @main(%x: tensor<3xf64>, %i: tensor<2xi32>) -> (tensor<3xf64>, tensor<2xi32>) {
  %dx, %di = mindir.grad @f(%x, %i) {grad_position = array<i64: 0, 1>}
      : (tensor<3xf64>, tensor<2xi32>) -> (tensor<3xf64>, tensor<2xi32>)
  return %dx, %di : tensor<3xf64>, tensor<2xi32>
}
"""


def test_integer_position_gets_zeros():
    x = np.array([0.1, 0.2, 0.3])
    [(dx, di)] = run(INT_POS, [("main", [x, np.array([2, 2], np.int32)])])
    np.testing.assert_allclose(dx, [0, 0, 2 * np.exp(0.3)], rtol=1e-14)
    np.testing.assert_array_equal(di, [0, 0])


def test_forward_values_are_reused_not_recomputed():
    text = autodiff_text(AUX)
    body = text[text.index("func.func private @f_grad"):]
    body = body[:body.index("\n  }\n")]
    assert body.count("mindir.tanh") == 1      # the backward reads the forward's tanh
    assert body.count("mindir.mul %arg0, %arg1") == 1


def test_higher_order_grad_functions_are_cached():
    text = autodiff_text(TANH_CHAIN.format(T="f64"))
    # one grad function per grad op, one split (fwd/bwd) per differentiated callee
    for name in ("@t_grad(", "@t1_grad(", "@t2_grad("):
        assert text.count(f"func.func private {name}") == 1, name
    assert "mindir.grad" not in text


# --- API -------------------------------------------------------------------------

MATH_EXP = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = math.exp %x : tensor<3xf64>
  %m = mindir.mul %e, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %m : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = mindir.grad @f(%x) {grad_position = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
"""


def test_op_without_rule_is_an_error_at_its_location():
    with context():
        m = ir.Module.parse(MATH_EXP, )
        with pytest.raises(ir.MLIRError) as e:
            run_pipeline(m, "builtin.module(mindir-autodiff)")
    msg = str(e.value)
    assert "no gradient rule (bprop) for 'math.exp'" in msg
    assert ":3:" in msg          # the line of math.exp


def _exp_rule(op, douts):
    return [mindir.mul(douts[0], op.operation.results[0])]


def test_register_bprop_for_a_new_op():
    register_bprop("math.exp")(_exp_rule)
    try:
        text = autodiff_text(MATH_EXP)
    finally:
        registry._BPROPS.pop("math.exp", None)
    assert "math.exp" in text and "mindir.grad" not in text


def test_fallback_hook_claims_an_op_without_rule():
    seen = []

    def fallback(op):
        seen.append(op.operation.name)
        return _exp_rule if op.operation.name == "math.exp" else None

    register_fallback(fallback)
    try:
        text = autodiff_text(MATH_EXP)
    finally:
        unregister_fallback(fallback)
    assert seen == ["math.exp"]
    assert "mindir.grad" not in text


RECURSIVE = """
func.func @f(%x: tensor<f64>) -> tensor<f64> {
  %y = call @f(%x) : (tensor<f64>) -> tensor<f64>
  return %y : tensor<f64>
}
func.func @main(%x: tensor<f64>) -> tensor<f64> {
  %g = mindir.grad @f(%x) {grad_position = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}
"""


def test_recursion_is_a_clear_error():
    with context():
        m = ir.Module.parse(RECURSIVE)
        with pytest.raises(ir.MLIRError) as e:
            run_pipeline(m, "builtin.module(mindir-autodiff)")
    assert "recursive function @f cannot be differentiated" in str(e.value)


def test_registry_lists_every_mindir_op():
    """Every mindir op is either differentiable (a rule) or explicitly not."""
    ops = {getattr(mindir, n).OPERATION_NAME for n in dir(mindir)
           if n.endswith("Op") and hasattr(getattr(mindir, n), "OPERATION_NAME")}
    covered = set(differentiable_ops()) | set(non_differentiable_ops())
    # mindir.grad is expanded, never differentiated as an op
    assert sorted(ops - covered - {"mindir.grad"}) == []


def test_fd_helper_sanity():
    # the FD helper itself (so a broken helper cannot make the other tests vacuous)
    g = numeric_grad(lambda a: (a * a,), [np.array([1.0, -2.0])], wrt=[0],
                     cotangent=[np.array([1.0, 1.0])])[0]
    np.testing.assert_allclose(g, [2.0, -4.0], rtol=1e-8)


TOP_LEVEL_BPROP = """
func.func private @sq(%x: tensor<3xf64>) -> tensor<3xf64> attributes {mindir.bprop = @sq_bprop} {
  %0 = mindir.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @sq_bprop(%x: tensor<3xf64>, %out: tensor<3xf64>, %dout: tensor<3xf64>) -> tensor<3xf64> {
  %c = mindir.constant dense<4.0> : tensor<f64>
  %0 = mindir.mul %x, %c : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  %1 = mindir.mul %0, %dout : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %v, %g = mindir.grad @sq(%x) {grad_position = array<i64: 0>, return_value} : (tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %v, %g : tensor<3xf64>, tensor<3xf64>
}
"""


def test_grad_of_a_function_with_a_user_bprop_uses_it():
    # the user bprop returns 4 x dout (twice the true derivative): it is used
    x = np.array([0.5, -1.0, 2.0])
    [(v, g)] = run(TOP_LEVEL_BPROP, [("main", [x])])
    np.testing.assert_allclose(v, x * x)
    np.testing.assert_allclose(g, 4 * x)


def test_python_api_build_grad_and_vjp_functions():
    from msmlir.passes.autodiff import build_grad_function, vjp_functions
    src = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %m = mindir.mul %x, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %t = mindir.tanh %m : tensor<3xf64>
  return %t : tensor<3xf64>
}"""
    with context():
        m = ir.Module.parse(src)
        name, index = build_grad_function(m, "f", [0, 1], return_value=True, with_sens=True)
        vjp = vjp_functions(m, "f", [1])
        assert m.operation.verify()
        text = str(m)
    assert name == "f_grad" and index == [0, 1, 2]
    assert f"func.func private @{name}(" in text
    assert vjp.mode == "split" and vjp.positions == [1]
    assert f"@{vjp.fwd}(" in text and f"@{vjp.bwd}(" in text
