"""Polyhedral scheduling of affine loop nests with isl (AKG-style).

    model.py           a function's affine.for nests -> statements, domains,
                       accesses, original schedule (NotRepresentable otherwise)
    dependences.py     RAW/WAR/WAW with isl dataflow; reductions
    schedule.py        isl scheduler, tiling of permutable bands (CPU L1 model),
                       parallel marks
    codegen.py         isl AST -> affine.for / affine.if, statements cloned
    poly_schedule.py   mskernel-poly-schedule: the pass
    print_schedule.py  mskernel-print-schedule: the chosen schedule as remarks
"""
from . import poly_schedule, print_schedule  # noqa: F401  (register the passes)
