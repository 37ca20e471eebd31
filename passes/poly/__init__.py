"""Polyhedral scheduling of affine loop nests with isl (AKG-style).

    model.py           a function's affine.for nests -> statements, domains,
                       accesses, original schedule (NotRepresentable otherwise)
    dependences.py     RAW/WAR/WAW with isl dataflow; reductions
    targets.py         memory models as data: cpu (L1/L2/L3, vector width from
                       the host), gpu (shared/threads/registers), ascend (910B)
    schedule.py        isl scheduler, multi-level tiling of permutable bands
                       (sizes solved per target), full tiles isolated from
                       partial ones (cpu), cpu task split of the outermost
                       parallel member, band / parallel / gpu marks
    codegen.py         isl AST -> affine.for / affine.if / affine.parallel (the
                       cpu task loop), statements cloned
    vectorize.py       vector accumulators for the reduction loops of the AST
                       (scalar replacement, K partial-sum vectors, masked tail;
                       masked steps for loops ending at a min(...) bound);
                       8x8 vector blocks for transposed elementwise tiles
    claim.py           mskernel-poly-claim: which kernel classes the CPU
                       pipeline gives the scheduler (measured per class)
    poly_schedule.py   mskernel-poly-schedule: the pass
    promote.py         mskernel-promote-buffers: tile footprints -> buffers at
                       #mskernel.scope levels, copy-in/out loops
    print_schedule.py  mskernel-print-schedule: the chosen schedule (sizes per
                       level, promoted buffers) as remarks
"""
from . import claim, poly_schedule, print_schedule, promote  # noqa: F401  (register the passes)
