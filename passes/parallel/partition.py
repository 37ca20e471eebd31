"""msmlir-shard-partition: upstream `sharding-propagation` + `shard-partition`,
run in an isolated `mlir-opt` process.

Why isolated: the pinned MLIR 22 wheels are built with assertions, and the
shard passes assert (abort the whole process) on some inputs, e.g. chained
annotations resharding a value row split -> column split -> replicated
(docs/known-issues.md §9). In-process,
a user's bad strategy would kill Python; here the module's text goes through
the wheel's `mlir-opt` (the same upstream passes, same version) and a crash
becomes an error at the function's location. Cost: one process start and a
print/parse of the module (tens of milliseconds), paid by the opt-in sharded
pipeline only.

    func.func(sharding-propagation{traversal=forward-backward}),
    func.func(shard-partition), canonicalize, cse

`traversal=forward-backward`: the default (backward-only) propagation keeps a
row reduction of row-split data replicated (it gathers the input instead of
the result), and `traversal=forward` makes `shard-partition` assert
(known-issues §9). Each rank's function then has its slice's types and the
resharding collectives (`shard.all_reduce`, `shard.all_gather`, ...).
"""
from __future__ import annotations

import os
import subprocess

from mlir import ir

from ..registry import Option, PassFailure, register_pass

PIPELINE = ("builtin.module(func.func(sharding-propagation{{traversal={t}}}),"
            "func.func(shard-partition),canonicalize,cse)")


def mlir_opt() -> str | None:
    """The wheel's mlir-opt (same MLIR as the Python bindings)."""
    import mlir
    for d in getattr(mlir, "__path__", []):
        path = os.path.join(d, "bin", "mlir-opt")
        if os.path.exists(path):
            return path
    return None


def _crash_summary(stderr: str) -> str:
    for line in stderr.splitlines():
        if "Assertion" in line or "error:" in line:
            return line.strip()[:400]
    return (stderr.strip().splitlines() or ["(no output)"])[0][:400]


def replace_module_body(module: ir.Operation, text: str) -> None:
    """Replaces module's contents and attributes by those of the module `text`."""
    new = ir.Module.parse(text, context=module.context)
    body = module.regions[0].blocks[0]
    for op in list(body.operations):
        op.operation.erase()
    for op in list(new.body.operations):
        body.append(op.operation)
    attrs = new.operation.attributes
    for name in list(attrs):
        name = getattr(name, "name", name)
        module.attributes[name] = attrs[name]


@register_pass("msmlir-shard-partition",
               "sharding-propagation + shard-partition (upstream) in an isolated mlir-opt",
               options={"traversal": Option(str, "forward-backward",
                                            "sharding-propagation traversal order")})
def shard_partition(module: ir.Operation, *, traversal: str):
    body = module.regions[0].blocks[0]
    if not any(op.operation.name == "shard.grid" for op in body.operations):
        return                                        # nothing sharded
    pipeline = PIPELINE.format(t=traversal)
    tool = mlir_opt()
    if tool is None:                                  # no binary: in process (may abort)
        import warnings
        warnings.warn("msmlir-shard-partition: the wheel's mlir-opt is missing; running the "
                      "shard passes in process (an upstream assertion would abort it)",
                      RuntimeWarning, stacklevel=2)
        from mlir.passmanager import PassManager
        PassManager.parse(pipeline, context=module.context).run(module)
        return
    text = module.get_asm(enable_debug_info=True, print_generic_op_form=True)
    r = subprocess.run([tool, "--allow-unregistered-dialect", "--mlir-print-debuginfo",
                        "--mlir-print-op-generic", f"--pass-pipeline={pipeline}"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        first = next((op.operation for op in body.operations
                      if op.operation.name == "func.func"), module)
        if r.returncode < 0 or "Assertion" in r.stderr or "Stack dump" in r.stderr:
            first.location.emit_error(
                "upstream sharding-propagation/shard-partition crashed on these shardings "
                f"({_crash_summary(r.stderr)}); conflicting strategies on one value (a tensor "
                "resharded from one split axis to another) are not supported by MLIR 22's "
                "shard passes (docs/known-issues.md)")
        else:
            first.location.emit_error(f"shard partitioning failed: {_crash_summary(r.stderr)}")
        raise PassFailure()
    replace_module_body(module, r.stdout)
