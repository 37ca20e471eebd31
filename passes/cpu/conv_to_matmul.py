"""msmlir-cpu-conv-to-matmul: f32 2-D convolutions -> im2col + one matmul.

Rewrites, on tensors before msmlir-cpu-pack-matmul, each
`linalg.conv_2d_nchw_fchw` (static shapes, f32, any stride and dilation;
the forward convolution and, as they are lowered, both gradients) of at least
MATMUL_MIN_WORK multiply-adds into

* an im2col `linalg.generic` that gathers the input windows (tensor.extract
  from the padded input, or through the linalg.transpose that feeds a filter
  gradient) into a 2-D tensor `col`, K = C*KH*KW by P = N*OH*OW, stored
  either [K, P] (output width innermost) or [P, K] (kernel width innermost),
  whichever reads the input in the longer unit-stride rows; its innermost
  dim is split off (never tiled) and it is tiled to rows and vectorized
  here, so the rows are contiguous vector.transfer_reads (a strided row
  stays a gather);
* one 2-D matmul (a `linalg.generic` that `matmul_info` recognizes) between
  the filter seen as [F, K] (a collapse_shape, no copy) and `col`, oriented
  so that the smaller of F and P is the M side (register tiles of MR=8 rows)
  and the larger the N side (NR=32 columns): the filter gradient (P = KH*KW
  of the filter, K = the batch times the output image) and a forward
  convolution with few filters (F = 6, P = N*OH*OW) both keep the packed
  micro-kernel full;
* a transposing `linalg.generic` back to NCHW (adding the convolution's init
  when it is not a fill), or only an expand_shape when N == 1 and M = F.

When `col` would exceed `col-chunk` elements (COL_CHUNK: it and its packed
copy then stay in L2), the three are built inside an scf.for over chunks of
the batch (each chunk's result inserted into the output), or, when the
output images are small (filter gradients), over chunks of the input
channels: K chunks whose matmuls accumulate into C.

msmlir-cpu-pack-matmul then packs the matmul into register-tiled
micro-kernels, and msmlir-cpu-tile-vectorize vectorizes the transpose.

Why: a convolution left as `linalg.conv_2d_nchw_fchw` becomes seven scalar
loops (convert-linalg-to-loops) that reload the filter and the input for
every multiply-add; as a matmul it runs on the packed micro-kernel, and the
im2col copy costs one pass over K*P elements.

Convolutions with fewer multiply-adds stay as they are (their loops are
short); grouped convolutions (`linalg.conv_2d_ngchw_gfchw`), dynamic shapes
and other element types keep the plain path with a remark at the op. If the
im2col vectorization fails, a remark at the convolution says so and the
gather generic is left to msmlir-cpu-tile-vectorize.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from ..common.diagnostics import emit_remark
from ..common.linalg import defining_op, funcs, static_tensor, walk_ops
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import Option, register_pass
from .pack_matmul import MATMUL_MIN_WORK
from .tiling import divisor_le, vector_tile

IM2COL_TAG = "msmlir.cg_im2col"
_DYN = -(1 << 63)  # ShapedType::kDynamic

_CONV = "linalg.conv_2d_nchw_fchw"
_GROUPED = "linalg.conv_2d_ngchw_gfchw"

# Longest im2col row read as one vector (the row is split off as the
# innermost dim of the gather; longer rows are split into pieces).
ROW_VECTOR_MAX = 64

# Elements of `col` built per iteration: bigger convolutions loop over chunks
# of the batch (or, when the output images are small, e.g. filter gradients,
# over chunks of the input channels, accumulating into the matmul result), so
# that `col` and its packed copy stay in L2 instead of streaming to memory.
COL_CHUNK = 1 << 17


@dataclass
class ConvGeom:
    """O[n, f, oh, ow] += I[n, c, oh*sh + kh*dh, ow*sw + kw*dw] * W[f, c, kh, kw]."""
    n: int
    c: int
    h: int
    w: int
    f: int
    kh: int
    kw: int
    oh: int
    ow: int
    sh: int
    sw: int
    dh: int
    dw: int

    @property
    def k(self) -> int:
        return self.c * self.kh * self.kw

    @property
    def p(self) -> int:
        return self.n * self.oh * self.ow

    @property
    def macs(self) -> int:
        return self.f * self.k * self.p


@dataclass
class Plan:
    m_is_f: bool   # matmul C[F, P] = W[F, K] col (else C[P, F] = col W^T)
    kp: bool       # col stored [K, P] (output width innermost), else [P, K]
    row: int       # length of the innermost (vectorized) im2col dim
    chunks: int    # the other factor of the innermost output/kernel width
    loop: str      # "n": a loop over batch chunks (P), "c": over channel chunks (K), "": none
    step: int      # images or channels per iteration

    def chunk(self, g: ConvGeom) -> ConvGeom:
        """The geometry of one iteration's convolution."""
        if self.loop == "n":
            return replace(g, n=self.step)
        if self.loop == "c":
            return replace(g, c=self.step)
        return g


def _pair(op: ir.Operation, name: str) -> list[int] | None:
    if name not in op.attributes:
        return [1, 1]
    try:
        vals = [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]
    except (ValueError, TypeError):
        return None
    return vals if len(vals) == 2 else None


def conv_geom(op: ir.Operation) -> ConvGeom | str:
    """The geometry of a static f32 conv_2d_nchw_fchw on tensors, or why not."""
    if len(op.operands) != 3 or len(op.results) != 1:
        return "not a convolution on tensors"
    types = [static_tensor(v.type) for v in op.operands]
    if any(t is None for t in types):
        return "dynamic shapes"
    if not all(isinstance(t.element_type, ir.F32Type) for t in types):
        return "not f32"
    strides, dilations = _pair(op, "strides"), _pair(op, "dilations")
    if strides is None or dilations is None:
        return "unreadable strides/dilations"
    (n, c, h, w), (f, c2, kh, kw), (n2, f2, oh, ow) = (list(t.shape) for t in types)
    if c != c2 or n != n2 or f != f2:
        return "inconsistent shapes"
    g = ConvGeom(n, c, h, w, f, kh, kw, oh, ow, strides[0], strides[1], dilations[0], dilations[1])
    if (oh - 1) * g.sh + (kh - 1) * g.dh >= h or (ow - 1) * g.sw + (kw - 1) * g.dw >= w:
        return "windows out of bounds"
    return g


def plan_conv(g: ConvGeom, col_chunk: int = COL_CHUNK) -> Plan:
    # The im2col row read from the input: the output width (stride sw) or the
    # kernel width (dilation dw); a unit-stride row is a contiguous load.
    score_ow = g.ow if g.sw == 1 else 0
    score_kw = g.kw if g.dw == 1 else 0
    kp = score_ow >= score_kw
    width = g.ow if kp else g.kw
    row = width
    if width > ROW_VECTOR_MAX:
        row = vector_tile(width, 32) or divisor_le(width, ROW_VECTOR_MAX)
    loop, step = "", 0
    if g.k * g.p > col_chunk:
        if g.n > 1 and g.oh * g.ow >= 64:
            loop, step = "n", divisor_le(g.n, max(1, col_chunk // (g.k * g.oh * g.ow)))
        elif g.c > 1:
            loop, step = "c", divisor_le(g.c, max(1, col_chunk // (g.kh * g.kw * g.p)))
        if loop and step == (g.n if loop == "n" else g.c):
            loop, step = "", 0
    gc = replace(g, n=step) if loop == "n" else replace(g, c=step) if loop == "c" else g
    return Plan(m_is_f=gc.f <= gc.p, kp=kp, row=row, chunks=width // row, loop=loop, step=step)


# --- IR building -----------------------------------------------------------------

def _ity():
    return ir.IndexType.get()


def _cidx(v: int) -> ir.Value:
    return arith.ConstantOp(_ity(), ir.IntegerAttr.get(_ity(), v)).result


def _dmap(n: int, dims: list[int]) -> ir.AffineMap:
    return ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in dims])


def _iters(kinds: list[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{k}>") for k in kinds])


def _generic(inputs, init, maps, kinds, body) -> ir.Value:
    op = linalg.GenericOp([init.type], list(inputs), [init],
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]), _iters(kinds))
    types = [ir.RankedTensorType(v.type).element_type for v in list(inputs) + [init]]
    block = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(block):
        linalg.YieldOp([body(*block.arguments)])
    return op.result


def _reassoc(groups: list[list[int]]) -> ir.ArrayAttr:
    i64t = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64t, d) for d in g])
                             for g in groups])


def _collapse(v: ir.Value, groups: list[list[int]]) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    shape = []
    for g in groups:
        s = 1
        for d in g:
            s *= t.shape[d]
        shape.append(s)
    return tensor.CollapseShapeOp(ir.RankedTensorType.get(shape, t.element_type), v,
                                  _reassoc(groups)).result


def _expand(v: ir.Value, shape: list[int], groups: list[list[int]]) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    return tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, t.element_type), v, _reassoc(groups),
                                [], ir.DenseI64ArrayAttr.get(shape)).result


def _mul(v: ir.Value, k: int) -> ir.Value:
    return v if k == 1 else arith.MulIOp(v, _cidx(k)).result


def _source(x: ir.Value) -> tuple[ir.Value, list[int]]:
    """Reads through a linalg.transpose producer (e.g. the [C, N, H, W] input
    of a filter gradient): (src, perm) with x[i] = src[j], j[perm[d]] = i[d]."""
    op = defining_op(x)
    if op is not None and op.name == "linalg.transpose":
        perm = [int(p) for p in ir.DenseI64ArrayAttr(op.attributes["permutation"])]
        return op.operands[0], perm
    return x, [0, 1, 2, 3]


def build_im2col(x: ir.Value, g: ConvGeom, pl: Plan, n0: ir.Value | None = None,
                 c0: ir.Value | None = None) -> tuple[ir.Value, ir.Operation]:
    """col of the convolution `g` ([K, P] or [P, K], a collapse of the im2col
    generic's result), reading x from image n0 / channel c0 on."""
    src, perm = _source(x)
    elem = ir.RankedTensorType(x.type).element_type
    if pl.kp:   # (c, kh, kw, n, oh, owc, owr)
        shape = [g.c, g.kh, g.kw, g.n, g.oh, pl.chunks, pl.row]
    else:       # (n, oh, ow, c, kh, kwc, kwr)
        shape = [g.n, g.oh, g.ow, g.c, g.kh, pl.chunks, pl.row]
    init = tensor.EmptyOp(shape, elem).result
    gen = linalg.GenericOp([init.type], [], [init], ir.ArrayAttr.get([ir.AffineMapAttr.get(
        ir.AffineMap.get_identity(7))]), _iters(["parallel"] * 7))
    block = gen.regions[0].blocks.append(elem)
    with ir.InsertionPoint(block):
        i64t = ir.IntegerType.get_signless(64)
        idx = [linalg.IndexOp(ir.IntegerAttr.get(i64t, d)).result for d in range(7)]
        # The row index (wr) is added last: the vectorizer's contiguity check
        # reads the operands of an addi in order (a later operand overrides).
        if pl.kp:
            c, kh, kw, n, oh, wc, wr = idx
            lead = _add(_mul(kw, g.dw), _mul(wc, pl.row * g.sw) if pl.chunks > 1 else None)
            wi = arith.AddIOp(lead, _mul(wr, g.sw)).result
        else:
            n, oh, ow, c, kh, wc, wr = idx
            lead = _add(_mul(ow, g.sw), _mul(wc, pl.row * g.dw) if pl.chunks > 1 else None)
            wi = arith.AddIOp(lead, _mul(wr, g.dw)).result
        hi = _add(_mul(oh, g.sh), _mul(kh, g.dh))
        if n0 is not None:
            n = arith.AddIOp(n0, n).result
        if c0 is not None:
            c = arith.AddIOp(c0, c).result
        coords = [n, c, hi, wi]                 # of x
        j = [None] * 4
        for d in range(4):
            j[perm[d]] = coords[d]
        linalg.YieldOp([tensor.ExtractOp(src, j).result])
    return _collapse(gen.result, [[0, 1, 2], [3, 4, 5, 6]]), gen.operation


def _add(a: ir.Value | None, b: ir.Value | None) -> ir.Value:
    if a is None or b is None:
        return b if a is None else a
    return arith.AddIOp(a, b).result


def _fill_value(v: ir.Value) -> ir.Value | None:
    op = defining_op(v)
    if op is not None and op.name == "linalg.fill":
        return op.operands[0]
    return None


def _fill(value: ir.Value, shape: list[int]) -> ir.Value:
    return linalg.fill(value, outs=[tensor.EmptyOp(shape, value.type).result])


def _matmul(wm: ir.Value, col: ir.Value, g: ConvGeom, pl: Plan, c_init: ir.Value) -> ir.Value:
    """C[F, P] = wm[F, K] col, or C[P, F] = col wm^T (a generic matmul_info reads)."""
    if pl.m_is_f:
        a, amap = wm, [0, 2]
        b, bmap = col, ([2, 1] if pl.kp else [1, 2])
    else:
        a, amap = col, ([2, 0] if pl.kp else [0, 2])
        b, bmap = wm, [1, 2]
    return _generic([a, b], c_init, [_dmap(3, amap), _dmap(3, bmap), _dmap(3, [0, 1])],
                    ["parallel", "parallel", "reduction"],
                    lambda va, vb, vc: arith.AddFOp(arith.MulFOp(va, vb).result, vc).result)


def _direct(g: ConvGeom, pl: Plan) -> bool:
    """C[F, OH*OW] is the NCHW output itself (one image, M = F)."""
    return pl.m_is_f and g.n == 1


def _c_init(g: ConvGeom, pl: Plan, fv: ir.Value | None, addend: ir.Value | None) -> ir.Value:
    """The matmul's init: the output's init when it is read as C (direct),
    else a fill (of the init's fill value, or 0)."""
    shape = [g.f, g.p] if pl.m_is_f else [g.p, g.f]
    if _direct(g, pl) and addend is not None:
        return _collapse(addend, [[0, 1], [2, 3]])
    elem = ir.F32Type.get()
    zero = fv if fv is not None else arith.ConstantOp(elem, ir.FloatAttr.get(elem, 0.0)).result
    return _fill(zero, shape)


def _to_nchw(cm: ir.Value, g: ConvGeom, pl: Plan, addend: ir.Value | None) -> ir.Value:
    """The matmul result as [N, F, OH, OW] (+ addend unless already in C)."""
    elem = ir.F32Type.get()
    out_shape = [g.n, g.f, g.oh, g.ow]
    if _direct(g, pl):
        return _expand(cm, out_shape, [[0, 1], [2, 3]])
    if pl.m_is_f:   # C[F, (n, oh, ow)] -> [F, N, OH, OW]
        c4 = _expand(cm, [g.f, g.n, g.oh, g.ow], [[0], [1, 2, 3]])
        cmap = _dmap(4, [1, 0, 2, 3])
    else:           # C[(n, oh, ow), F] -> [N, OH, OW, F]
        c4 = _expand(cm, [g.n, g.oh, g.ow, g.f], [[0, 1, 2], [3]])
        cmap = _dmap(4, [0, 2, 3, 1])
    ident = _dmap(4, [0, 1, 2, 3])
    if addend is not None:
        return _generic([c4, addend], tensor.EmptyOp(out_shape, elem).result,
                        [cmap, ident, ident], ["parallel"] * 4,
                        lambda vc, vi, _o: arith.AddFOp(vc, vi).result)
    return _generic([c4], tensor.EmptyOp(out_shape, elem).result, [cmap, ident],
                     ["parallel"] * 4, lambda vc, _o: vc)


def rewrite_conv(op: ir.Operation, g: ConvGeom, pl: Plan) -> ir.Operation:
    """Replaces `op` (at its position) by im2col + matmul + back to NCHW, in a
    loop over chunks when the plan says so; returns the im2col generic."""
    x, w, init = op.operands
    fv = _fill_value(init)
    addend = None if fv is not None else init
    gc = pl.chunk(g)
    with op.location, ir.InsertionPoint(op):
        wm = _collapse(w, [[0], [1, 2, 3]])                 # [F, K]
        if pl.loop == "n":
            # out[n0:n0+step] = conv of images n0.. (each chunk its own matmul)
            acc0 = init if addend is not None else tensor.EmptyOp([g.n, g.f, g.oh, g.ow],
                                                                  ir.F32Type.get()).result
            loop = scf.ForOp(_cidx(0), _cidx(g.n), _cidx(pl.step), [acc0])
            with ir.InsertionPoint(loop.body):
                n0 = loop.induction_variable
                acc = loop.inner_iter_args[0]
                sizes = [gc.n, g.f, g.oh, g.ow]
                part = None
                if addend is not None:
                    part = tensor.ExtractSliceOp(ir.RankedTensorType.get(sizes, ir.F32Type.get()),
                                                 acc, [n0], [], [],
                                                 ir.DenseI64ArrayAttr.get([_DYN, 0, 0, 0]),
                                                 ir.DenseI64ArrayAttr.get(sizes),
                                                 ir.DenseI64ArrayAttr.get([1, 1, 1, 1])).result
                col, im2col = build_im2col(x, gc, pl, n0=n0)
                cm = _matmul(wm, col, gc, pl, _c_init(gc, pl, fv, part))
                res = _to_nchw(cm, gc, pl, part)
                upd = tensor.InsertSliceOp(res, acc, [n0], [], [],
                                           ir.DenseI64ArrayAttr.get([_DYN, 0, 0, 0]),
                                           ir.DenseI64ArrayAttr.get(sizes),
                                           ir.DenseI64ArrayAttr.get([1, 1, 1, 1])).result
                scf.YieldOp([upd])
            result = loop.results[0]
        elif pl.loop == "c":
            # C += wm[:, k chunk] col(chunk), accumulated over the channel chunks
            kc = gc.k
            c_acc0 = _c_init(g, pl, fv, addend)
            loop = scf.ForOp(_cidx(0), _cidx(g.c), _cidx(pl.step), [c_acc0])
            with ir.InsertionPoint(loop.body):
                c0 = loop.induction_variable
                acc = loop.inner_iter_args[0]
                k0 = arith.MulIOp(c0, _cidx(g.kh * g.kw)).result
                wpart = tensor.ExtractSliceOp(ir.RankedTensorType.get([g.f, kc], ir.F32Type.get()),
                                              wm, [k0], [], [],
                                              ir.DenseI64ArrayAttr.get([0, _DYN]),
                                              ir.DenseI64ArrayAttr.get([g.f, kc]),
                                              ir.DenseI64ArrayAttr.get([1, 1])).result
                col, im2col = build_im2col(x, gc, pl, c0=c0)
                scf.YieldOp([_matmul(wpart, col, gc, pl, acc)])
            result = _to_nchw(loop.results[0], g, pl, None if _direct(g, pl) else addend)
        else:
            col, im2col = build_im2col(x, g, pl)
            cm = _matmul(wm, col, g, pl, _c_init(g, pl, fv, addend))
            result = _to_nchw(cm, g, pl, None if _direct(g, pl) else addend)
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return im2col


def _im2col_script(s: Script, tag: int, threads: int, g: ConvGeom, pl: Plan) -> None:
    """Rows of the im2col generic: all dims but the innermost (the row) tiled
    by 1, the row vectorized (a contiguous transfer_read when unit-stride)."""
    seq = s.begin_suppressed("%root")
    h = s.match_attr(seq, IM2COL_TAG, tag)
    sizes = [1] * 6 + [0]
    if threads > 1:
        outer = [g.c, g.kh, g.kw, g.n, g.oh, pl.chunks] if pl.kp else [g.n, g.oh, g.ow, g.c, g.kh, pl.chunks]
        for d, r in enumerate(outer):
            if r >= threads and r % threads == 0:
                fa = [0] * 7
                fa[d] = r // threads
                h, _ = s.tile_forall(h, fa)
                break
    t, _ = s.tile(h, sizes)
    s.emit(f"transform.structured.vectorize {t} {{vectorize_nd_extract}} : {ANY}")
    s.end_sequence()


def convs_to_matmuls(func: ir.Operation, threads: int, col_chunk: int = COL_CHUNK) -> ir.Operation:
    rewritten = []
    for op in walk_ops(func, [], lambda o: o.name in (_CONV, _GROUPED)):
        if op.name == _GROUPED:
            emit_remark(op.location, "msmlir-cpu-conv-to-matmul: grouped convolution "
                                     "(conv_2d_ngchw_gfchw) keeps the plain path")
            continue
        g = conv_geom(op)
        if isinstance(g, str):
            emit_remark(op.location, f"msmlir-cpu-conv-to-matmul: {g}; this convolution keeps "
                                     "the plain path")
            continue
        if g.macs < MATMUL_MIN_WORK:
            continue
        pl = plan_conv(g, col_chunk)
        loc = op.location
        im2col = rewrite_conv(op, g, pl)
        im2col.attributes[IM2COL_TAG] = i64(len(rewritten))
        rewritten.append((loc, pl.chunk(g), pl))
    if not rewritten:
        return func
    s = Script()
    for tag, (_, g, pl) in enumerate(rewritten):
        _im2col_script(s, tag, threads, g, pl)
    s.patterns("%root", ["vector.transfer_permutation_patterns",
                         "vector.cast_away_vector_leading_one_dim", "canonicalization"])
    func, error = apply_or_restore(func, s.text())
    left = {ir.IntegerAttr(o.attributes[IM2COL_TAG]).value
            for o in walk_ops(func, [], lambda o: IM2COL_TAG in o.attributes)}
    strip_attrs(func, (IM2COL_TAG,))
    for tag in sorted(left):
        emit_remark(rewritten[tag][0], "msmlir-cpu-conv-to-matmul: the im2col gather of this "
                                       "convolution was not vectorized; it takes the generic path"
                                       + (f": {error}" if error else ""))
    return func


@register_pass("msmlir-cpu-conv-to-matmul",
               "Static f32 linalg.conv_2d_nchw_fchw (forward and both gradients) -> vectorized "
               "im2col gather + one 2-D matmul (for msmlir-cpu-pack-matmul) + transpose to NCHW",
               options={"threads": Option(int, 1, "split the im2col gather's outermost loop into "
                                                  "this many scf.forall tasks (1: serial)"),
                        "col-chunk": Option(int, COL_CHUNK, "im2col elements per iteration of the "
                                                            "chunk loop (bigger convolutions loop)")})
def conv_to_matmul(module: ir.Operation, *, threads: int, col_chunk: int):
    for func in list(funcs(module)):
        try:
            convs_to_matmuls(func, threads, col_chunk)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation
            strip_attrs(module, (IM2COL_TAG,))
            emit_remark(func.location, "msmlir-cpu-conv-to-matmul: internal error, the remaining "
                                       f"convolutions keep the plain path: {type(e).__name__}: {e}")
