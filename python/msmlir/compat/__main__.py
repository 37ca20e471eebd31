"""`python -m msmlir.compat [--summary]`: prints the MindSpore compatibility table
(Markdown; docs/compat.md is this output) or only the per-namespace counts.

`python -m msmlir.compat --usage DIR... [--write]` scans real MindSpore code for
usage-weighted coverage (see usage.py); `--write` stores the counts in
usage_counts.tsv, which docs/compat.md's usage figures come from."""
import subprocess
import sys

from . import markdown, summary


def _describe(d):
    """'owner/name@commit' when d is (inside) a git checkout or bare mirror, else d."""
    try:
        commit = subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        return f"{d}@{commit}"
    except (OSError, subprocess.CalledProcessError):
        return d


def _usage(args):
    from . import usage
    write = "--write" in args
    dirs = [a for a in args if not a.startswith("--")]
    if not dirs:
        print("usage: python -m msmlir.compat --usage DIR... [--write]", file=sys.stderr)
        return 2
    counts, nfiles = usage.scan(dirs)
    if nfiles == 0:
        print(f"no Python file importing mindspore under {' '.join(dirs)}", file=sys.stderr)
        return 1
    for ns, d in usage.coverage(counts).items():
        top = ", ".join(f"{n} ({u})" for n, u in d["missing"][:8])
        print(f"{ns:15s} {100.0 * d['covered'] / d['uses']:5.1f}% of {d['uses']:6d} uses "
              f"({d['names_covered']}/{d['names']} names)" + (f"; missing: {top}" if top else ""))
    if write:
        usage.save_counts(counts, [f"{nfiles} Python files importing mindspore, from:"]
                          + [_describe(d) for d in dirs])
        print(f"wrote {usage.DATA_FILE}")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--usage" in argv:
        return _usage([a for a in argv if a != "--usage"])
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
