"""Usage-weighted MindSpore coverage: which MindSpore names real code uses, and
what share of those uses msmlir has.

`scan(dirs)` parses every `*.py` file with `ast`, follows the file's imports of
`mindspore` (`import mindspore as ms`, `from mindspore import nn, ops`,
`from mindspore.ops import operations as P`, `functional as F`, `composite as C`,
`from mindspore.nn import Dense`, ...) and resolves each dotted use (`ms.Tensor`,
`P.MatMul`, `nn.layer.Dense`) to a (namespace, name). A name counts once per file
that uses it: the weight is the number of files, so a file calling `P.Add` fifty
times weighs as much as one calling it once. Submodules are flattened as
MindSpore's own `__init__` files flatten them (`ops.operations.nn_ops.Conv2D` is
`ops.operations:Conv2D`, `ms.common.dtype.float32` is `mindspore:float32`).

Tensor methods cannot be known statically (the receiver's type is unknown), so
they are approximated: a method call `x.m(...)` in a file that imports mindspore,
where `m` is one of MindSpore's documented Tensor methods (`_reference.TENSOR`)
and not a method of Python's list/dict/str/set, counts as a use of `Tensor:m`.
That also counts numpy arrays' `.reshape(...)` and the like; only documented
method names are counted.

The counts of the corpus the figures in docs/compat.md come from are stored in
`usage_counts.tsv` (corpus named in its header), so the figures are reproducible
without the corpus: `python -m msmlir.compat --usage DIR...` rescans and rewrites
it with `--write`.
"""
from __future__ import annotations

import ast
import collections
import importlib
import os
from pathlib import Path

from ._reference import NAMES

__all__ = ["scan", "scan_file", "covered", "load_counts", "save_counts", "coverage",
           "DATA_FILE"]

DATA_FILE = Path(__file__).with_name("usage_counts.tsv")

# MindSpore module prefix -> namespace (longest prefix wins)
_PREFIXES = {
    "mindspore": "mindspore",
    "mindspore.common": "mindspore",
    "mindspore.context": "mindspore",
    "mindspore.common.initializer": "initializer",
    "mindspore.ops": "ops",
    "mindspore.ops.functional": "ops",
    "mindspore.ops.function": "ops",
    "mindspore.ops.composite": "ops",
    "mindspore.ops.primitive": "ops",
    "mindspore.ops.operations": "ops.operations",
    "mindspore.nn": "nn",
    "mindspore.numpy": "numpy",
    "mindspore.dataset": "dataset",
    "mindspore.train": "train",
    "mindspore.communication": "communication",
    "mindspore.amp": "amp",
    "mindspore.mint": "mint",
}
# mindspore.<module> that are neither a namespace above nor a top-level name
_OTHER_MODULES = {
    "_checkparam", "_extends", "_c_expression", "_c_dataengine", "profiler", "boost",
    "mindrecord", "log", "experimental", "rewrite", "hal", "parallel", "scipy", "runtime",
    "safeguard", "graph", "device_context", "utils", "version", "run_check", "lite",
    "compression", "offline_debug",
}
# names `mindspore.ops.X` that are composites or bases, not Primitive classes
_OPS_NOT_PRIMITIVE = {"GradOperation", "HyperMap", "Map", "MultitypeFuncGraph", "Partial",
                      "Cell", "Tensor"}
_DATASET_AREAS = {"vision", "transforms", "text", "audio", "config"}
_MINT_AREAS = {"nn", "functional", "optim", "linalg", "special", "distributed"}
_BUILTIN_METHODS = set().union(*(dir(t) for t in (list, dict, str, set, bytes, tuple)))
_TENSOR_METHODS = set(NAMES["Tensor"]) - _BUILTIN_METHODS

# namespace -> msmlir module whose attributes are looked up
_ROOTS = {
    "mindspore": ("msmlir",), "ops": ("msmlir.ops",),
    "ops.operations": ("msmlir.ops", "msmlir.ops.operations"),
    "nn": ("msmlir.nn",), "numpy": ("msmlir.numpy",), "dataset": ("msmlir.dataset",),
    "train": ("msmlir.train",), "communication": ("msmlir.communication",),
    "initializer": ("msmlir.common.initializer",), "amp": ("msmlir.amp", "msmlir"),
    "mint": ("msmlir.mint",), "other": ("msmlir",),
}


def _classify(path: str):
    """'mindspore.ops.operations.nn_ops.Conv2D' -> ('ops.operations', 'Conv2D')."""
    parts = path.split(".")
    if parts[0] != "mindspore":
        return None
    if len(parts) > 1 and parts[1] in _OTHER_MODULES:
        return ("other", ".".join(parts[1:3]))
    for n in range(len(parts), 0, -1):
        ns = _PREFIXES.get(".".join(parts[:n]))
        if ns is not None:
            rest = parts[n:]
            break
    if not rest:
        return None          # a module itself (`import mindspore.nn as nn`)
    if ns == "dataset":
        if len(rest) == 1 and rest[0] in _DATASET_AREAS:
            return None      # the submodule itself
        area = [rest.pop(0)] if rest[0] in _DATASET_AREAS and len(rest) > 1 else []
        while len(rest) > 1 and rest[0][:1].islower():
            rest.pop(0)      # c_transforms, py_transforms, engine.datasets, ...
        return (ns, ".".join(area + rest[:1]))
    if ns == "mint":         # mint.nn.functional.relu is not mint.relu
        area = []
        while len(rest) > 1 and rest[0] in _MINT_AREAS:
            area.append(rest.pop(0))
        return (ns, ".".join(area + rest[:1]))
    # a lowercase component followed by more is a submodule (layer, nn_ops, dtype, ...)
    while len(rest) > 1 and rest[0][:1].islower() | rest[0].startswith("_"):
        rest.pop(0)
    name = rest[0]
    if name.startswith("__"):
        return None
    if ns == "mindspore" and name == "Tensor" and len(rest) > 1 and rest[1] in NAMES["Tensor"]:
        return ("Tensor", rest[1])
    if ns == "ops" and name[:1].isupper() and name not in _OPS_NOT_PRIMITIVE \
            and not path.startswith(("mindspore.ops.composite", "mindspore.ops.primitive")):
        ns = "ops.operations"
    return (ns, name)


class _Visitor(ast.NodeVisitor):
    def __init__(self):
        self.aliases = {}     # local name -> dotted mindspore path
        self.uses = set()

    def visit_Import(self, node):
        for a in node.names:
            if a.name.split(".")[0] == "mindspore":
                if a.asname:
                    self.aliases[a.asname] = a.name
                else:
                    self.aliases["mindspore"] = "mindspore"

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level or mod.split(".")[0] != "mindspore":
            return
        for a in node.names:
            if a.name == "*":
                continue
            path = f"{mod}.{a.name}"
            self.aliases[a.asname or a.name] = path
            self._use(path)

    def _use(self, path):
        c = _classify(path)
        if c is not None:
            self.uses.add(c)

    def visit_Attribute(self, node):
        chain = []
        cur = node
        while isinstance(cur, ast.Attribute):
            chain.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and cur.id in self.aliases:
            self._use(".".join([self.aliases[cur.id]] + chain[::-1]))
            return           # the whole chain is one use
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in _TENSOR_METHODS:
            base = f.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in self.aliases):
                self.uses.add(("Tensor", f.attr))
        self.generic_visit(node)


def scan_file(path) -> set:
    """The (namespace, name) pairs one file uses; empty if it does not import mindspore."""
    try:
        src = Path(path).read_bytes()
        tree = ast.parse(src)
    except (SyntaxError, ValueError, OSError):
        return set()
    v = _Visitor()
    # imports first (a function may use a module-level import defined later)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            v.visit_Import(node)
        elif isinstance(node, ast.ImportFrom):
            v.visit_ImportFrom(node)
    if not v.aliases:
        return set()
    v.visit(tree)
    return v.uses


def scan(dirs) -> tuple:
    """(Counter{(namespace, name): files}, number of files importing mindspore)."""
    counts = collections.Counter()
    nfiles = 0
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".py"):
                    uses = scan_file(os.path.join(root, f))
                    if uses:
                        nfiles += 1
                        counts.update(uses)
    return counts, nfiles


def covered(ns: str, name: str) -> bool:
    """Whether msmlir has the name in the matching namespace."""
    if ns == "Tensor":
        return hasattr(importlib.import_module("msmlir").Tensor, name)
    for modname in _ROOTS[ns]:
        try:
            obj = importlib.import_module(modname)
            for part in name.split("."):
                obj = _child(obj, part)
            return True
        except Exception:   # noqa: BLE001 - absent module or attribute: not covered
            continue
    return False


def _child(obj, part):
    """obj.part, importing it first when obj is a package and part its submodule
    (so the answer does not depend on what this process imported before)."""
    if isinstance(obj, type(importlib)) and hasattr(obj, "__path__"):
        try:
            return importlib.import_module(f"{obj.__name__}.{part}")
        except ImportError:
            pass
    return getattr(obj, part)


def save_counts(counts, header, path=DATA_FILE):
    lines = [f"# {h}" for h in header] + ["# namespace\tname\tfiles"]
    for (ns, name), n in sorted(counts.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1])):
        lines.append(f"{ns}\t{name}\t{n}")
    Path(path).write_text("\n".join(lines) + "\n")


def load_counts(path=DATA_FILE) -> tuple:
    """(Counter{(namespace, name): files}, header lines) from the stored file."""
    counts = collections.Counter()
    header = []
    for line in Path(path).read_text().splitlines():
        if line.startswith("#"):
            header.append(line[1:].strip())
            continue
        ns, name, n = line.split("\t")
        counts[(ns, name)] = int(n)
    return counts, header[:-1]


NAMESPACE_ORDER = ("mindspore", "ops", "ops.operations", "nn", "numpy", "Tensor", "train",
                   "dataset", "initializer", "communication", "amp", "mint", "other")


def coverage(counts) -> dict:
    """namespace -> {'uses', 'covered', 'names', 'names_covered', 'missing': [(name, uses)]}."""
    out = {}
    for (ns, name), n in counts.items():
        d = out.setdefault(ns, {"uses": 0, "covered": 0, "names": 0, "names_covered": 0,
                                "missing": []})
        d["uses"] += n
        d["names"] += 1
        if covered(ns, name):
            d["covered"] += n
            d["names_covered"] += 1
        else:
            d["missing"].append((name, n))
    for d in out.values():
        d["missing"].sort(key=lambda t: (-t[1], t[0]))
    order = {ns: i for i, ns in enumerate(NAMESPACE_ORDER)}
    return dict(sorted(out.items(), key=lambda kv: order.get(kv[0], 99)))


def top_primitives_present(counts, k=200) -> tuple:
    """(present, k, missing names) over the k most-used Primitive classes."""
    prims = sorted(((n, name) for (ns, name), n in counts.items() if ns == "ops.operations"),
                   key=lambda t: (-t[0], t[1]))[:k]
    missing = [name for _, name in prims if not covered("ops.operations", name)]
    return len(prims) - len(missing), len(prims), missing
