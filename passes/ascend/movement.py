"""Data-movement kernels on the MTE (no pass): kernels whose results are
slices, splits, concatenations, stacks, tiles and transposes of their
arguments -- every result element a copy of one argument element -- which
the vector planner rejects (tensor.extract_slice / insert_slice,
linalg.transpose, linalg.broadcast are not vector instructions) and which
ran as scalar loops.

Every value is followed as a strided view of one argument (offset, a stride
per dim: extract_slice scales and offsets them, a transpose permutes them, a
broadcast adds stride-0 dims, expand/collapse_shape split or merge dims);
a result is a view, or a tensor.empty filled by insert_slices of views.
Each (view -> result box) is a copy job: its innermost dim a contiguous run
in both (else Unsupported), its next dim rows at a GM stride on either side,
the other dims items. An item is one DataCopyPad GM -> UB of up to tileRows
runs (the source's row gap in bytes) and one UB -> GM (the result's row
gap) through a TQueBind<VECIN, VECOUT> of depth 2: no vector instruction,
any element type (f32, f16, i32, i1 bytes). Items are split over the vector
cores (blockDim by cost.cheapest_block_dim). A transpose that moves the
innermost dim is a 2-D transpose after merging dims (group.py's Gather
transpose) or Unsupported.
"""
from __future__ import annotations

import math

from mlir import ir

from .plan import Plan, Unsupported, Value, align_up, camel, kind_of

UB_TILE_BYTES = 32 * 1024           # one buffer of the copy queue (x2: double buffering)
_CT = {"f32": ("float", "float32", 4), "f16": ("half", "float16", 2), "i32": ("int32_t", "int32", 4),
       "i1": ("uint8_t", "bool", 1)}


def _etype(t) -> str:
    e = ir.RankedTensorType(t).element_type
    if isinstance(e, ir.F32Type):
        return "f32"
    if isinstance(e, ir.F16Type):
        return "f16"
    if isinstance(e, ir.IntegerType) and ir.IntegerType(e).width in (1, 32):
        return "i1" if ir.IntegerType(e).width == 1 else "i32"
    raise Unsupported(f"element type {e} in a data-movement kernel")


def _shape(v) -> list[int]:
    st = ir.RankedTensorType(v.type)
    if not st.has_static_shape:
        raise Unsupported("a dynamic shape in a data-movement kernel")
    return list(st.shape)


def _dense(shape) -> list[int]:
    s, out = 1, []
    for d in reversed(shape):
        out.append(s)
        s *= d
    return out[::-1]


class _View:
    """x[arg][off + sum(i_k * strides[k])] for an index i of `shape`."""

    def __init__(self, arg, off, strides, shape):
        self.arg, self.off, self.strides, self.shape = arg, off, list(strides), list(shape)


def _ints(op, key):
    return list(ir.DenseI64ArrayAttr(op.attributes[key]))


def _reassoc(op) -> list[list[int]]:
    return [[int(ir.IntegerAttr(i).value) for i in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _slice_view(v: _View, offs, sizes, strides, out_shape) -> _View:
    off = v.off + sum(o * s for o, s in zip(offs, v.strides))
    st = [s * k for s, k in zip(v.strides, strides)]
    if len(out_shape) != len(sizes):           # rank-reducing: drop unit dims the result does not have
        keep, j = [], 0
        for i, n in enumerate(sizes):
            if j < len(out_shape) and out_shape[j] == n and not (n == 1 and len(sizes) - i > len(out_shape) - j):
                keep.append(i)
                j += 1
            elif n != 1:
                raise Unsupported("a rank-reducing slice of non-unit dims")
        st = [st[i] for i in keep]
    return _View(v.arg, off, st, out_shape)


def _collapse(v: _View, groups, out_shape) -> _View:
    st = []
    for g in groups:
        for a, b in zip(g, g[1:]):
            if v.shape[b] != 1 and v.shape[a] != 1 and v.strides[a] != v.strides[b] * v.shape[b]:
                raise Unsupported("a collapse_shape of dims that are not one run of the source")
        inner = [i for i in g if v.shape[i] != 1]
        st.append(v.strides[inner[-1]] if inner else 0)
    return _View(v.arg, v.off, st, out_shape)


def _expand(v: _View, groups, out_shape) -> _View:
    st = []
    for k, g in enumerate(groups):
        inner, parts = v.strides[k], []
        for i in reversed(g):
            parts.append(inner)
            inner *= out_shape[i]
        st += parts[::-1]
    return _View(v.arg, v.off, st, out_shape)


def _jobs(fn) -> list:
    """[(view, result index, result offset, result strides, box shape)] of the
    kernel's results, or Unsupported."""
    block = fn.regions[0].blocks[0]
    views: dict = {}
    canvases: dict = {}                        # value -> (shape, [(view, off, strides, box)])
    for a in block.arguments:
        views[a] = _View(a.arg_number, 0, _dense(_shape(a)), _shape(a))
    ops = [o.operation for o in block.operations]
    for op in ops[:-1]:
        name = op.name
        res = op.results[0] if len(op.results) == 1 else None
        if name == "tensor.empty":
            canvases[res] = (_shape(res), [])
        elif name == "tensor.extract_slice" and op.operands[0] in views and len(op.operands) == 1:
            views[res] = _slice_view(views[op.operands[0]], _ints(op, "static_offsets"), _ints(op, "static_sizes"),
                                     _ints(op, "static_strides"), _shape(res))
        elif name == "tensor.insert_slice" and op.operands[1] in canvases and op.operands[0] in views \
                and len(op.operands) == 2:
            shape, pieces = canvases[op.operands[1]]
            offs, sizes, strides = (_ints(op, k) for k in ("static_offsets", "static_sizes", "static_strides"))
            src = views[op.operands[0]]
            if src.shape != sizes:             # a rank-expanding insert: unit dims added
                it = iter(zip(src.shape, src.strides))
                st, cur = [], next(it, None)
                for n in sizes:
                    if cur is not None and cur[0] == n:
                        st.append(cur[1])
                        cur = next(it, None)
                    elif n == 1:
                        st.append(0)
                    else:
                        raise Unsupported("an insert_slice of a differently shaped source")
                src = _View(src.arg, src.off, st, sizes)
            if set(strides) != {1} or any(all(a < b + m and b < a + n for a, n, b, m in zip(offs, sizes, o2, s2))
                                          for o2, s2 in canvases.get(("boxes", op.operands[1]), [])):
                raise Unsupported("a strided or overlapping insert_slice")
            canvases[("boxes", res)] = canvases.get(("boxes", op.operands[1]), []) + [(offs, sizes)]
            dense = _dense(shape)
            off = sum(o * s for o, s in zip(offs, dense))
            canvases[res] = (shape, pieces + [(src, off, [s * k for s, k in zip(dense, strides)], sizes)])
        elif name == "linalg.transpose" and op.operands[0] in views:
            v = views[op.operands[0]]
            perm = _ints(op, "permutation")
            views[res] = _View(v.arg, v.off, [v.strides[p] for p in perm], [v.shape[p] for p in perm])
        elif name == "linalg.broadcast" and op.operands[0] in views:
            v = views[op.operands[0]]
            dims = _ints(op, "dimensions")
            it = iter(v.strides)
            views[res] = _View(v.arg, v.off, [0 if i in dims else next(it) for i in range(len(_shape(res)))],
                               _shape(res))
        elif name in ("tensor.collapse_shape", "tensor.expand_shape") and op.operands[0] in views:
            f = _collapse if name == "tensor.collapse_shape" else _expand
            try:
                views[res] = f(views[op.operands[0]], _reassoc(op), _shape(res))
            except Unsupported:
                pass                            # only a result may be such a reshape (same row-major order)
        else:
            raise Unsupported(f"'{name}' in a data-movement kernel")
    ret = ops[-1]
    jobs = []
    for k, r in enumerate(ret.operands):
        while r not in views and r not in canvases and r.owner is not None and not isinstance(r.owner, ir.Block) \
                and r.owner.name in ("tensor.collapse_shape", "tensor.expand_shape"):
            r = r.owner.operands[0]             # the same row-major order as the result
        if r in views:
            v = views[r]
            jobs.append((v, k, 0, _dense(v.shape), v.shape))
        elif r in canvases:
            cshape, pieces = canvases[r]
            if sum(math.prod(b) for _, _, _, b in pieces) != math.prod(cshape):
                raise Unsupported("a result the insert_slices do not cover")
            jobs += [(v, k, off, st, box) for v, off, st, box in pieces]
        else:
            raise Unsupported("a result that is not a copy of the arguments")
    return jobs


def _transpose_2d(fn):
    """(R, C) when the kernel is one linalg.transpose of an argument that is a
    2-D transpose [R, C] -> [C, R] after merging dims, else None."""
    ops = [o.operation for o in fn.regions[0].blocks[0].operations]
    tr = [o for o in ops if o.name == "linalg.transpose"]
    if len(tr) != 1 or len(ops) != 3 or not isinstance(tr[0].operands[0].owner, ir.Block) or \
            ops[-1].operands[0] != tr[0].results[0]:
        return None
    perm, shape = _ints(tr[0], "permutation"), _shape(tr[0].operands[0])
    n = len(perm)
    for k in range(1, n):
        if perm == list(range(k, n)) + list(range(k)):
            return math.prod(shape[:k]), math.prod(shape[k:])
    return None


def plan_movement(fn: ir.Operation, kernel: str, *, soc: str, cores: int, model) -> Plan:
    """The copy kernel (or 2-D Gather transpose) of a data-movement kernel;
    Unsupported when it is not one."""
    func = ir.StringAttr(fn.attributes["sym_name"]).value
    block = fn.regions[0].blocks[0]
    ret = [o.operation for o in block.operations][-1]
    types = {_etype(v.type) for v in list(block.arguments) + list(ret.operands)}
    if len(types) != 1:
        raise Unsupported("a data-movement kernel of mixed element types")
    dt = types.pop()
    try:
        return _copy_plan(fn, kernel, func, _jobs(fn), dt, soc=soc, cores=cores)
    except Unsupported:
        rc = _transpose_2d(fn) if dt in ("f32", "f16") else None
        if rc is None:
            raise
        from .group import transpose_plan
        tp = transpose_plan(rc[0], rc[1], kernel, func, soc=soc, cores=cores, ub=model.ub, dtype=dt)
        tp.shapes["in"] = [_shape(block.arguments[0])]
        tp.shapes["out"] = [_shape(ret.operands[0])]
        tp.kind = kind_of(fn)
        return tp


def _copy_plan(fn, kernel: str, func: str, jobs, dt: str, *, soc: str, cores: int) -> Plan:
    block = fn.regions[0].blocks[0]
    ret = [o.operation for o in block.operations][-1]
    ct, npt, es = _CT[dt]
    specs, items = [], 0
    for v, k, doff, dst, box in jobs:
        if any(n == 0 for n in box):
            continue
        if box[-1] != 1 and (v.strides[-1] != 1 or dst[-1] != 1):
            raise Unsupported("a copy whose innermost dim is not a run (a transpose of the last dim)")
        L = box[-1]
        pitch = align_up(L * es, 32)
        if pitch > UB_TILE_BYTES:
            raise Unsupported(f"a run of {L} elements over the UB tile")
        lead = list(range(len(box) - 1))
        rows, srow, drow = 1, L, L
        if lead and v.strides[lead[-1]] >= L and dst[lead[-1]] >= L:
            r = lead.pop()
            rows, srow, drow = box[r], v.strides[r], dst[r]
        tile_rows = max(1, min(rows, UB_TILE_BYTES // pitch, 4095))
        chunks = -(-rows // tile_rows)
        n_items = math.prod(box[i] for i in lead) * chunks
        specs.append({"arg": v.arg, "out": k, "soff": v.off, "doff": doff, "lead": [(box[i], v.strides[i], dst[i])
                      for i in lead], "rows": rows, "L": L, "srow": srow, "drow": drow, "tileRows": tile_rows,
                      "chunks": chunks, "first": items, "items": n_items})
        items += n_items
    if not specs:
        raise Unsupported("an empty data-movement kernel")
    per = -(-items // min(cores, items))
    tiling = {"items": items, "itemsPerCore": per, "blockDim": -(-items // per)}
    args = list(block.arguments)
    plan = Plan(kernel=kernel, func=func, kind=kind_of(fn),
                inputs=[(Value(f"in{i}", "full", "input", index=i), math.prod(_shape(a))) for i, a in enumerate(args)],
                outputs=[(Value(f"out{k}", "full", "output", index=k), math.prod(_shape(r)))
                         for k, r in enumerate(ret.operands)],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[], cols=[],
                soc=soc)
    plan.shapes = {"in": [_shape(a) for a in args], "out": [_shape(r) for r in ret.operands],
                   "in_dtypes": [npt] * len(args), "out_dtypes": [npt] * len(ret.operands)}
    tile = max(s["tileRows"] * align_up(s["L"] * es, 32) for s in specs)
    plan.ub_bytes = 2 * tile
    biggest = max(specs, key=lambda s: s["tileRows"] * s["L"])
    plan.dma = {"kind": "copy", "tiling": tiling, "tiles": items, "tile": f"{biggest['tileRows']}x{biggest['L']}",
                "copies_per_item": 2, "bytes_per_item": 2 * biggest["tileRows"] * biggest["L"] * es,
                "jobs": specs, "ctype": ct}
    from .cost import cheapest_block_dim, estimate
    bd = cheapest_block_dim(items, cores, estimate(plan)["cycles"] / per)
    per = -(-items // bd)
    tiling.update(itemsPerCore=per, blockDim=-(-items // per))
    return plan


def copy_source(plan: Plan, bug: str = "") -> str:
    """The Ascend C of a copy kernel: one Job per (view -> result box)."""
    op = camel(plan.kernel)
    T = plan.dma["ctype"]
    xs = [f"x{i}" for i in range(len(plan.inputs))]
    ys = [f"y{k}" for k in range(len(plan.outputs))]
    jobs = plan.dma["jobs"]
    L = [f"// Ascend C kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}) from the kernel",
         f"// function @{plan.func}: data movement only ({len(jobs)} copies of strided boxes), DataCopyPad runs",
         "// GM -> UB -> GM through a TQueBind (double-buffered), no vector instruction.",
         '#include "kernel_operator.h"', "using namespace AscendC;", "", "constexpr int32_t BUFFER_NUM = 2;", "",
         f"class Kernel{op} {{", " public:", f"  __aicore__ inline Kernel{op}() {{}}",
         f"  __aicore__ inline void Init({', '.join(f'GM_ADDR {n}' for n in xs + ys)}, const {op}TilingData& td) {{",
         "    begin = GetBlockIdx() * td.itemsPerCore;",
         "    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;"]
    for i, (_, n) in enumerate(plan.inputs):
        L.append(f"    xGm{i}.SetGlobalBuffer((__gm__ {T}*)x{i}, {n});")
    for k, (_, n) in enumerate(plan.outputs):
        L.append(f"    yGm{k}.SetGlobalBuffer((__gm__ {T}*)y{k}, {n});")
    L += [f"    pipe.InitBuffer(que, BUFFER_NUM, {plan.ub_bytes // 2});", "  }", "",
          "  __aicore__ inline void Process() {", "    for (uint32_t i = begin; i < end; ++i) {"]
    for j, s in enumerate(jobs):
        cond = f"i < {s['first'] + s['items']}"
        L.append(f"      {'if' if j == 0 else 'else if'} ({cond}) Job{j}(i - {s['first']});")
    L += ["    }", "  }", "", " private:"]
    for j, s in enumerate(jobs):
        dims = " x ".join(str(n) for n, _, _ in s["lead"])
        L += [f"  // x{s['arg']} -> y{s['out']}: {dims + ' x ' if dims else ''}{s['rows']} rows of {s['L']} "
              f"(row strides {s['srow']} -> {s['drow']}), {s['tileRows']} rows per item",
              f"  __aicore__ inline void Job{j}(uint32_t i) {{",
              f"    uint32_t r0 = i % {s['chunks']} * {s['tileRows']}, l = i / {s['chunks']};",
              f"    uint32_t so = {s['soff']}, dOff = {s['doff']};"]
        for n, ss, ds in reversed(s["lead"]):
            L.append(f"    so += l % {n} * {ss}; dOff += l % {n} * {ds}; l /= {n};")
        L += [f"    uint32_t n = {s['rows']} - r0 < {s['tileRows']} ? {s['rows']} - r0 : {s['tileRows']};",
              f"    Move(xGm{s['arg']}[so + r0 * {s['srow']}], yGm{s['out']}[dOff + r0 * {s['drow']}], n, {s['L']}, "
              f"{s['srow']}, {s['drow']});", "  }"]
    L += [f"  // n runs of len elements, GM row strides ss (source) and ds (result), through one UB tile",
          f"  __aicore__ inline void Move(const GlobalTensor<{T}>& src, const GlobalTensor<{T}>& dst, uint32_t n, "
          "uint32_t len, uint32_t ss, uint32_t ds) {",
          f"    LocalTensor<{T}> t = que.AllocTensor<{T}>();",
          f"    DataCopyPad(t, src, DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof({T}), "
          f"(ss - len) * (uint32_t)sizeof({T}), 0, 0}},",
          f"                DataCopyPadExtParams<{T}>{{false, 0, 0, ({T})0}});",
          "    que.EnQue(t);",
          f"    LocalTensor<{T}> u = que.DeQue<{T}>();",
          f"    DataCopyPad(dst, u, DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof({T}), 0, "
          f"(ds - len) * (uint32_t)sizeof({T}), 0}});",
          "    que.FreeTensor(u);", "  }", "",
          "  TPipe pipe;", "  TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;"]
    L += [f"  GlobalTensor<{T}> {', '.join(f'xGm{i}' for i in range(len(xs)))};",
          f"  GlobalTensor<{T}> {', '.join(f'yGm{k}' for k in range(len(ys)))};",
          "  uint32_t begin, end;", "};", "",
          f'extern "C" __global__ __aicore__ void {plan.kernel}({", ".join(f"GM_ADDR {n}" for n in xs + ys)}, '
          "GM_ADDR workspace, GM_ADDR tiling) {",
          "  GET_TILING_DATA(tilingData, tiling);", f"  Kernel{op} op;",
          f"  op.Init({', '.join(xs + ys)}, tilingData);", "  op.Process();", "}", ""]
    return "\n".join(L)
