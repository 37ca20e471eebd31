"""Helpers shared by the passes of several phases (no passes here).

    linalg.py       static facts about linalg ops (loop ranges, iterators,
                    matmul detection, iteration-space size)
    transform.py    transform-dialect scripts: a text builder, the cached
                    interpreter call, all-or-nothing application to a function
    diagnostics.py  emit_remark: MLIR remarks from Python passes
"""
