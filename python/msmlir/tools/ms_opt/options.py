"""The ms-opt command line: mlir-opt's options, pass flags in command-line order, --help."""
from __future__ import annotations

import re

from .split import DEFAULT_SPLIT_MARKER

PROG = "ms-opt"


class UsageError(Exception):
    """A command-line problem; the message is printed as is."""


# name -> (kind, dest, help); kind: 'bool' | 'value' | 'optvalue' (value may be omitted)
_OPTIONS = {
    "help": ("bool", "help", "Show this help and exit"),
    "h": ("bool", "help", None),
    "help-hidden": ("bool", "help", None),
    "version": ("bool", "version", "Show the version and exit"),
    "o": ("value", "output", "Output file (default: stdout)"),
    "pass-pipeline": ("value", "pass_pipeline",
                      "Textual pass pipeline, e.g. 'builtin.module(canonicalize,func.func(cse))'"),
    "p": ("value", "pass_pipeline", None),
    "split-input-file": ("optvalue", "split_input_file",
                         "Split the input at '// -----' (or the given marker) and process each "
                         "chunk independently"),
    "output-split-marker": ("value", "output_split_marker",
                            "Marker joining the output chunks (default '// -----')"),
    "verify-diagnostics": ("optvalue", "verify_diagnostics",
                           "Check emitted diagnostics against expected-* comments in the input "
                           "(=all, the default; =only-expected: ignore unexpected ones)"),
    "allow-unregistered-dialect": ("bool", "allow_unregistered",
                                   "Allow operations of unregistered dialects"),
    "no-implicit-module": ("bool", "no_implicit_module",
                           "Do not wrap the input in a builtin.module; the top-level op must be unique"),
    "verify-each": ("bool", "verify_each", "Run the verifier after each pass (default true)"),
    "mlir-disable-threading": ("bool", "disable_threading", "Disable multi-threading in MLIR"),
    "mlir-print-ir-after-all": ("bool", "print_ir_after_all", "Print the IR after each pass"),
    "mlir-print-ir-before-all": ("bool", "print_ir_before_all", "Print the IR before each pass"),
    "mlir-print-ir-after-change": ("bool", "print_ir_after_change",
                                   "With --mlir-print-ir-after-all: only when the pass changed the IR"),
    "mlir-print-ir-after-failure": ("bool", "print_ir_after_failure",
                                    "Print the IR after a pass fails"),
    "mlir-print-ir-module-scope": ("bool", "print_ir_module_scope",
                                   "IR printing prints the whole module (disables threading)"),
    "mlir-timing": ("bool", "timing", "Report the time of each pass (to stderr)"),
    "mlir-timing-display": ("value", "timing_display",
                            "Display of --mlir-timing: =tree (nested, the default) or =list "
                            "(merged by name, sorted by time)"),
    "mlir-pass-statistics": ("bool", "statistics", "Report pass statistics"),
    "mlir-print-debuginfo": ("bool", "print_debuginfo", "Print locations (debug info)"),
    "mlir-pretty-debuginfo": ("bool", "pretty_debuginfo", "Print locations in a readable, unparsable form"),
    "mlir-print-op-generic": ("bool", "print_generic", "Print operations in the generic form"),
    "mlir-print-local-scope": ("bool", "print_local_scope", "Print with local scope (no aliases)"),
    "mlir-print-assume-verified": ("bool", "assume_verified", "Do not verify before printing"),
    "mlir-elide-elementsattrs-if-larger": ("value", "elide_elements",
                                           "Elide ElementsAttrs with more elements than this"),
    "mlir-elide-resource-strings-if-larger": ("value", "elide_resources",
                                              "Elide resources larger than this many characters"),
}

_BOOL_TRUE = ("", "true", "1", "yes", "on")
_BOOL_FALSE = ("false", "0", "no", "off")


class Args:
    def __init__(self):
        self.help = False
        self.version = False
        self.input = None
        self.output = None
        self.split_input_file = None  # None or marker text
        self.output_split_marker = DEFAULT_SPLIT_MARKER
        self.verify_diagnostics = False
        self.verify_only_expected = False
        self.allow_unregistered = False
        self.no_implicit_module = False
        self.verify_each = True
        self.disable_threading = False
        self.print_ir_after_all = False
        self.print_ir_before_all = False
        self.print_ir_after_change = False
        self.print_ir_after_failure = False
        self.print_ir_module_scope = False
        self.timing = False
        self.timing_display = "tree"
        self.statistics = False
        self.print_debuginfo = False
        self.pretty_debuginfo = False
        self.print_generic = False
        self.print_local_scope = False
        self.assume_verified = False
        self.elide_elements = None
        self.elide_resources = None
        # ('flag', original_arg, element) | ('pipeline', text): in command-line order
        self.pipeline_parts: list[tuple] = []


def unknown_argument(arg: str) -> UsageError:
    msg = f"{PROG}: Unknown command line argument '{arg}'.  Try: '{PROG} --help'"
    name = arg.lstrip("-").split("=", 1)[0].split("{", 1)[0]
    guess = _suggest(name)
    if guess:
        msg += f"\n{PROG}: Did you mean '--{guess}'?"
    return UsageError(msg)


def _suggest(name: str) -> str | None:
    import difflib
    cands = [k for k, v in _OPTIONS.items() if v[2]]
    try:
        from msmlir.passes.registry import registered_passes
        cands += list(registered_passes())
    except Exception:
        pass
    m = difflib.get_close_matches(name, cands, n=1, cutoff=0.75)
    return m[0] if m else None


def parse_args(argv: list[str]) -> Args:
    a = Args()
    positional: list[str] = []
    i = 0
    only_positional = False
    while i < len(argv):
        arg = argv[i]
        i += 1
        if only_positional or arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        if arg == "--":
            only_positional = True
            continue
        body = arg[2:] if arg.startswith("--") else arg[1:]
        m = re.match(r"[A-Za-z0-9_.\-]+", body)
        key = m.group(0) if m else ""
        rest = body[len(key):]
        if key in _OPTIONS:
            kind, dest, _ = _OPTIONS[key]
            if kind == "bool":
                if rest.startswith("="):
                    v = rest[1:].lower()
                    if v in _BOOL_TRUE:
                        val = True
                    elif v in _BOOL_FALSE:
                        val = False
                    else:
                        raise UsageError(f"{PROG}: for the --{key} option: '{rest[1:]}' is invalid "
                                         "value for boolean argument! Try 0 or 1")
                elif rest:
                    raise unknown_argument(arg)
                else:
                    val = True
                setattr(a, dest, val)
            elif kind == "value":
                if rest.startswith("="):
                    val = rest[1:]
                elif rest and key == "o":
                    val = rest  # -o/path/file
                elif rest:
                    raise unknown_argument(arg)
                else:
                    if i >= len(argv):
                        dash = "-" if len(key) == 1 else "--"
                        raise UsageError(f"{PROG}: for the {dash}{key} option: requires a value!")
                    val = argv[i]
                    i += 1
                if dest == "pass_pipeline":
                    a.pipeline_parts.append(("pipeline", val))
                else:
                    setattr(a, dest, val)
            else:  # optvalue
                if rest.startswith("="):
                    val = rest[1:]
                elif rest:
                    raise unknown_argument(arg)
                else:
                    val = True
                if dest == "split_input_file":
                    a.split_input_file = DEFAULT_SPLIT_MARKER if val is True or val == "" else val
                elif dest == "verify_diagnostics":
                    if val is not True and val not in ("all", "only-expected", "true", "1"):
                        if val.lower() in _BOOL_FALSE:
                            val = False
                        else:
                            raise UsageError(f"{PROG}: for the --verify-diagnostics option: "
                                             f"Cannot find option named '{val}'!")
                    a.verify_diagnostics = bool(val)
                    a.verify_only_expected = val == "only-expected"
            continue
        # Anything else is a pass: --name, --name=opts, --name{opts}
        if not key:
            raise unknown_argument(arg)
        if rest.startswith("="):
            opts = rest[1:]
            elem = f"{key}{{{opts}}}" if opts.strip() else key
        elif rest.startswith("{") and rest.endswith("}"):
            elem = key + rest
        elif rest:
            raise unknown_argument(arg)
        else:
            elem = key
        a.pipeline_parts.append(("flag", arg, key, elem))
    if len(positional) > 1:
        raise UsageError(f"{PROG}: Too many positional arguments specified!\n"
                         f"Can specify at most 1 positional arguments: See: {PROG} --help")
    a.input = positional[0] if positional else "-"
    if a.timing_display not in ("tree", "list"):
        raise UsageError(f"{PROG}: for the --mlir-timing-display option: Cannot find option "
                         f"named '{a.timing_display}'!")
    if a.elide_elements is not None:
        a.elide_elements = _int_option("mlir-elide-elementsattrs-if-larger", a.elide_elements)
    if a.elide_resources is not None:
        a.elide_resources = _int_option("mlir-elide-resource-strings-if-larger", a.elide_resources)
    return a


def _int_option(name, v):
    try:
        return int(v)
    except ValueError:
        raise UsageError(f"{PROG}: for the --{name} option: '{v}' value invalid for uint argument!")



# --- help ---------------------------------------------------------------------------

def _fmt_default(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(map(str, v))
    return str(v)


def help_text() -> str:
    lines = [
        "OVERVIEW: msmlir modular optimizer driver (the mlir-opt of msmlir)",
        "",
        f"USAGE: {PROG} [options] <input file>",
        "",
        "  <input file> is an MLIR file, or '-' (the default) for stdin.",
        "",
        "OPTIONS:",
    ]
    for key, (kind, _, h) in _OPTIONS.items():
        if not h:
            continue
        if kind == "value":
            flag = f"-{key} <value>" if len(key) == 1 else f"--{key}=<value>"
        elif kind == "optvalue":
            flag = f"--{key}[=<value>]"
        else:
            flag = f"--{key}"
        lines.append(f"  {flag:<48} - {h}")
    lines += [
        "",
        "PASSES:",
        "  Every pass below, and every upstream MLIR pass accepted by mlir-opt",
        "  (e.g. --canonicalize, --cse, --convert-linalg-to-loops, --one-shot-bufferize),",
        "  is accepted as a flag, applied in command-line order:",
        "    --<pass>   --<pass>='opt1=v1 opt2=v2'   --<pass>{opt1=v1 opt2=v2}",
        "  or inside --pass-pipeline='builtin.module(...)'.",
        "",
        "  msmlir passes:",
    ]
    from msmlir.passes.registry import registered_passes
    try:
        ours = registered_passes()
    except Exception as e:  # a pass module that fails to import
        ours = {}
        lines.append(f"    (cannot load the msmlir passes: {type(e).__name__}: {e})")
    for name, info in ours.items():
        kind = " (pipeline)" if info.expand is not None else ""
        lines.append(f"    --{name:<44} - {info.summary}{kind}")
        for opt, spec in info.options.items():
            typ, default, h = (tuple(spec) + (None, None, None))[:3]
            tname = getattr(typ, "__name__", str(typ))
            lines.append(f"        {opt + '=<' + tname + '>':<42} - {h or ''} (default: {_fmt_default(default)})")
    return "\n".join(lines) + "\n"
