"""Control flow through mindir-autodiff: scf.if (data dependent), scf.for
(static and run-time trip counts), scf.while (tensor condition, run-time trip
count, storage growing past its initial capacity), nested func.calls and
nesting of all of these, compiled through msmlir-cpu-pipeline, against
central finite differences.
"""
from __future__ import annotations

import numpy as np
import pytest

from support.ir_autodiff import check_grad

T3 = "tensor<3xf64>"

IF_PROGRAM = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %s = mindir.reduce_sum %x : (tensor<3xf64>) -> tensor<f64>
  %sv = tensor.extract %s[] : tensor<f64>
  %zero = arith.constant 0.0 : f64
  %cb = arith.cmpf ogt, %sv, %zero : f64
  %r = scf.if %cb -> tensor<3xf64> {
    %t = mindir.tanh %x : tensor<3xf64>
    %m = mindir.mul %t, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %m : tensor<3xf64>
  } else {
    %e = mindir.exp %x : tensor<3xf64>
    %q = mindir.mul %e, %e : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %q : tensor<3xf64>
  }
  %o = mindir.mul %r, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %q = mindir.reduce_sum %o : (tensor<3xf64>) -> tensor<f64>
  return %q : tensor<f64>
}
"""

# scf.if yielding an outer value in one branch and two results.
IF2_PROGRAM = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %s = mindir.reduce_max %w : (tensor<3xf64>) -> tensor<f64>
  %sv = tensor.extract %s[] : tensor<f64>
  %lim = arith.constant 1.0 : f64
  %cb = arith.cmpf olt, %sv, %lim : f64
  %a, %b = scf.if %cb -> (tensor<3xf64>, tensor<3xf64>) {
    %m = mindir.mul %x, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %m, %x : tensor<3xf64>, tensor<3xf64>
  } else {
    %s2 = mindir.sin %w : tensor<3xf64>
    scf.yield %w, %s2 : tensor<3xf64>, tensor<3xf64>
  }
  %c = mindir.mul %a, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %c, %a : tensor<3xf64>, tensor<3xf64>
}
"""

CALL_PROGRAM = """
func.func private @g(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %m = mindir.mul %x, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %t = mindir.tanh %m : tensor<3xf64>
  return %t : tensor<3xf64>
}
func.func private @h(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<f64>) {
  %a = call @g(%x, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %b = call @g(%a, %x) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %e = mindir.exp %b : tensor<3xf64>
  %s = mindir.reduce_sum %a : (tensor<3xf64>) -> tensor<f64>
  return %e, %s : tensor<3xf64>, tensor<f64>
}
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %a, %s = call @h(%x, %w) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<f64>)
  %b = mindir.mul %a, %s : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  %c = call @g(%b, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %c : tensor<3xf64>
}
"""

FOR_PROGRAM = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%h = %x) -> (tensor<3xf64>) {
    %m = mindir.mul %h, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %t = mindir.tanh %m : tensor<3xf64>
    %a = mindir.add %t, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %a : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""

# Run-time trip count (from an i32 tensor), step 2, two loop-carried values
# (one of them not differentiable: an integer counter) and the induction
# variable used in the body.
FOR_DYN_PROGRAM = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>, %n: tensor<i32>) -> (tensor<3xf64>, tensor<f64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nv = tensor.extract %n[] : tensor<i32>
  %ub = arith.index_cast %nv : i32 to index
  %z = mindir.constant dense<0.0> : tensor<f64>
  %k0 = arith.constant 0 : i32
  %r, %acc, %k = scf.for %i = %c1 to %ub step %c2 iter_args(%h = %x, %s = %z, %kk = %k0)
      -> (tensor<3xf64>, tensor<f64>, i32) {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %ft = tensor.from_elements %fi : tensor<f64>
    %m = mindir.mul %h, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %sc = mindir.mul %m, %ft : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %t = mindir.sin %sc : tensor<3xf64>
    %a = mindir.add %t, %h : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %q = mindir.reduce_sum %a : (tensor<3xf64>) -> tensor<f64>
    %s2 = mindir.add %s, %q : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %one = arith.constant 1 : i32
    %k2 = arith.addi %kk, %one : i32
    scf.yield %a, %s2, %k2 : tensor<3xf64>, tensor<f64>, i32
  }
  return %r, %acc : tensor<3xf64>, tensor<f64>
}
"""

# Tensor condition, run-time trip count: the storage must grow past its
# initial capacity (8) for the default inputs (about 20 iterations).
WHILE_PROGRAM = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %r = scf.while (%h = %x) : (tensor<3xf64>) -> tensor<3xf64> {
    %n = mindir.mul %h, %h : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %s = mindir.reduce_sum %n : (tensor<3xf64>) -> tensor<f64>
    %sv = tensor.extract %s[] : tensor<f64>
    %lim = arith.constant 10.0 : f64
    %c = arith.cmpf olt, %sv, %lim : f64
    scf.condition(%c) %h : tensor<3xf64>
  } do {
  ^bb0(%h2: tensor<3xf64>):
    %m = mindir.mul %h2, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %t = mindir.tanh %m : tensor<3xf64>
    %c01 = mindir.constant dense<0.1> : tensor<f64>
    %t2 = mindir.mul %t, %c01 : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %g = mindir.constant dense<1.02> : tensor<f64>
    %a = mindir.mul %h2, %g : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %b = mindir.add %a, %t2 : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %b : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""


def while_reference(x, w, lim=10.0):
    h, n = x.copy(), 0
    while (h * h).sum() < lim:
        h = h * 1.02 + 0.1 * np.tanh(h * w)
        n += 1
    return h, n, (h * h).sum()


# A while loop whose `before` region computes differentiable values (the
# condition forwards a transformed value) and uses an outer value, with two
# loop-carried values (a tensor and an f64 tensor counter).
WHILE2_PROGRAM = """
func.func @f(%x: tensor<2xf64>, %w: tensor<2xf64>) -> (tensor<2xf64>, tensor<f64>) {
  %z = mindir.constant dense<0.0> : tensor<f64>
  %r, %cnt = scf.while (%h = %x, %c = %z) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>) {
    %p = mindir.mul %h, %w : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    %cv = tensor.extract %c[] : tensor<f64>
    %lim = arith.constant 6.0 : f64
    %go = arith.cmpf olt, %cv, %lim : f64
    scf.condition(%go) %p, %c : tensor<2xf64>, tensor<f64>
  } do {
  ^bb0(%p2: tensor<2xf64>, %c2: tensor<f64>):
    %s = mindir.sin %p2 : tensor<2xf64>
    %a = mindir.add %s, %x : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    %one = mindir.constant dense<1.0> : tensor<f64>
    %c3 = mindir.add %c2, %one : (tensor<f64>, tensor<f64>) -> tensor<f64>
    scf.yield %a, %c3 : tensor<2xf64>, tensor<f64>
  }
  return %r, %cnt : tensor<2xf64>, tensor<f64>
}
"""

# scf.if inside scf.for inside scf.for, with a func.call in the loop body.
NESTED_PROGRAM = """
func.func private @g(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %m = mindir.mul %x, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %t = mindir.sin %m : tensor<3xf64>
  return %t : tensor<3xf64>
}
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<3xf64>) {
    %r2 = scf.for %j = %c0 to %c2 step %c1 iter_args(%u = %h) -> (tensor<3xf64>) {
      %s = mindir.reduce_sum %u : (tensor<3xf64>) -> tensor<f64>
      %sv = tensor.extract %s[] : tensor<f64>
      %zero = arith.constant 0.5 : f64
      %cb = arith.cmpf ogt, %sv, %zero : f64
      %v = scf.if %cb -> tensor<3xf64> {
        %t = mindir.tanh %u : tensor<3xf64>
        scf.yield %t : tensor<3xf64>
      } else {
        %q = mindir.mul %u, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
        scf.yield %q : tensor<3xf64>
      }
      %a = func.call @g(%v, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      %b = mindir.add %a, %u : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      scf.yield %b : tensor<3xf64>
    }
    scf.yield %r2 : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""

# A while loop inside a called function: its saved values have a run-time
# size, so the call's backward recomputes the callee's forward.
CALL_WHILE_PROGRAM = """
func.func private @loop(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %r = scf.while (%h = %x) : (tensor<3xf64>) -> tensor<3xf64> {
    %n = mindir.mul %h, %h : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %s = mindir.reduce_sum %n : (tensor<3xf64>) -> tensor<f64>
    %sv = tensor.extract %s[] : tensor<f64>
    %lim = arith.constant 30.0 : f64
    %c = arith.cmpf olt, %sv, %lim : f64
    scf.condition(%c) %h : tensor<3xf64>
  } do {
  ^bb0(%h2: tensor<3xf64>):
    %m = mindir.mul %h2, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %t = mindir.sin %m : tensor<3xf64>
    %half = mindir.constant dense<0.5> : tensor<f64>
    %t2 = mindir.mul %t, %half : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %g = mindir.constant dense<1.3> : tensor<f64>
    %a = mindir.mul %h2, %g : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %b = mindir.add %a, %t2 : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %b : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %e = mindir.exp %x : tensor<3xf64>
  %r = call @loop(%e, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %o = mindir.mul %r, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %o : tensor<3xf64>
}
"""

X = np.array([0.5, -0.2, 1.0])
W = np.array([1.5, 2.0, -1.0])


def test_if_both_branches():
    # sum(x) > 0 takes the then branch, < 0 the else branch
    for x in (X, np.array([-0.5, -0.2, 0.3])):
        check_grad(IF_PROGRAM, [x, W], [0, 1], key="scf.if")


def test_if_outer_values_and_two_results():
    for w in (np.array([0.2, 0.5, -0.3]), W):
        check_grad(IF2_PROGRAM, [X, w], [0, 1], key="scf.if[2 results]")


def test_nested_calls():
    check_grad(CALL_PROGRAM, [X, W], [0, 1], key="func.call nested")


LOOPS = {
    "for": (FOR_PROGRAM, [X, W], [0, 1]),
    "for_dynamic": (FOR_DYN_PROGRAM, [X, W, np.array(8, np.int32)], [0, 1]),
    "while": (WHILE_PROGRAM, [X, W], [0, 1]),
    "while_before_region": (WHILE2_PROGRAM, [np.array([0.3, -0.8]), np.array([1.2, 0.7])], [0, 1]),
    "nested_for_if_call": (NESTED_PROGRAM, [X, W], [0, 1]),
    "call_with_while": (CALL_WHILE_PROGRAM, [np.array([0.1, -0.3, 0.2]), W], [0, 1]),
}


@pytest.mark.parametrize("name", list(LOOPS))
def test_loop_gradient(name):
    prog, inputs, positions = LOOPS[name]
    check_grad(prog, inputs, positions, key=f"loop:{name}")


def test_while_trip_count_exceeds_initial_capacity():
    h, n, s = while_reference(X, W)
    assert n > 8, n                        # storage grew (initial capacity 8)
    assert abs(s - 10.0) > 1e-3            # FD does not cross a trip-count change
    (val,), _ = check_grad(WHILE_PROGRAM, [X, W], [0, 1])
    np.testing.assert_allclose(val, h, rtol=1e-12)


def test_while_zero_iterations():
    x = np.array([2.0, 2.0, 2.0])          # sum(x^2) >= 10: the body never runs
    (val,), (gx, gw) = check_grad(WHILE_PROGRAM, [x, W], [0, 1], sens=[np.ones(3)])
    np.testing.assert_allclose(val, x)
    np.testing.assert_allclose(gx, np.ones(3))
    np.testing.assert_allclose(gw, np.zeros(3))


def test_for_dynamic_trip_counts():
    for n in (1, 2, 7):                    # 0, 1 and 3 iterations (from 1, step 2)
        check_grad(FOR_DYN_PROGRAM, [X, W, np.array(n, np.int32)], [0, 1])


# The i1 form of a tensor condition: mindir.less + tensor.extract of the i1
# tensor.
WHILE_I1_PROGRAM = WHILE_PROGRAM.replace(
    """    %sv = tensor.extract %s[] : tensor<f64>
    %lim = arith.constant 10.0 : f64
    %c = arith.cmpf olt, %sv, %lim : f64""",
    """    %lim = mindir.constant dense<10.0> : tensor<f64>
    %ct = mindir.less %s, %lim : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %c = tensor.extract %ct[] : tensor<i1>""")


def test_while_i1_tensor_condition():
    check_grad(WHILE_I1_PROGRAM, [X, W], [0, 1])
