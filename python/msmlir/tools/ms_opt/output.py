"""What ms-opt prints: each chunk's IR with the command line's printing flags,
the chunks joined by the output split marker, to stdout or -o."""
from __future__ import annotations

import sys

from .options import PROG, Args


def print_op(op, a: Args, rename: dict) -> str:
    """The op's text with the printing flags; buffer names in locations renamed
    (`rename`: parser buffer name -> input name)."""
    kw = dict(enable_debug_info=a.print_debuginfo or a.pretty_debuginfo,
              pretty_debug_info=a.pretty_debuginfo,
              print_generic_op_form=a.print_generic,
              use_local_scope=a.print_local_scope,
              assume_verified=a.assume_verified)
    if a.elide_elements is not None:
        kw["large_elements_limit"] = a.elide_elements
    if a.elide_resources is not None:
        kw["large_resource_limit"] = a.elide_resources
    text = op.get_asm(**kw)
    if rename and kw["enable_debug_info"]:
        for old, new in rename.items():
            text = text.replace(f'loc("{old}":', f'loc("{_escape(new)}":')
    return text + "\n"


def write_output(a: Args, outputs: list[str], ok: bool) -> int:
    """Writes the chunks' outputs joined by the output split marker (to -o only
    when every chunk succeeded); returns the exit status."""
    marker = a.output_split_marker
    result = (marker + "\n" if marker else "").join(outputs)
    if a.output and a.output != "-":
        if ok:
            try:
                with open(a.output, "w") as f:
                    f.write(result)
            except OSError as e:
                sys.stderr.write(f"{PROG}: cannot open output file '{a.output}': "
                                 f"{e.strerror or e}\n")
                return 1
    else:
        sys.stdout.write(result)
        sys.stdout.flush()
    return 0 if ok else 1


def write_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')
