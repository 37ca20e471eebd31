"""msmlir-cpu-vectorize-windows: pooling windows -> contiguous row reads along the output width.

Rewrites, on tensors before row fusion, every linalg op on static tensors
that reads an input through a window (a non-permutation indexing map such as
`oh * 2 + kh` or `h floordiv 2 + t`): the named pooling ops
(`linalg.pooling_nchw_max`, `pooling_nchw_sum`, ...: max_pool2d,
avg_pool2d), generalized first, and the generics of the pooling gradients
(the argmax of max_pool2d_grad, the "gather" of both pooling gradients).

Contiguous rows (emit_rows, the usual case): loops over the other parallel
dims (with threads, the outermost big one split into scf.forall tasks), a
vector of a power-of-two lanes (16 or 32 f32, masked tail) along the
innermost parallel dim, the window loops inside with the outputs carried as
vectors. Each input row a tile touches is one contiguous, explicitly masked
transfer_read, spread over the lanes by one vector.shuffle whose pattern is
the window's lane offsets (checked for every tile start and window position,
lane_pattern): a stride-2 window keeps the even or odd elements, a
gradient's `w floordiv 2` repeats each element twice. An output initialized
by a fill of a constant starts as its splat (the fill is not written and read
back). The body is the generic's own arith/math ops applied lane-wise.

Why: the upstream vectorizer rejects non-permutation maps; through
tensor.extract it vectorizes them as vector.gathers of 14 / 28 lanes, which
LLVM splits into scalar loads (B6's four pooling kernels: 17% of the LLVM
time of the step). Contiguous rows: their LLVM CPU time 153 -> 94 ms, code
31.5 -> 18.1 KB, kernel time 424 -> 259 us at one thread; max pooling stays
bit-identical (it selects and copies).

Gather path (the rest: a window whose vector dim indexes an outer input dim,
a lane pattern that is not fixed, a body with other ops): the same generic
with the window inputs read by `tensor.extract` (window_to_extract), tiled
(the vector dim, the other parallel dims by 1, the window dims by 1, unit
dims folded) and vectorized by upstream (`vectorize_nd_extract`): the reads
become vector.gathers.

A window of one element per output (the gather of a pooling gradient with
kernel == stride) accumulating into a zero fill first drops the fill
(drop_zero_init): the selected dy is stored once instead of the result being
zero-filled, read back and added to.

Runs before msmlir-fuse-rows and msmlir-cpu-tile-vectorize (what it
vectorizes is no longer a linalg op for them). Top-level ops with fewer than
`min-work` iterations keep the plain path (compile time). On the gather
path, each op's recipe runs in its own `transform.sequence
failures(suppress)`; an op the vectorizer still rejects keeps its scalar
loops, with a remark at the op.
"""
from __future__ import annotations

import itertools
import math

from mlir import ir
from mlir.dialects import affine, linalg, tensor

from ..common.diagnostics import emit_remark
from ..common.linalg import (PARALLEL_MIN_WORK, LoopInfo, funcs, in_block, loop_info, numel,
                             static_tensor, walk_ops)
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import register_pass
from .generalize import generalize_func
from .tiling import CODEGEN_OPTIONS, lanes, vector_tile

TAG = "msmlir.cg_window"


def _maps(op: ir.Operation) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]


def window_inputs(op: ir.Operation) -> list[int]:
    """The inputs of a linalg.generic read through non-permutation maps
    (pooling windows) when every loop dim stays defined by the other operands;
    [] otherwise."""
    if op.name != "linalg.generic" or "indexing_maps" not in op.attributes:
        return []
    maps = _maps(op)
    n_in = len(op.operands) - len(op.results)
    bad = [i for i in range(n_in) if not maps[i].is_projected_permutation]
    if not bad or not all(m.is_projected_permutation for m in maps[n_in:]):
        return []
    defined = set()
    for i, m in enumerate(maps):
        if i not in bad:
            defined.update(r.position for r in m.results if isinstance(r, ir.AffineDimExpr))
    if len(defined) != maps[0].n_dims:
        return []
    return bad


def window_to_extract(op: ir.Operation, bad: list[int]) -> ir.Operation:
    """Rebuilds a window generic with its `bad` inputs read by tensor.extract
    at affine.apply-ed linalg.index coordinates (all maps then projected
    permutations, which the vectorizer requires); returns the new op."""
    maps = _maps(op)
    n_in = len(op.operands) - len(op.results)
    rank = maps[0].n_dims
    keep = [i for i in range(n_in) if i not in bad]
    operands = list(op.operands)
    old = op.regions[0].blocks[0]
    with op.location, ir.InsertionPoint(op):
        new = linalg.GenericOp([r.type for r in op.results], [operands[i] for i in keep],
                               operands[n_in:],
                               ir.ArrayAttr.get([ir.AffineMapAttr.get(maps[i]) for i in keep]
                                                + [ir.AffineMapAttr.get(m) for m in maps[n_in:]]),
                               op.attributes["iterator_types"])
        args = [old.arguments[i] for i in keep] + list(old.arguments)[n_in:]
        block = new.regions[0].blocks.append(*[a.type for a in args])
        with ir.InsertionPoint(block):
            i64t = ir.IntegerType.get_signless(64)
            idx = [linalg.IndexOp(ir.IntegerAttr.get(i64t, d)).result for d in range(rank)]
            last = None
            for i in bad:
                coords = []
                for r in maps[i].results:
                    if isinstance(r, ir.AffineDimExpr):
                        coords.append(idx[r.position])
                    else:
                        coords.append(affine.AffineApplyOp(ir.AffineMap.get(rank, 0, [r]), idx).result)
                ext = tensor.ExtractOp(operands[i], coords)
                old.arguments[i].replace_all_uses_with(ext.result)
                last = ext.operation
    for a, b in zip(args, block.arguments):
        a.replace_all_uses_with(b)
    for o in list(old.operations):
        o.operation.move_after(last)
        last = o.operation
    for r_old, r_new in zip(op.results, new.results):
        r_old.replace_all_uses_with(r_new)
    op.erase()
    return new.operation


def _const_fill(v: ir.Value):
    """The linalg.fill of a constant that defines `v`, or None."""
    fill = _defining(v, "linalg.fill")
    if fill is None or _defining(fill.operands[0], "arith.constant") is None:
        return None
    return fill


def _is_zero_fill(v: ir.Value) -> bool:
    try:
        fill = v.owner
    except Exception:  # noqa: BLE001 - a block argument: no defining op
        return False
    if not isinstance(fill, ir.Operation) and hasattr(fill, "operation"):
        fill = fill.operation
    if not isinstance(fill, ir.Operation) or fill.name != "linalg.fill":
        return False
    c = fill.operands[0].owner
    c = getattr(c, "operation", c)
    if not isinstance(c, ir.Operation) or c.name != "arith.constant":
        return False
    attr = c.attributes["value"]
    return isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == 0.0


def drop_zero_init(op: ir.Operation) -> bool:
    """A window generic whose window is one element (the gather of a pooling
    gradient with kernel == stride: each output element comes from one dy
    element), accumulating `out + x` into a zero fill, becomes `yield x` into
    the fill's empty tensor: the fill's writes and the generic's re-read of
    them (two passes over the whole input-sized result) go away. 0 + x == x
    (up to the sign of a zero). False: left as is."""
    li = loop_info(op)
    if li is None or len(op.results) != 1:
        return False
    if any(r != 1 for r, it in zip(li.ranges, li.iterators) if it == "reduction"):
        return False
    n_in = len(op.operands) - 1
    init = op.operands[n_in]
    if not _is_zero_fill(init):
        return False
    block = op.regions[0].blocks[0]
    out = block.arguments[n_in]
    yld = list(block.operations)[-1]
    if len(yld.operands) != 1:
        return False
    add = yld.operands[0].owner
    add = getattr(add, "operation", add)
    if not isinstance(add, ir.Operation) or add.name != "arith.addf" or add.parent != op:
        return False
    uses = list(out.uses)
    if len(uses) != 1 or uses[0].owner != add:
        return False
    other = add.operands[1] if add.operands[0] == out else add.operands[0]
    add.results[0].replace_all_uses_with(other)
    add.erase()
    fill = init.owner
    op.operands[n_in] = fill.operands[1]
    return True


def window_script(s: Script, root: str, tag: int, li: LoopInfo, threads: int,
                  key: str = TAG) -> bool:
    """A window op (inputs gathered by tensor.extract): a vector along the
    innermost parallel dim, the other parallel dims tiled by 1 (with threads,
    the outermost big one first split into scf.forall tasks), then the
    reduction (window) dims tiled by 1, unit dims folded, vectorized."""
    its = li.iterators
    par = [d for d, it in enumerate(its) if it == "parallel"]
    if not par:
        return False
    inner = par[-1]
    ranges = li.ranges
    if ranges[inner] < 2:
        return False  # nothing to vectorize along (and a 0-d gather would not verify)
    v = vector_tile(ranges[inner], li.min_bits)
    masked = v == 0   # no divisor of a good vector length: masked vectors, partial last tile
    if masked:
        v = lanes(li.min_bits)
    h = s.match_attr(root, key, tag)
    psizes = [1 if it == "parallel" else 0 for it in its]
    psizes[inner] = v
    work = 1
    for r in ranges:
        work *= r
    if threads > 1 and work >= PARALLEL_MIN_WORK:
        for d in par:
            if d != inner and ranges[d] >= threads and ranges[d] % threads == 0:
                fa = [0] * li.rank
                fa[d] = ranges[d] // threads
                h, _ = s.tile_forall(h, fa)
                break
    t, loops = s.tile(h, psizes)
    rsizes = [1 if it == "reduction" else 0 for it in its]
    if any(rsizes):
        t, loops = s.tile(t, rsizes)
    # fold the unit dims (the window dims above all) inside the innermost loop
    s.patterns(loops[-1], ["linalg.fold_unit_extent_dims_via_slices", "canonicalization"])
    g = s.match_ops(loops[-1], ["linalg.generic"])
    sizes = f" vector_sizes [{v}]" if masked else ""
    s.emit(f"transform.structured.vectorize {g}{sizes} {{vectorize_nd_extract}} : {ANY}")
    return True


def _work(op: ir.Operation) -> int:
    """Iteration-space size (a named pooling op: output elements x window)."""
    if op.name.startswith("linalg.pooling") and len(op.operands) == 3:
        n = 1
        for v in (op.operands[1], op.operands[2]):
            t = static_tensor(v.type)
            if t is None:
                return 1 << 62
            for d in t.shape:
                n *= d
        return n
    return numel(op)


def vectorize_windows_func(func: ir.Operation, threads: int, min_work: int) -> ir.Operation:
    """Generalizes the pooling ops of `func`, rebuilds its window generics with
    tensor.extract and vectorizes them; returns the function."""
    entry = func.regions[0].blocks[0]

    def big(op):
        return not (_work(op) < min_work and in_block(op, entry))

    # one walk for both: the pooling ops (generalized first, then walked
    # again) and the generics
    ops = walk_ops(func, [], lambda o: o.name == "linalg.generic" or o.name.startswith("linalg.pooling"))
    if any(o.name.startswith("linalg.pooling") and big(o) for o in ops):
        func = generalize_func(func, lambda o: o.name.startswith("linalg.pooling") and big(o))
        entry = func.regions[0].blocks[0]
        ops = walk_ops(func, [], lambda o: o.name == "linalg.generic")
    s = Script()
    planned = []
    for op in ops:
        if op.name != "linalg.generic":
            continue
        bad = window_inputs(op)
        if not bad or loop_info(op) is None or not big(op):
            continue
        loc = op.location
        inits = list(op.operands)[len(op.operands) - len(op.results):]
        drop_zero_init(op)
        if emit_rows(op, threads) is None:
            for v in inits:   # (fills dropped by drop_zero_init or emit_rows)
                fill = _defining(v, "linalg.fill")
                if fill is not None and not list(fill.results[0].uses):
                    fill.erase()
            continue
        new = window_to_extract(op, bad)
        li = loop_info(new)
        tag = len(planned)
        mark = len(s.lines)
        seq = s.begin_suppressed("%root")
        if not window_script(s, seq, tag, li, threads):
            del s.lines[mark:]
            continue
        s.end_sequence()
        new.attributes[TAG] = i64(tag)
        planned.append(loc)
    if not planned:
        return func
    s.cse("%root")
    func, error = apply_or_restore(func, s.text())
    left = set()
    for o in walk_ops(func, [], lambda o: TAG in o.attributes):   # (and strip the tags)
        left.add(ir.IntegerAttr(o.attributes[TAG]).value)
        del o.attributes[TAG]
    for tag in sorted(left):
        emit_remark(planned[tag], "msmlir-cpu-vectorize-windows: this window op was not "
                                  "vectorized; it keeps the plain path" + (f": {error}" if error else ""))
    return func


@register_pass("msmlir-cpu-vectorize-windows",
               "Pooling ops and the pooling gradients' window generics -> tensor.extract gathers, "
               "vectorized along the output width (window loops inside)",
               options=CODEGEN_OPTIONS)
def vectorize_windows(module: ir.Operation, *, threads: int, min_work: int):
    for func in list(funcs(module)):
        try:
            vectorize_windows_func(func, threads, min_work)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation
            strip_attrs(module, (TAG,))
            emit_remark(func.location, "msmlir-cpu-vectorize-windows: internal error, the window "
                                       f"ops of this function keep the plain path: {type(e).__name__}: {e}")


# --- contiguous rows (no gathers) -------------------------------------------

def _eval(e, env: dict) -> int:
    """An affine expression at integer dim values."""
    if isinstance(e, ir.AffineDimExpr):
        return env[e.position]
    if isinstance(e, ir.AffineConstantExpr):
        return e.value
    a, b = _eval(e.lhs, env), _eval(e.rhs, env)
    if isinstance(e, ir.AffineAddExpr):
        return a + b
    if isinstance(e, ir.AffineMulExpr):
        return a * b
    if isinstance(e, ir.AffineFloorDivExpr):
        return a // b
    if isinstance(e, ir.AffineCeilDivExpr):
        return -(-a // b)
    if isinstance(e, ir.AffineModExpr):
        return a % b
    raise ValueError(f"affine expression {e}")


def _dims(e) -> set[int]:
    if isinstance(e, ir.AffineDimExpr):
        return {e.position}
    if isinstance(e, ir.AffineConstantExpr):
        return set()
    return _dims(e.lhs) | _dims(e.rhs)


def lane_pattern(e, inner: int, ranges: list[int], v: int) -> list[int] | None:
    """The element offsets, relative to lane 0, that lanes 0..v-1 of a tile
    of the `inner` dim read through the last-dim expression `e`, if they are
    the same for every tile start (a multiple of v) and every value of the
    other dims of `e` (checked exhaustively), non-negative and at most 4v;
    None otherwise (such a read keeps the gather path)."""
    others = sorted(_dims(e) - {inner})
    combos = 1
    for d in others:
        combos *= ranges[d]
    if combos * -(-ranges[inner] // v) > 4096:
        return None
    env = {d: 0 for d in others}
    env[inner] = 0
    base = _eval(e, env)
    pat = []
    for i in range(v):
        env[inner] = i
        pat.append(_eval(e, env) - base)
    if min(pat) < 0 or max(pat) >= 4 * v:
        return None
    for vals in itertools.product(*[range(ranges[d]) for d in others]):
        env = dict(zip(others, vals))
        for t in range(0, ranges[inner], v):
            env[inner] = t
            b = _eval(e, env)
            for i in range(min(v, ranges[inner] - t)):
                env[inner] = t + i
                if _eval(e, env) - b != pat[i]:
                    return None
    return pat


def _pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


class _Text:
    """SSA names and lines of the function emit_rows writes."""

    def __init__(self, loc: str):
        self.lines: list[str] = []
        self.head: list[str] = []
        self.n = 0
        self.loc = loc

    def const(self, text: str) -> str:
        r = self.new()
        self.head.append(f"{r} = {text} loc(#L)")
        return r

    def new(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def op(self, text: str) -> str:
        r = self.new()
        self.lines.append(f"{r} = {text} loc(#L)")
        return r

    def replace(self, op: ir.Operation, lines: list[str], args: list[ir.Value]) -> None:
        """Parses the function `lines` (its signature first, the constants of
        `head` put after it), moves its body before `op` with its arguments
        bound to `args`, and replaces `op` by what it returns."""
        mod = ir.Module.parse("\n".join([f"#L = {self.loc}", lines[0]] + self.head + lines[1:]))
        body = list(mod.body.operations)[0].regions[0].blocks[0]    # (mod must outlive the moves)
        ops = list(body.operations)
        for o in ops[:-1]:
            o.operation.move_before(op)
        for a, real in zip(body.arguments, args):
            a.replace_all_uses_with(real)
        for r_old, r_new in zip(op.results, ops[-1].operands):
            r_old.replace_all_uses_with(r_new)
        op.erase()


_INT_DIVS = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.floordivsi",
             "arith.ceildivsi", "arith.ceildivui")


def _defining(v: ir.Value, name: str):
    """The op named `name` that defines `v`, or None."""
    try:
        o = v.owner
    except Exception:  # noqa: BLE001 - a block argument
        return None
    o = getattr(o, "operation", o)
    return o if isinstance(o, ir.Operation) and o.name == name else None


def rows_plan(op: ir.Operation):
    """The plan of emit_rows for a window generic, (loop info, vector dim,
    lanes, {input: lane pattern}), or why not (a string)."""
    li = loop_info(op)
    if li is None:
        return "no loop info"
    its = li.iterators
    par = [d for d, it in enumerate(its) if it == "parallel"]
    if not par or li.ranges[par[-1]] < 2:
        return "no vector dim"
    inner = par[-1]
    n_in = li.n_inputs
    block = op.regions[0].blocks[0]
    for o in block.operations:
        name = o.operation.name
        if o.operation.regions and len(o.operation.regions) > 0:
            return f"{name} has regions"
        if not (name.startswith("arith.") or name.startswith("math.")
                or name in ("linalg.index", "linalg.yield")):
            return f"{name} in the body"
        if name in _INT_DIVS and _defining(o.operation.operands[1], "arith.constant") is None:
            return f"{name} by a variable (the masked lanes could divide by zero)"
    for i, m in enumerate(li.maps):
        res = list(m.results)
        if i >= n_in:
            if not res or not isinstance(res[-1], ir.AffineDimExpr) or res[-1].position != inner:
                return "output not contiguous along the vector dim"
            continue
        if not list(block.arguments[i].uses):
            continue
        if any(inner in _dims(r) for r in res[:-1]):
            return "vector dim in an outer input dim"
        if not res:
            continue
    rng = li.ranges[inner]
    v0 = min(_pow2(rng), 2 * lanes(li.min_bits))
    reads = [i for i in range(n_in) if list(block.arguments[i].uses) and li.maps[i].results
             and inner in _dims(list(li.maps[i].results)[-1])]
    # a power of two, else a multiple of the windows' divisors (`w floordiv 3`
    # repeats every 3 lanes only from a multiple of 3)
    div = 1
    for i in reads:
        for q in _divisors(list(li.maps[i].results)[-1]):
            div = math.lcm(div, q)
    for v in dict.fromkeys((v0, math.lcm(v0, div), math.lcm(lanes(li.min_bits), div))):
        if v > 4 * lanes(li.min_bits):
            continue
        pats = {i: lane_pattern(list(li.maps[i].results)[-1], inner, li.ranges, v) for i in reads}
        if all(p is not None for p in pats.values()):
            return li, inner, v, pats
    return "no fixed lane pattern"


def _divisors(e) -> set[int]:
    """The constant divisors of floordiv / ceildiv / mod in `e`."""
    if isinstance(e, (ir.AffineDimExpr, ir.AffineConstantExpr)):
        return set()
    out = _divisors(e.lhs) | _divisors(e.rhs)
    if isinstance(e, (ir.AffineFloorDivExpr, ir.AffineCeilDivExpr, ir.AffineModExpr)) \
            and isinstance(e.rhs, ir.AffineConstantExpr):
        out.add(e.rhs.value)
    return out


def _open_for(L: list, T, lo: str, hi: str, step: str, carried: list, types: list):
    """Appends the head of an `scf.for` from lo to hi by step that carries
    `carried` (of `types`) to L; returns (its induction variable, the carried
    values' names inside it, the name of its results)."""
    i = T.new()
    accs = [T.new() for _ in carried]
    res = T.new()
    inits = ", ".join(f"{a} = {c}" for a, c in zip(accs, carried))
    L.append(f"{res}:{len(carried)} = scf.for {i} = {lo} to {hi} step {step} iter_args({inits}) "
             f"-> ({', '.join(types)}) {{")
    return i, accs, res


def _task_slice(m: ir.AffineMap, result_type, split: int, lo: str, chunk: int):
    """(shape, offsets, sizes) of one scf.forall task's slice of an output
    whose indexing map is `m`: `chunk` rows from `lo` along loop `split`, the
    whole extent of every other dim."""
    shape = list(ir.RankedTensorType(result_type).shape)
    offs, sizes = [], []
    for j, r in enumerate(m.results):
        if r.position == split:
            offs.append(lo)
            sizes.append(str(chunk))
            shape[j] = chunk
        else:
            offs.append("0")
            sizes.append(str(shape[j]))
    return shape, offs, sizes


def emit_rows(op: ir.Operation, threads: int) -> str | None:
    """Rewrites a window generic as loops over its other dims with a vector
    of `v` lanes (a power of two, or a multiple of the window's divisors;
    masked tail) along the innermost parallel dim: each input row is one
    contiguous masked transfer_read of the elements its lanes touch, spread
    over the lanes by one vector.shuffle (a stride-2 window: the even or odd
    elements; a pooling gradient's `w floordiv 2`: each element twice); the
    window loops inside, the outputs a vector each carried through them.
    The loop nest is written as MLIR text (a function of the op's operands
    and the values its body captures), parsed, and its ops moved in place of
    the op. None when done, else why not (the caller keeps the gather path)."""
    plan = rows_plan(op)
    if isinstance(plan, str):
        return plan
    li, inner, v, pats = plan
    n_in = li.n_inputs
    n_out = len(op.results)
    block = op.regions[0].blocks[0]
    ranges, its = li.ranges, li.iterators
    operands = list(op.operands)
    # values the body captures from outside: extra arguments
    captured: list[ir.Value] = []
    inside = set()
    for o in block.operations:
        for r in o.results:
            inside.add(r)
    for o in block.operations:
        for x in o.operands:
            if x in inside or any(x == a for a in block.arguments):
                continue
            if not any(x == c for c in captured):
                captured.append(x)
    # outputs initialized by a fill of a constant: their vectors start as its
    # splat and the loops write into the fill's destination (the fill's pass
    # over the whole output and this op's re-read of it go away)
    fills = {}
    for k in range(n_out):
        init = operands[n_in + k]
        if _const_fill(init) is not None:
            fills[k] = _const_fill(init)
            operands[n_in + k] = fills[k].operands[1]
            captured.append(fills[k].operands[0])
    T = _Text(str(op.location))
    L = T.lines
    args = [f"%a{i}: {operands[i].type}" for i in range(len(operands))]
    args += [f"%k{i}: {c.type}" for i, c in enumerate(captured)]
    res_types = [str(r.type) for r in op.results]
    L.append(f"func.func @w({', '.join(args)}) -> ({', '.join(res_types)}) {{")
    c0 = T.const("arith.constant 0 : index")
    c1 = T.const("arith.constant 1 : index")
    splat = {k: T.const(f"vector.broadcast %k{captured.index(f.operands[0])} : "
                        f"{f.operands[0].type} to vector<{v}x{f.operands[0].type}>")
             for k, f in fills.items()}
    const = {}

    def cidx(n):
        if n not in const:
            const[n] = T.const(f"arith.constant {n} : index")
        return const[n]

    rank = li.rank
    iv: dict[int, str] = {}

    def apply(e) -> str:
        if isinstance(e, ir.AffineDimExpr):
            return iv[e.position]
        if isinstance(e, ir.AffineConstantExpr):
            return cidx(e.value)
        ds = ", ".join(iv[d] if d in iv else c0 for d in range(rank))
        return T.op(f"affine.apply affine_map<({', '.join(f'd{d}' for d in range(rank))}) -> ({e})>({ds})")

    out_vals = [f"%a{n_in + k}" for k in range(n_out)]
    out_types = res_types
    par = [d for d in range(rank) if its[d] == "parallel" and d != inner]
    red = [d for d in range(rank) if its[d] == "reduction"]
    work = 1
    for r in ranges:
        work *= r
    split = None
    if threads > 1 and work >= PARALLEL_MIN_WORK:
        for d in par:
            if ranges[d] >= threads and ranges[d] % threads == 0:
                split = d
                break
    local: dict[int, str] = {}       # dims whose output coordinate is relative (the split)
    cur = list(out_vals)             # the output tensors at this nesting level
    cur_types = list(out_types)
    if split is not None:
        chunk = ranges[split] // threads
        shared = [f"%s{k}" for k in range(n_out)]
        fa = T.new()
        outs = ", ".join(f"{s} = {o}" for s, o in zip(shared, cur))
        ch = T.new()
        L.append(f"{fa}:{n_out} = scf.forall ({ch}) in ({threads}) shared_outs({outs}) -> ({', '.join(cur_types)}) {{")
        lo = T.op(f"arith.muli {ch}, {cidx(chunk)} : index")
        sl = []
        sl_types = []
        for k in range(n_out):
            shape, offs, sizes = _task_slice(li.maps[n_in + k], op.results[k].type, split, lo, chunk)
            st = f"tensor<{'x'.join(map(str, shape))}x{ir.RankedTensorType(op.results[k].type).element_type}>"
            s = T.op(f"tensor.extract_slice {shared[k]}[{', '.join(offs)}] [{', '.join(map(str, sizes))}] "
                     f"[{', '.join('1' for _ in sizes)}] : {out_types[k]} to {st}")
            sl.append(s)
            sl_types.append(st)
        cur, cur_types = sl, sl_types
        local[split] = lo
    loop_results_stack = []
    for d in par:
        n = chunk if d == split else ranges[d]
        i, accs, res = _open_for(L, T, c0, cidx(n), c1, cur, cur_types)
        loop_results_stack.append((res, len(cur)))
        if d == split:
            iv[d] = T.op(f"arith.addi {local[split]}, {i} : index")
            local[d] = i
        else:
            iv[d] = i
        cur = accs
    # vector tiles of the inner dim
    rng = ranges[inner]
    tiles = -(-rng // v)
    if tiles > 1:
        t, accs, res = _open_for(L, T, c0, cidx(rng), cidx(v), cur, cur_types)
        loop_results_stack.append((res, len(cur)))
        iv[inner] = t
        cur = accs
    else:
        iv[inner] = c0
    # Every transfer that can reach past its row is masked explicitly
    # (vector.create_mask of the elements left): msmlir-cpu-lower-vectors
    # would otherwise split an out-of-bounds transfer through a stack buffer,
    # which crashed now and then with 32-lane vectors (a 32-byte aligned
    # alloca stored as one 128-byte vector, the suspected cause)
    if rng % v:
        left = T.op(f"arith.subi {cidx(rng)}, {iv[inner]} : index")
        tail = ", " + T.op(f"vector.create_mask {left} : vector<{v}xi1>")
        bounds = ""
    else:
        tail, bounds = "", " {in_bounds = [true]}"
    # output coordinates (relative along the split dim) and initial vectors
    def out_coords(k):
        m = li.maps[n_in + k]
        return ", ".join(iv_out(r.position) for r in m.results)

    def iv_out(d):
        return local[d] if d == split else iv[d]

    elt = [ir.RankedTensorType(operands[i].type).element_type for i in range(len(operands))]
    pads = {}

    def pad(t):
        key = str(t)
        if key not in pads:
            if str(t).startswith(("f", "bf")):
                pads[key] = T.const(f"arith.constant 0.0 : {t}")
            else:
                pads[key] = T.const(f"arith.constant 0 : {t}")
        return pads[key]

    vinit = []
    for k in range(n_out):
        et = elt[n_in + k]
        if k in fills:   # (a splat of the fill's value: the fill is not read)
            vinit.append(splat[k])
            continue
        if not list(block.arguments[n_in + k].uses):   # (overwritten: not read)
            vinit.append(T.const(f"vector.broadcast {pad(et)} : {et} to vector<{v}x{et}>"))
            continue
        p = pad(et)
        vinit.append(T.op(f"vector.transfer_read {cur[k]}[{out_coords(k)}], {p}{tail}{bounds} : "
                          f"{cur_types[k]}, vector<{v}x{et}>"))
    step = T.const(f"arith.constant dense<[{', '.join(map(str, range(v)))}]> : vector<{v}xindex>")
    # window (reduction) loops
    vaccs = vinit
    vtypes = [f"vector<{v}x{elt[n_in + k]}>" for k in range(n_out)]
    red_stack = []
    for d in red:
        if ranges[d] == 1:
            iv[d] = c0
            continue
        i, accs, res = _open_for(L, T, c0, cidx(ranges[d]), c1, vaccs, vtypes)
        red_stack.append(res)
        iv[d] = i
        vaccs = accs
    # the body, lane-wise
    names: dict = {}
    isvec: dict = {}
    for k, c in enumerate(captured):
        names[c] = f"%k{k}"
        isvec[c] = False
    for i in range(n_in):
        a = block.arguments[i]
        if not list(a.uses):
            continue
        m = li.maps[i]
        res = list(m.results)
        et = elt[i]
        if i in pats:
            p = pats[i]
            n = _pow2(max(p) + 1)
            coords = ", ".join(apply(r) for r in res)
            width = ir.RankedTensorType(operands[i].type).shape[-1]
            left = T.op(f"arith.subi {cidx(width)}, {coords.split(', ')[-1]} : index")
            mask = T.op(f"vector.create_mask {left} : vector<{n}xi1>")
            raw = T.op(f"vector.transfer_read %a{i}[{coords}], {pad(et)}, {mask} : "
                       f"{operands[i].type}, vector<{n}x{et}>")
            if p == list(range(v)) and n == v:
                names[a] = raw
            else:
                names[a] = T.op(f"vector.shuffle {raw}, {raw} [{', '.join(map(str, p))}] : vector<{n}x{et}>, vector<{n}x{et}>")
            isvec[a] = True
        else:
            coords = ", ".join(apply(r) for r in res)
            names[a] = T.op(f"tensor.extract %a{i}[{coords}] : {operands[i].type}")
            isvec[a] = False
    for k in range(n_out):
        names[block.arguments[n_in + k]] = vaccs[k]
        isvec[block.arguments[n_in + k]] = True
    yielded = None
    for o in block.operations:
        o = o.operation
        if o.name == "linalg.yield":
            yielded = list(o.operands)
            break
        if o.name == "linalg.index":
            d = ir.IntegerAttr(o.attributes["dim"]).value
            if d == inner:
                b = T.op(f"vector.broadcast {iv[inner]} : index to vector<{v}xindex>")
                names[o.results[0]] = T.op(f"arith.addi {b}, {step} : vector<{v}xindex>")
                isvec[o.results[0]] = True
            else:
                names[o.results[0]] = iv[d]
                isvec[o.results[0]] = False
            continue
        vec = any(isvec[x] for x in o.operands)
        ops = []
        tys = []
        for x in o.operands:
            if vec and not isvec[x]:
                ops.append(T.op(f"vector.broadcast {names[x]} : {x.type} to vector<{v}x{x.type}>"))
                tys.append(f"vector<{v}x{x.type}>")
            else:
                ops.append(names[x])
                tys.append(f"vector<{v}x{x.type}>" if vec else str(x.type))
        rts = [f"vector<{v}x{r.type}>" if vec else str(r.type) for r in o.results]
        attrs = ", ".join(f"{o.attributes[j].name} = {o.attributes[j].attr}" for j in range(len(o.attributes)))
        attrs = f" {{{attrs}}}" if attrs else ""
        r = T.new()
        lhs = f"{r}:{len(rts)}" if len(rts) > 1 else r
        L.append(f"{lhs} = \"{o.name}\"({', '.join(ops)}){attrs} : ({', '.join(tys)}) -> ({', '.join(rts)}) loc(#L)")
        for j, x in enumerate(o.results):
            names[x] = f"{r}#{j}" if len(rts) > 1 else r
            isvec[x] = vec
    outs = []
    for k, x in enumerate(yielded):
        if isvec[x]:
            outs.append(names[x])
        else:
            outs.append(T.op(f"vector.broadcast {names[x]} : {x.type} to {vtypes[k]}"))
    for res in reversed(red_stack):
        L.append(f"scf.yield {', '.join(outs)} : {', '.join(vtypes)} loc(#L)")
        L.append("} loc(#L)")
        outs = [f"{res}#{k}" for k in range(n_out)]
    writes = []
    for k in range(n_out):
        writes.append(T.op(f"vector.transfer_write {outs[k]}, {cur[k]}[{out_coords(k)}]{tail}{bounds} : "
                           f"{vtypes[k]}, {cur_types[k]}"))
    vals = writes
    for res, n in reversed(loop_results_stack):
        L.append(f"scf.yield {', '.join(vals)} : {', '.join(cur_types)} loc(#L)")
        L.append("} loc(#L)")
        vals = [f"{res}#{k}" for k in range(n)]
    if split is not None:
        L.append("scf.forall.in_parallel {")
        for k in range(n_out):
            _, offs, sizes = _task_slice(li.maps[n_in + k], op.results[k].type, split, lo, chunk)
            L.append(f"tensor.parallel_insert_slice {vals[k]} into {shared[k]}[{', '.join(offs)}] "
                     f"[{', '.join(sizes)}] [{', '.join('1' for _ in sizes)}] : {cur_types[k]} into {out_types[k]} loc(#L)")
        L.append("} loc(#L)")
        L.append("} loc(#L)")
        vals = [f"{fa}#{k}" for k in range(n_out)]
    L.append(f"return {', '.join(vals)} : {', '.join(out_types)}")
    L.append("}")
    T.replace(op, L, list(operands) + list(captured))
    return None
