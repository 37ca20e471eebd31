"""The pass registry and the textual-pipeline runner.

Upstream passes run through `mlir.passmanager` unchanged; our passes are
Python callables added to the same PassManager (`PassManager.add(callable)`),
so one pipeline string can mix both, e.g.
`builtin.module(convert-mindir-to-linalg,canonicalize,func.func(cse))`.

Options are declared once, typed, next to the pass:

    @register_pass("msmlir-cpu-fast-math", "f32 exp/tanh/erf -> polynomials",
                   options={"ops": Option(str, "exp,tanh,erf", "which math ops"),
                            "min-lanes": Option(int, 8, "smallest vector rewritten")})
    def fast_math(module, *, ops: str, min_lanes: int): ...

The declaration is what the pipeline parser converts option text with, what
`ms-opt --help` lists, and where the defaults live: the pass receives every
option as a keyword argument (`min-lanes` -> `min_lanes`) and its signature
declares no defaults (both checked at registration). Pipelines
(`register_pipeline`) take the same declarations.
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from mlir import ir
from mlir.passmanager import PassManager


class PassFailure(Exception):
    """Raised by a pass after it has emitted its error diagnostics."""


class PipelineError(ValueError):
    """A pipeline string names an unknown pass or a bad option."""


_OPTION_TYPES = (bool, int, float, str, list)


class Option(NamedTuple):
    """One typed pass option: `type` is bool, int, float, str or list (a
    comma-separated list of ints); `default` must be of that type."""
    type: type
    default: Any
    help: str


def python_name(option: str) -> str:
    """The keyword argument an option is passed as: 'min-work' -> 'min_work'."""
    return option.replace("-", "_")


@dataclass
class PassInfo:
    name: str
    summary: str
    # run(module_op, **options) / expand(**options) -> pipeline text (None for
    # the other kind): options by declared or Python name, the others take
    # their current defaults.
    run: Callable | None = None
    options: dict[str, Option] = field(default_factory=dict)  # name -> Option
    expand: Callable | None = None

    def defaults(self) -> dict:
        """{option name: current default}."""
        return {k: o.default for k, o in self.options.items()}

    def kwargs(self, given: dict | None = None) -> dict:
        """{Python name: value} for every option: `given` (keys as declared or
        as Python names) over the current defaults."""
        out = {python_name(k): v for k, v in self.defaults().items()}
        for k, v in (given or {}).items():
            key = python_name(k)
            if key not in out:
                raise PipelineError(f"'{self.name}' has no option '{k}'")
            out[key] = v
        return out


_PASSES: dict[str, PassInfo] = {}
# Modules that define passes (in pipeline order); imported lazily so ms-opt starts fast.
_PASS_MODULES = [
    "msmlir.passes.graph",
    "msmlir.passes.autodiff",
    "msmlir.passes.vmap",
    "msmlir.passes.kernel",
    "msmlir.passes.lowering",
    "msmlir.passes.fusion",
    "msmlir.passes.bufferize",
    "msmlir.passes.cpu",
    "msmlir.passes.poly",
    "msmlir.passes.pipelines",
    "msmlir.passes.parallel",
    "msmlir.passes.gpu",
    "msmlir.passes.ascend",
]
_loaded = False


def _declare(name: str, fn: Callable, options: dict | None, skip_first: bool) -> dict:
    """Checks a pass's option declarations and that its function takes exactly
    those options, keyword-only, without defaults; returns {name: Option}."""
    options = dict(options or {})
    for key, opt in options.items():
        if not isinstance(opt, Option):
            raise TypeError(f"{name}: option '{key}' must be declared with Option(type, default, help)")
        if opt.type not in _OPTION_TYPES:
            raise TypeError(f"{name}: option '{key}' has unsupported type {opt.type!r}")
        if not isinstance(opt.default, opt.type) or (opt.type is not bool and isinstance(opt.default, bool)):
            raise TypeError(f"{name}: default {opt.default!r} of option '{key}' is not a {opt.type.__name__}")
    params = list(inspect.signature(fn).parameters.values())[1 if skip_first else 0:]
    if not options and all(p.default is not p.empty for p in params):
        return options
    want = {python_name(k) for k in options}
    have = {p.name for p in params}
    if have != want or any(p.kind is not p.KEYWORD_ONLY for p in params):
        raise TypeError(f"{name}: {fn.__qualname__} must take exactly the keyword-only arguments "
                        f"{sorted(want)} (its options), got {sorted(have)}")
    if any(p.default is not p.empty for p in params):
        raise TypeError(f"{name}: {fn.__qualname__} repeats option defaults in its signature; "
                        "they belong in the Option declarations only")
    return options


def _with_options(info: PassInfo, fn: Callable) -> Callable:
    """fn(*args, **{python_name: value}) for every option, from options given
    by declared or Python name; the rest take the current defaults."""
    def call(*args, **given):
        return fn(*args, **info.kwargs(given))
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


def register_pass(name: str, summary: str, options: dict | None = None):
    """Decorator: registers `run(module_op, *, <options>)` as pass `name`."""
    def deco(fn):
        info = PassInfo(name, summary, options=_declare(name, fn, options, skip_first=True))
        info.run = _with_options(info, fn)
        _PASSES[name] = info
        return fn
    return deco


def register_pipeline(name: str, summary: str, options: dict | None = None):
    """Decorator: registers `expand(*, <options>) -> str` (pipeline elements) as `name`."""
    def deco(fn):
        info = PassInfo(name, summary, options=_declare(name, fn, options, skip_first=False))
        info.expand = _with_options(info, fn)
        _PASSES[name] = info
        return fn
    return deco


def set_option_defaults(name: str, values: dict) -> dict:
    """Changes the defaults of pass `name`'s options ({option: value}, names as
    declared); returns the previous defaults of those options."""
    info = get_pass(name)
    if info is None:
        raise PipelineError(f"no msmlir pass or pipeline named '{name}'")
    old = {}
    for key, value in values.items():
        if key not in info.options:
            raise PipelineError(f"'{name}' has no option '{key}'")
        old[key] = info.options[key].default
        info.options[key] = info.options[key]._replace(default=value)
    return old


@contextlib.contextmanager
def option_defaults(name: str, values: dict):
    """Temporarily changes the defaults of pass `name`'s options."""
    old = set_option_defaults(name, values)
    try:
        yield
    finally:
        set_option_defaults(name, old)


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
    values = info.defaults()
    if not text:
        return values
    for tok in _split_option_tokens(text):
        key, eq, raw = tok.partition("=")
        key = key.strip()
        if key not in info.options:
            known = ", ".join(info.options) or "none"
            raise PipelineError(f"'{info.name}' has no option '{key}' (options: {known})")
        typ = info.options[key].type
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
        if typ is list:
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


def pipeline_pass_manager(text: str, context: ir.Context | None = None,
                          verify_each: bool = True) -> PassManager:
    pm = PassManager("builtin.module", context=context)
    add_to_pass_manager(pm, strip_anchor(text))
    pm.enable_verifier(verify_each)
    return pm


def run_pipeline(module, text: str, verify_each: bool = True) -> None:
    """Runs a textual pipeline (ours and upstream passes mixed) on a module.

    `verify_each=False`: no verification of the module after each pass (as
    `mlir-opt --verify-each=false`; the caller verifies where it wants).
    Raises mlir.ir.MLIRError with the diagnostics when a pass fails."""
    op = module.operation if hasattr(module, "operation") else module
    pipeline_pass_manager(text, op.context, verify_each).run(op)
