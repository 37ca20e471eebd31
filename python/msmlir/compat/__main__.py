"""`python -m msmlir.compat [--summary]`: prints the MindSpore compatibility table
(Markdown; docs/compat.md is this output) or only the per-namespace counts."""
import sys

from . import markdown, summary


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--summary" in argv:
        for ns, d in summary().items():
            total = sum(d.values())
            print(f"{ns:16s} {d['supported'] + d['partial']:4d}/{total:<4d} present "
                  f"({d['supported']} supported, {d['partial']} partial, {d['missing']} missing)")
        return 0
    print(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
