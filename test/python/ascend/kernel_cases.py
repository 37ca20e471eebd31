"""Helpers of the per-kernel comparisons: an outlined kernel file of a
`save_graphs` dump as a standalone host function, and random inputs for it.
(pytest puts this directory on sys.path: the test directories are not packages.)"""
from __future__ import annotations

import re

import numpy as np


def host_function(path: str) -> tuple[str, str]:
    """(kernel name, MLIR text) of kernels/<name>.mlir with the kernel as a public @host."""
    text = open(path).read().replace("func.func private", "func.func")
    text = re.sub(r" attributes \{mskernel.kind = [^}]*\}", "", text)
    name = re.search(r"func.func @(\w+)", text).group(1)
    return name, text.replace("@" + name, "@host")


def random_inputs(text: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Arrays for @host's arguments: bools, small i32 (labels), normal f16 / f32."""
    ins = []
    for t in re.findall(r"tensor<([^>]*)>", re.search(r"func.func @host\((.*?)\) ->", text, re.S).group(1)):
        *dims, et = t.split("x")
        shape = [int(d) for d in dims]
        ins.append(rng.random(shape) > 0.5 if et == "i1" else rng.integers(0, 10, shape).astype(np.int32)
                   if et == "i32" else rng.standard_normal(shape).astype(np.float16 if et == "f16" else np.float32))
    return ins
