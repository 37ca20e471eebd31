"""Graph-level reverse-mode autodiff (pass `mindir-autodiff`).

Public API:
    register_bprop(*op_names)(fn)          fn(op, douts) -> dins (see registry.py)
    register_non_differentiable(*names, reason=...)
    register_fallback(fn)                  fn(op) -> rule | None, for ops without a rule
    needs_grad(i)                          inside a rule: does operand i need a gradient?
    differentiable_ops(), non_differentiable_ops()
    build_grad_function(module, func, grad_position, has_aux, return_value, with_sens)
                                           -> (name, result index)
    vjp_functions(module, func, positions) -> VJP
    AutodiffError

    autodiff.py       the pass; grad/VJP function generation (forward + backward)
    engine.py         BlockDiff: the tape, forward copy and reverse walk of one block
    activity.py       which values depend on the differentiated arguments
    control_flow.py   scf.if/for/while and func.call (structured entries)
    custom_bprop.py   calls of functions with a user bprop (mindir.bprop)
    registry.py       the bprop rules by op name, fallbacks
    bprop_*.py        the built-in rules (math, nn, array, other)
    emit.py           IR helpers shared by the rules
"""
# The built-in rules register first, so that a later register_bprop overrides them.
from . import bprop_array, bprop_comm, bprop_math, bprop_nn, bprop_other  # noqa: F401
from .activity import AutodiffError  # noqa: F401
from .autodiff import VJP, build_grad_function, run_autodiff, vjp_functions  # noqa: F401
from .registry import (differentiable_ops, get_bprop, needs_grad,  # noqa: F401
                       non_differentiable_ops, register_bprop, register_fallback,
                       register_non_differentiable, unregister_fallback)
