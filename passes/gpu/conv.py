"""Convolutions of half inputs onto the tensor cores, for convert-mskernel-to-gpu (a helper module).

Why: a `linalg.conv_2d_nchw_fchw` stays seven scalar loops, one thread per
output; as a GEMM it is the contraction the tensor-core tiles of
passes/gpu/mma.py already compute (f16/bf16 inputs, f32 accumulation,
ldmatrix + mma.sync).

`to_tensor_core_gemms(module, kernels, threads)`, on tensors before
generalization, rewrites each f16/bf16 convolution (any stride; no
dilation: upstream's im2col takes none; padding is already a separate pad
of the input) whose GEMM fits the MMA tiles (mma.fits) into
  - its accumulator widened to f32 (the output's fill in f32, or a
    linalg.copy that extends its initial value), the convolution on it, and a
    linalg.copy that truncates the result back (on the CPU, msmlir's f16
    convolution accumulates in f16: these results are the more accurate);
  - then upstream's im2col rewrite (transform.structured.
    convert_conv2d_to_img2col): a gather of the input windows into
    col[N, C*KH*KW, OH*OW] and a batched contraction
    out[n, f, p] += ext(w[f, k]) * ext(col[n, k, p]);
  - then upstream's elementwise fusion (linalg-fuse-elementwise-ops, on
    that kernel) folds the gather into the contraction: its B operand reads
    the (padded) input at x[n, k / (KH*KW), oh(p)*s + kh(k), ow(p)*s + kw(k)]
    (an affine indexing map), so no im2col buffer exists. The matmul matcher
    takes that index arithmetic (convert_mskernel_to_gpu._match_matmul) and
    maps the contraction to MMA tiles (M = F, N = OH*OW, K = C*KH*KW, a
    block column per image) whose load phase gathers B's tile straight into
    shared memory (element loads, consecutive threads along the output
    pixels): the implicit GEMM. A gather the fusion leaves in place (none
    known) stays a buffer in global memory, with a remark saying so.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, tensor
from mlir.passmanager import PassManager

from ..common.diagnostics import emit_remark
from ..common.transform import ANY, Script, apply_script
from . import mma
from .loops import _walk

_TAG = "msmlir.gpu_conv_gemm"
_HALF = (ir.F16Type, ir.BF16Type)


def _half(t: ir.Type) -> bool:
    return any(isinstance(t, c) for c in _HALF)


def _candidates(kernel: ir.Operation, threads: int) -> list[ir.Operation]:
    """The half-input convolutions whose GEMM (M = F, N = OH*OW, K = C*KH*KW)
    fits the MMA tiles (mma.fits); the others stay direct loops."""
    out = []
    for op in _walk(kernel, lambda o: o.name == "linalg.conv_2d_nchw_fchw"):
        ins = [ir.RankedTensorType(v.type) for v in list(op.operands)[:2]
               if isinstance(v.type, ir.RankedTensorType)]
        if len(ins) != 2 or len(op.results) != 1:
            continue
        if not all(_half(t.element_type) for t in ins) or \
                ins[0].element_type != ins[1].element_type:
            continue
        res = ir.RankedTensorType(op.results[0].type)
        if res.element_type != ins[0].element_type and not isinstance(res.element_type,
                                                                      ir.F32Type):
            continue
        dil = ir.DenseIntElementsAttr(op.attributes["dilations"])
        if any(d != 1 for d in dil):           # (upstream's im2col takes no dilation)
            continue
        F, C, KH, KW = ins[1].shape
        if not mma.fits(F, res.shape[2] * res.shape[3], C * KH * KW, threads):
            continue
        out.append(op)
    return out


def _widened_init(init: ir.Value, shape: list[int]) -> ir.Value:
    """The convolution's initial value in f32: a fill's constant extended, or a copy."""
    f32 = ir.F32Type.get()
    empty = tensor.EmptyOp(shape, f32).result
    fill = init.owner
    if isinstance(fill, ir.OpView) and fill.operation.name == "linalg.fill":
        v = arith.ExtFOp(f32, fill.operation.operands[0]).result
        return linalg.fill(v, outs=[empty])
    return linalg.copy(init, outs=[empty])


def to_tensor_core_gemms(module: ir.Operation, kernels: list[ir.Operation],
                         threads: int) -> int:
    """The rewrite of the module docstring on every candidate convolution of
    `kernels` (`threads`: the mapping's budget per block); returns how many
    were rewritten."""
    n = 0
    i64 = ir.IntegerType.get_signless(64)
    rewritten = []
    for k in kernels:
        for op in _candidates(k, threads):
            if k not in rewritten:
                rewritten.append(k)
            x, w, init = list(op.operands)[:3]
            res = ir.RankedTensorType(op.results[0].type)
            shape = list(res.shape)
            with ir.InsertionPoint(op), op.location:
                if isinstance(res.element_type, ir.F32Type):
                    op.attributes[_TAG] = ir.IntegerAttr.get(i64, n)
                    n += 1
                    continue
                acc = _widened_init(init, shape)
                conv = linalg.conv_2d_nchw_fchw(
                    x, w, outs=[acc],
                    strides=ir.DenseIntElementsAttr(op.attributes["strides"]),
                    dilations=ir.DenseIntElementsAttr(op.attributes["dilations"]))
                conv.owner.attributes[_TAG] = ir.IntegerAttr.get(i64, n)
                back = linalg.copy(conv, outs=[tensor.EmptyOp(shape, res.element_type).result])
            op.results[0].replace_all_uses_with(back)
            op.erase()
            n += 1
    if n:
        script = Script()
        for i in range(n):
            h = script.match_attr("%root", _TAG, i)
            script.emit(f"{script.fresh('col')}, {script.fresh('mm')} = "
                        f"transform.structured.convert_conv2d_to_img2col {h} : "
                        f"({ANY}) -> ({ANY}, {ANY})")
        apply_script(module, script.text())
        for k in rewritten:
            PassManager.parse("func.func(linalg-fuse-elementwise-ops)", k.context).run(k)
            for g in _walk(k, _is_gather):
                emit_remark(g.location, "convert-mskernel-to-gpu: the im2col gather of a "
                            "convolution was not fused into its contraction; it is "
                            "materialized in global memory")
    return n


def _is_gather(op: ir.Operation) -> bool:
    """An all-parallel linalg.generic reading one input through an indexing
    map that is not a projected permutation (upstream im2col's gather)."""
    if op.name != "linalg.generic" or len(op.operands) != 2:
        return False
    its = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if any("parallel" not in t for t in its):
        return False
    first = ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[0]).value
    return not first.is_projected_permutation
