"""Parsing one chunk into its top-level op as mlir-opt does: an implicit
builtin.module around the input unless --no-implicit-module, at mlir-opt's
locations, for one top-level op, several, or none."""
from __future__ import annotations

import re

from .split import Chunk

_SINGLE_OP = re.compile(r"source must contain a single top-level operation, found: (\d+)")


class ChunkParser:
    """The parsing half of `Processor` (a mixin): uses its context (`ctx`,
    `_new_context`), diagnostics (`sink`, `_flush`), `args`, `name` and `rename`,
    and keeps the parsed module alive in `_keep`."""

    def _parse(self, chunk: Chunk):
        """The chunk's top-level op (an implicit module unless
        --no-implicit-module), or None after reporting errors."""
        from mlir import ir
        text = chunk.padded()
        with self.ctx:
            try:
                op = ir.Operation.parse(text, source_name=self.name).operation
            except ir.MLIRError:
                op = None
            diags = self.sink.take()
            if op is not None:
                self.sink.diags[:0] = diags
                self._flush()
                if self.args.no_implicit_module or op.name == "builtin.module":
                    self._keep = op
                    return op
                return self._wrap([op], chunk)
            errs = [d for d in diags if d.severity == "error"]
            m = _SINGLE_OP.search(errs[0].message) if len(errs) == 1 else None
            if m is None or self.args.no_implicit_module:
                self.sink.diags[:0] = diags
                self._flush()
                return None
            if int(m.group(1)) == 0:
                self.sink.diags[:0] = diags[:0] + [d for d in diags if d.severity != "error"]
                self._flush()
                return self._wrap([], chunk)
        # Several top-level ops: parse again in a fresh context (the first
        # attempt already created its resources and would rename them).
        return self._parse_multi(chunk)

    def _implicit_module_loc(self, chunk: Chunk):
        from mlir import ir
        if chunk.index == 0:
            return ir.Location.file(self.name, 0, 0)
        return ir.Location.file(self.name, chunk.line, chunk.col)

    def _wrap(self, ops, chunk: Chunk):
        """A builtin.module at mlir-opt's implicit-module location holding `ops`."""
        from mlir import ir
        with self.ctx:
            module = ir.Module.create(self._implicit_module_loc(chunk))
            for op in ops:
                module.body.append(op)
        self._keep = module
        return module.operation

    def _top_level_positions(self, text: str):
        """(line, col) of the first and last top-level op, from a throwaway parse."""
        from mlir import ir
        probe = ir.Context()
        probe.allow_unregistered_dialects = self.args.allow_unregistered
        probe.attach_diagnostic_handler(self.D.DiagnosticCollector())
        try:
            with probe:
                module = ir.Module.parse(text)
                locs = [self.D.file_line_col(op.location) for op in module.body.operations]
                locs = [x[1:] for x in locs if x]
                del module
        except ir.MLIRError:
            return None, None
        return (locs[0], locs[-1]) if locs else (None, None)

    def _parse_multi(self, chunk: Chunk):
        """Wraps the top-level ops in `module {` ... `}` written where no token
        moves (on the blank or comment line before the first op), so every
        location stays exact; else parses anonymously and renames "-"."""
        from mlir import ir
        text = chunk.padded()
        first, last = self._top_level_positions(text)
        wrapped = self._wrap_text(text, first, last)
        if wrapped is not None:
            self._new_context()
            with self.ctx:
                try:
                    op = ir.Operation.parse(wrapped, source_name=self.name).operation
                except ir.MLIRError:
                    op = None
                if op is not None and op.name == "builtin.module":
                    self._flush()
                    inner = [o.operation for o in op.regions[0].blocks[0].operations]
                    module = self._wrap(inner, chunk)
                    op.erase()
                    return module
        # Exact but anonymous: the parser names the buffer "-"; report it as ours.
        self._new_context()
        self.rename["-"] = self.name
        with self.ctx:
            try:
                module = ir.Module.parse(text)
            except ir.MLIRError:
                self._flush()
                return None
            self._flush()
        self._keep = module
        return module.operation

    @staticmethod
    def _wrap_text(text: str, first, last) -> str | None:
        if first is None:
            return None
        lines = text.split("\n")
        line, col = first
        if line < 2 or line > len(lines):
            return None
        if lines[line - 1][:col - 1].strip():
            return None
        prev = lines[line - 2]
        if not re.fullmatch(r"\s*(//.*)?", prev):
            return None
        lines[line - 2] = "module {" + prev
        # Close before a trailing resource section ({-# ... #-}), else at the end.
        for k in range(max(last[0], line), len(lines)):
            if lines[k].startswith("{-#"):
                lines[k] = "}" + lines[k]
                return "\n".join(lines)
        return "\n".join(lines) + "\n}"

    # --- passes and printing ---
