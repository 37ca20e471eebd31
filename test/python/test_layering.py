"""The layering of msmlir (DESIGN.md, "Layers"): every import points down.

Reads every module of the package (python/msmlir and passes/, installed as
msmlir.passes) with `ast`, including imports placed inside functions, and
fails on
  - an import of a module in a higher layer than the importer's, and
  - any import cycle between msmlir modules.

Layers, bottom to top (the first matching prefix decides a module's layer):
"""
import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {"msmlir": ROOT / "python" / "msmlir", "msmlir.passes": ROOT / "passes"}

# (layer, module prefixes). Within a layer imports may go either way, but not in a cycle.
LAYERS = [
    (0, ["msmlir._native", "msmlir.dtype", "msmlir.diagnostics", "msmlir.errors", "msmlir.pytree",
         "msmlir.arraylike", "msmlir.seed", "msmlir.providers", "msmlir.ir", "msmlir.dialects"]),
    (1, ["msmlir.passes", "msmlir.runtime", "msmlir.compiler", "msmlir.ascend", "msmlir.gpu"]),
    (2, ["msmlir.frontend.builder", "msmlir.frontend.values", "msmlir.frontend.trace",
         # sharding strategies on ops (Primitive.shard in msmlir.ops records them)
         "msmlir.parallel.annotate"]),
    (3, ["msmlir.ops"]),
    (4, ["msmlir.frontend"]),
    (5, ["msmlir.autodiff", "msmlir.numpy", "msmlir.kernel",
         # MindSpore's ops submodules that compose msmlir.numpy / autodiff (msmlir.ops
         # finds them through providers.py)
         "msmlir.ops.operations", "msmlir.ops.composite", "msmlir.ops.functional",
         "msmlir.ops.function", "msmlir.ops.tensor_extra", "msmlir.ops.nn_extra"]),
    (6, ["msmlir.common", "msmlir.nn", "msmlir.train", "msmlir.dataset", "msmlir.tools",
         "msmlir.mint", "msmlir.compat",
         # ops.<name> twins of Tensor methods (read the Tensor class and compat's name lists)
         "msmlir.ops.method_twins",
         "msmlir.communication", "msmlir.parallel", "msmlir"]),
]
__doc__ += "\n".join(f"  L{n}: {', '.join(p)}" for n, p in LAYERS)


def layer_of(module: str) -> int:
    best = None
    for n, prefixes in LAYERS:
        for p in prefixes:
            if module == p or module.startswith(p + "."):
                if best is None or len(p) > best[1]:
                    best = (n, len(p))
    assert best is not None, f"{module} has no layer"
    return best[0]


def modules() -> dict[str, Path]:
    out = {}
    for pkg, root in SOURCES.items():
        for path in root.rglob("*.py"):
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([pkg, *parts])
            if pkg == "msmlir" and parts[:1] == ["passes"]:
                continue
            out[name] = path
    return out


def _resolve(importer: str, is_package: bool, node) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = importer if is_package else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    mod = node.module or ""
    full = (base + "." + mod if mod else base) if node.level else mod
    # `from pkg import sub` imports pkg.sub when it is a module
    return [full] + [full + "." + a.name for a in node.names]


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    graph = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        is_pkg = path.name == "__init__.py"
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _resolve(name, is_pkg, node):
                    # the deepest msmlir module the import names
                    while target and target not in mods:
                        target = target.rpartition(".")[0]
                    if target and target != name and target.startswith("msmlir"):
                        deps.add(target)
        graph[name] = deps
    return graph


def _is_ancestor_package(importer: str, target: str) -> bool:
    """`from . import x` in a subpackage names its parent package: the import
    runs the parent's __init__ first anyway, so it is not an edge of its own."""
    return importer.startswith(target + ".")


def test_every_import_points_down():
    bad = []
    for mod, deps in sorted(import_graph().items()):
        for d in sorted(deps):
            if _is_ancestor_package(mod, d):
                continue
            if layer_of(d) > layer_of(mod):
                bad.append(f"{mod} (L{layer_of(mod)}) imports {d} (L{layer_of(d)})")
    assert not bad, "upward imports:\n  " + "\n  ".join(bad)


def test_no_import_cycle():
    graph = {m: {d for d in ds if not _is_ancestor_package(m, d)}
             for m, ds in import_graph().items()}
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strongconnect(v):   # Tarjan, iterative over an explicit work stack
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        sccs.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    assert not sccs, "import cycles:\n  " + "\n  ".join(
        f"{len(c)} modules: {', '.join(c)}" for c in sccs)


if __name__ == "__main__":   # prints the violations, for working on them
    for t in (test_every_import_points_down, test_no_import_cycle):
        try:
            t()
        except AssertionError as e:
            print(e)
