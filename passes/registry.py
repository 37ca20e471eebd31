"""The pass registry and the textual-pipeline runner.

Upstream passes run through `mlir.passmanager` unchanged; our passes are
Python callables added to the same PassManager (`PassManager.add(callable)`),
so one pipeline string can mix both, e.g.
`builtin.module(convert-mindir-to-linalg,canonicalize,func.func(cse))`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from mlir import ir
from mlir.passmanager import PassManager


class PassFailure(Exception):
    """Raised by a pass after it has emitted its error diagnostics."""


class PipelineError(ValueError):
    """A pipeline string names an unknown pass or a bad option."""


@dataclass
class PassInfo:
    name: str
    summary: str
    run: Callable | None = None  # run(module_op, **options); None for pipelines
    options: dict = field(default_factory=dict)  # name -> (type, default, help)
    expand: Callable | None = None  # pipelines: expand(**options) -> pipeline text


_PASSES: dict[str, PassInfo] = {}
# Modules that define passes; imported lazily so ms-opt starts fast.
_PASS_MODULES = [
    "msmlir.passes.graph",
    "msmlir.passes.autodiff",
    "msmlir.passes.lowering",
    "msmlir.passes.pipelines",
    "msmlir.passes.cpu",
    "msmlir.passes.kernel",
]
_loaded = False


def register_pass(name: str, summary: str, options: dict | None = None):
    """Decorator: registers `run(module_op, **options)` as pass `name`."""
    def deco(fn):
        _PASSES[name] = PassInfo(name, summary, run=fn, options=dict(options or {}))
        return fn
    return deco


def register_pipeline(name: str, summary: str, options: dict | None = None):
    """Decorator: registers `expand(**options) -> str` (pipeline elements) as `name`."""
    def deco(fn):
        _PASSES[name] = PassInfo(name, summary, expand=fn, options=dict(options or {}))
        return fn
    return deco


def _load():
    global _loaded
    if not _loaded:
        _loaded = True
        for m in _PASS_MODULES:
            importlib.import_module(m)


def registered_passes() -> dict[str, PassInfo]:
    _load()
    return dict(sorted(_PASSES.items()))


def get_pass(name: str) -> PassInfo | None:
    _load()
    return _PASSES.get(name)


# --- pipeline text --------------------------------------------------------------

def split_elements(text: str) -> list[str]:
    """Splits 'a,b{x=1,y=2},func.func(c,d)' at top-level commas."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return [e for e in out if e]


def parse_element(elem: str) -> tuple[str, str | None]:
    """'name{opts}' -> ('name', 'opts'); 'name' -> ('name', None)."""
    if "{" in elem and elem.endswith("}"):
        i = elem.index("{")
        return elem[:i].strip(), elem[i + 1:-1]
    return elem.strip(), None


def parse_options(info: PassInfo, text: str | None) -> dict:
    """Parses 'a=1 b=true c=x,y' against the pass's declared options."""
    values = {k: default for k, (_, default, _) in info.options.items()}
    if not text:
        return values
    for tok in _split_option_tokens(text):
        key, eq, raw = tok.partition("=")
        key = key.strip()
        if key not in info.options:
            known = ", ".join(info.options) or "none"
            raise PipelineError(f"'{info.name}' has no option '{key}' (options: {known})")
        typ = info.options[key][0]
        values[key] = _convert(info.name, key, typ, raw.strip() if eq else "true")
    return values


def _split_option_tokens(text: str) -> list[str]:
    toks, depth, cur = [], 0, []
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch.isspace() and depth == 0:
            if cur:
                toks.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur:
        toks.append("".join(cur))
    return toks


def _convert(pass_name, key, typ, raw):
    try:
        if typ is bool:
            if raw.lower() in ("true", "1", ""):
                return True
            if raw.lower() in ("false", "0"):
                return False
            raise ValueError(raw)
        if typ in (list, tuple):
            return [int(x) for x in raw.strip("[]").split(",") if x.strip()]
        return typ(raw)
    except ValueError:
        raise PipelineError(f"invalid value '{raw}' for option '{key}' of '{pass_name}'") from None


def _python_pass(info: PassInfo, options: dict):
    def run(op, pass_):
        try:
            info.run(op, **options)
        except PassFailure:
            pass_.signal_pass_failure()
    run.__name__ = info.name.replace("-", "_")
    return run


def add_to_pass_manager(pm: PassManager, text: str) -> None:
    """Adds top-level pipeline elements (already inside builtin.module) to pm."""
    upstream: list[str] = []

    def flush():
        if upstream:
            try:
                pm.add(",".join(upstream))
            except ValueError as e:
                raise PipelineError(str(e).strip()) from None
            upstream.clear()

    for elem in split_elements(text):
        name, opts = parse_element(elem)
        info = get_pass(name)
        if info is None:
            upstream.append(elem)
            continue
        flush()
        options = parse_options(info, opts)
        if info.expand is not None:
            add_to_pass_manager(pm, info.expand(**options))
        else:
            pm.add(_python_pass(info, options), name=info.name, argument=info.name,
                   description=info.summary)
    flush()


def strip_anchor(text: str) -> str:
    """'builtin.module(a,b)' -> 'a,b'; other text is returned unchanged."""
    t = text.strip()
    if t.startswith("builtin.module(") and t.endswith(")"):
        return t[len("builtin.module("):-1]
    if t.startswith("any(") and t.endswith(")"):
        return t[len("any("):-1]
    return t


def pipeline_pass_manager(text: str, context: ir.Context | None = None) -> PassManager:
    pm = PassManager("builtin.module", context=context)
    add_to_pass_manager(pm, strip_anchor(text))
    return pm


def run_pipeline(module, text: str) -> None:
    """Runs a textual pipeline (ours and upstream passes mixed) on a module.

    Raises mlir.ir.MLIRError with the diagnostics when a pass fails."""
    op = module.operation if hasattr(module, "operation") else module
    pipeline_pass_manager(text, op.context).run(op)
