"""A small builder for transform-dialect scripts, and their interpreter.

Scripts are built as text (one `transform.named_sequence @__transform_main`),
parsed once per distinct text and context (parsed modules are cached), and
applied with the upstream interpreter
(`mlir.dialects.transform.interpreter.apply_named_sequence`).
`apply_or_restore` applies a script to one function all or nothing: on a
definite failure the function is put back as it was.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects.transform import interpreter

from .linalg import walk_ops

ANY = "!transform.any_op"

_PARSED: dict = {}


class Script:
    """Transform IR text with fresh SSA handle names."""

    def __init__(self):
        self.lines: list[str] = []
        self._n = 0
        self._indent = 2

    def fresh(self, prefix: str = "h") -> str:
        self._n += 1
        return f"%{prefix}{self._n}"

    def emit(self, line: str) -> None:
        self.lines.append("  " * self._indent + line)

    # --- common ops ---------------------------------------------------------------
    def match_attr(self, root: str, key: str, value: int) -> str:
        h = self.fresh("op")
        self.emit(f"{h} = transform.structured.match attributes{{{key} = {value} : i64}} in {root}"
                  f" : ({ANY}) -> {ANY}")
        return h

    def match_ops(self, root: str, names: list[str]) -> str:
        h = self.fresh("m")
        quoted = ", ".join(f'"{n}"' for n in names)
        self.emit(f"{h} = transform.structured.match ops{{[{quoted}]}} in {root} : ({ANY}) -> {ANY}")
        return h

    def tile(self, target: str, sizes: list[int]) -> tuple[str, list[str]]:
        """tile_using_for; returns (tiled op, loops) — one loop per non-zero size."""
        n_loops = sum(1 for s in sizes if s)
        t = self.fresh("t")
        loops = self.fresh("l")
        res = f"{t}, {loops}:{n_loops}" if n_loops else t
        types = ", ".join([ANY] * (n_loops + 1))
        self.emit(f"{res} = transform.structured.tile_using_for {target} tile_sizes {list(sizes)}"
                  f" : ({ANY}) -> ({types})")
        return t, [f"{loops}#{i}" for i in range(n_loops)]

    def cast(self, h: str, from_type: str, to_type: str = ANY) -> str:
        c = self.fresh("c")
        self.emit(f"{c} = transform.cast {h} : {from_type} to {to_type}")
        return c

    def tile_forall(self, target: str, sizes: list[int]) -> tuple[str, str]:
        t, f = self.fresh("t"), self.fresh("fa")
        self.emit(f"{t}, {f} = transform.structured.tile_using_forall {target} tile_sizes {list(sizes)}"
                  f" : ({ANY}) -> ({ANY}, {ANY})")
        return t, f

    def tile_reduction(self, target: str, sizes: list[int]) -> tuple[str, str, str, str]:
        fill, part, comb, loop = (self.fresh(p) for p in ("rf", "rp", "rc", "rl"))
        self.emit(f"{fill}, {part}, {comb}, {loop} = transform.structured.tile_reduction_using_for "
                  f"{target} by tile_sizes = {list(sizes)} : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})")
        return fill, part, comb, loop

    def vectorize(self, target: str) -> None:
        self.emit(f"transform.structured.vectorize {target} : {ANY}")

    def patterns(self, target: str, pats: list[str]) -> None:
        self.emit(f"transform.apply_patterns to {target} {{")
        for p in pats:
            self.emit("  transform.apply_patterns." + p)
        self.emit(f"}} : {ANY}")

    def cse(self, target: str) -> None:
        self.emit(f"transform.apply_cse to {target} : {ANY}")

    def begin_suppressed(self, root: str) -> str:
        """Opens `transform.sequence ... failures(suppress)`: a silenceable failure
        inside (e.g. an op the vectorizer rejects) ends that sequence only and
        leaves valid IR, so the op simply keeps its plain lowering."""
        arg = self.fresh("s")
        self.emit(f"transform.sequence {root} : {ANY} failures(suppress) {{")
        self.emit(f"^bb0({arg}: {ANY}):")
        self._indent += 1
        return arg

    def end_sequence(self) -> None:
        self.emit("transform.yield")
        self._indent -= 1
        self.emit("}")

    def text(self) -> str:
        body = "\n".join(self.lines)
        return ("module attributes {transform.with_named_sequence} {\n"
                f"  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{\n"
                f"{body}\n    transform.yield\n  }}\n}}\n")


def apply_script(payload: ir.Operation, text: str) -> None:
    """Parses (cached) and applies a transform script to `payload`.
    Raises ValueError with the interpreter's diagnostics on a definite failure."""
    ctx = payload.context
    key = (id(ctx), text)
    hit = _PARSED.get(key)
    if hit is None or hit[0] is not ctx:
        with ctx:
            hit = (ctx, ir.Module.parse(text))  # keeps ctx alive, so its id is not reused
        if len(_PARSED) > 256:
            _PARSED.clear()
        _PARSED[key] = hit
    mod = hit[1]
    entry = None
    for op in mod.body.operations:
        if op.operation.name == "transform.named_sequence":
            entry = op
            break
    interpreter.apply_named_sequence(payload, entry, mod)


def apply_or_restore(func: ir.Operation, text: str) -> tuple[ir.Operation, str | None]:
    """Applies a script to one function; on a definite failure puts back an
    untouched copy of it. Returns (the function now in the module, None on
    success or the interpreter's error text)."""
    backup_holder = ir.Module.create(loc=ir.Location.unknown(func.context))
    with ir.InsertionPoint(backup_holder.body):
        backup = func.clone()
    try:
        apply_script(func, text)
        return func, None
    except (ValueError, ir.MLIRError) as e:
        with ir.InsertionPoint(func):
            restored = backup.clone()
        func.erase()
        return restored, str(e)


def i64(v: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v)


def strip_attrs(op: ir.Operation, keys: tuple[str, ...]) -> None:
    """Removes the attributes `keys` from every op nested in `op`."""
    def strip(o):
        for key in keys:
            if key in o.attributes:
                del o.attributes[key]
        return False
    walk_ops(op, [], strip)
