"""The Ascend target: outlined kernels -> Ascend C (CANN custom-operator layout).

    plan.py             kernel analysis: roles of the values (full/row/col/scalar),
                        the split into rows, the Plan data model
    vector.py           vector kernels: linalg bodies -> Ascend C vector
                        instructions, UB slots by liveness, tiles from the UB budget;
                        last-axis (row) and first-axis (column) reductions; i1 as
                        f32 masks (Compare/Select), i32 inputs as f32 images,
                        f16 as half in GM (Cast to f32, each f16 op rounded)
    cube.py             matmul kernels on the cube unit: GM -> L1 (ND -> NZ), L0A/L0B,
                        Mmad into L0C, Fixpipe to GM; double-buffered queues (the next
                        K step copied in under this one's Mmad); batched (batch and
                        group strides, a shared A), f16 operands accumulating in f32;
                        split-K where the cost model says it pays (thin products with
                        long K: (tile, K slice) items writing f32 partials to GM, a
                        second launch sums them)
    conv.py             convolutions (forward, input and filter gradients; strided,
                        dilated, grouped) as groups: forward convs form their
                        img2col on chip with Load3D (L1 5HD band -> L0B); the
                        others [filter permute / bias column]
                        -> im2col (DataCopyPad runs, or whole rows + Gather) ->
                        batched cube matmul (double-buffered) -> [vector epilogue];
                        f32 or f16 (AMP: f16 im2col, f32 accumulation in L0C, one
                        rounding by Fixpipe F322F16; an f32 bias cast to f16 by a
                        vector kernel of its own)
    pool.py             max and average pooling and their gradients on the vector
                        path, f32 or f16 (an f32 image on chip), dilated windows
                        (Gather tables, padding as a -inf / zero slot,
                        overlapping windows as summed inverse Gathers,
                        Compare/Select for the first maximum)
    split.py            sums over the outer and inner axes (bias gradients, f32 or
                        f16) as a row-mode then a column-mode vector kernel;
                        independent computations over different domains (AMP's
                        parameter casts, one SGD step of several parameters) as
                        one vector kernel each
    group.py            matmul kernels with transposed operands / epilogues: a group
                        of kernels (transpose, cube, vector epilogue) over GM
                        workspaces; f32 or f16 (AMP: halves transposed, the
                        product rounded by Fixpipe or by the epilogue)
    scalar.py           the scalar fallback: any other kernel (middle-axis
                        reductions, gathers, slices and concatenations, i32
                        results, random numbers, sort's scf.for stages) as scalar
                        loops over GM, one core (integer + - * << in unsigned
                        arithmetic: arith wraps, C++'s signed overflow is
                        undefined); gather's index check as a status output the
                        host runner raises
    movement.py         slices, splits, concatenations, stacks, tiles and transposes
                        as MTE DataCopyPad copy kernels (or the Gather transpose)
    stmt.py             one Ascend C call of a stage: the record the planners build,
                        one ascendc op each, printed back as the statement
    to_ascendc.py       vector plans -> `ascendc.kernel` ops (dialects/AscendC.td:
                        queues with depth, TBufs, CopyIn/Compute/CopyOut stages,
                        DataCopy/DataCopyPad with block parameters, vector ops with
                        counts, the tile split over cores), checked by the verifiers
    emit_ascendc.py     Ascend C of an ascendc.kernel op (the IR alone); the
                        ascendc-emit pass
    emit.py             Ascend C kernel, host tiling, launch stub, project layout
                        (vector kernels' device code through emit_ascendc.py)
    cost.py             per-kernel report and the cost model
    lower_to_ascend.py  mskernel-lower-to-ascend: the pass
    pipeline.py         msmlir-ascend-pipeline{soc=...}
"""
from . import emit_ascendc, lower_to_ascend, pipeline  # noqa: F401  (register the passes and the pipeline)
