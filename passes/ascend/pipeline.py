"""msmlir-ascend-pipeline: mindir -> outlined kernels -> linalg -> Ascend C.

The graph stages are the CPU pipeline's own (passes/pipelines/cpu.py:
GRAPH_PREPARE, then `kernels`: composites expanded, graph-kernel fusion,
outlining), then convert-mindir-to-linalg on the kernels as they are (no
inlining back into the host: on Ascend a kernel is a device launch), then
mskernel-lower-to-ascend. The host graph stays for the CPU.
"""
from __future__ import annotations

from ..pipelines.cpu import GRAPH_PREPARE, kernels
from ..registry import Option, register_pipeline

TO_LINALG = "convert-mindir-to-linalg,canonicalize,cse"


def ascend_stages(*, graph_kernel: bool = True) -> list[tuple[str, str]]:
    """The stages before mskernel-lower-to-ascend, as [(name, pipeline text)]
    (GRAPH_PREPARE first)."""
    return [("prepare", GRAPH_PREPARE), ("kernels", kernels(graph_kernel)), ("linalg", TO_LINALG)]


@register_pipeline("msmlir-ascend-pipeline",
                   "mindir -> outlined kernels -> linalg -> Ascend C kernels (mskernel-lower-to-ascend)",
                   options={"soc": Option(str, "Ascend910B", "target SoC"),
                            "graph-kernel": Option(bool, True, "graph-kernel fusion (false: one kernel per op)"),
                            "emit-dir": Option(str, "", "write the CANN custom-operator project here"),
                            "tile-elems": Option(int, 0, "largest full tile in elements (0: UB budget)"),
                            "fallback": Option(bool, True, "scalar-loop kernels for what the vector/cube "
                                                           "planners cannot express (false: an error)")})
def ascend_pipeline(*, soc: str, graph_kernel: bool, emit_dir: str, tile_elems: int, fallback: bool) -> str:
    stages = ",".join(text for _, text in ascend_stages(graph_kernel=graph_kernel))
    opts = f"soc={soc} tile-elems={tile_elems} fallback={str(fallback).lower()}" + \
        (f" emit-dir={emit_dir}" if emit_dir else "")
    return f"{stages},mskernel-lower-to-ascend{{{opts}}}"
