"""msmlir-gpu-device-buffers: the host side of a GPU program on device buffers, for gpu-to-llvm.

Why: after msmlir-gpu-pipeline the host functions still work on host memrefs
(the arguments are numpy arrays, temporaries are memref.alloc, constants are
memref.get_global, result copies are memref.copy), which the kernels cannot
read. This pass makes every buffer a kernel sees a device buffer, so that a
graph's intermediate tensors stay on the device across its kernels and only
the arguments cross the bus:

  - each memref argument of a public function gets a device twin
    (gpu.alloc): inputs are copied in (gpu.memcpy) at entry, outputs copied
    out before each return; which arguments are inputs comes from the
    function's `msmlir.gpu_inputs` attribute (the number of leading input
    arguments; the rest are the out-parameters of buffer-results-to-out-params),
    set by msmlir.gpu.host; without it every argument is copied both ways;
  - arguments listed in the function's `msmlir.gpu_resident` attribute (an
    array of argument indices) are device buffers already: the caller keeps
    them on the device across calls (msmlir.gpu.host: Parameters and
    optimizer state, and the out-parameters of their updates), so they get
    no twin and no copy;
  - memref.alloc / memref.dealloc -> gpu.alloc / gpu.dealloc;
  - memref.get_global -> a gpu.alloc filled from the host global (freed at
    the return);
  - memref.copy -> gpu.memcpy (device to device);
  - views (expand/collapse_shape, subview, cast, reinterpret_cast) and
    gpu.launch_func work on device memrefs as they are;
  - a result computed into a temporary and then copied whole into its
    out-parameter (bufferization's result copies: one device-to-device copy
    of every updated parameter per step) is computed in the out-parameter
    instead, when nothing else reads or writes either buffer in between.

Kernel functions must have been inlined into the public functions first
(`inline`). What else the host code does cannot work on device buffers
(memref.load/store of a tensor's element: control flow on tensors, host
callbacks, calls): an error at that op. Then func.func(gpu-async-region)
chains everything on one stream and gpu-to-llvm lowers the gpu ops to the
runtime calls of MLIR's CUDA runtime (mgpuMemAlloc, mgpuMemcpy,
mgpuLaunchKernel, ...).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu

from ..registry import PassFailure, register_pass

INPUTS_ATTR = "msmlir.gpu_inputs"
RESIDENT_ATTR = "msmlir.gpu_resident"
_VIEWS = {"memref.expand_shape", "memref.collapse_shape", "memref.subview", "memref.cast",
          "memref.reinterpret_cast", "memref.extract_strided_metadata",
          "memref.assume_alignment"}
_FINE = _VIEWS | {"gpu.launch_func", "func.return", "memref.dim"}


class _Error(Exception):
    def __init__(self, loc, msg):
        super().__init__(msg)
        self.loc = loc


def _c_strides(shape) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def _device_alloc(t: ir.MemRefType) -> ir.Value:
    return gpu.AllocOp(ir.MemRefType.get(t.shape, t.element_type), None, [], [], []).results[0]


def _memcpy(dst: ir.Value, src: ir.Value) -> None:
    gpu.MemcpyOp(None, [], dst, src)


def _rewrite(fn: ir.Operation) -> None:
    block = fn.regions[0].blocks[0]
    args = list(block.arguments)
    n_in = ir.IntegerAttr(fn.attributes[INPUTS_ATTR]).value if INPUTS_ATTR in fn.attributes \
        else None
    resident = _resident(fn, len(args))
    returns = [o.operation for o in block.operations if o.operation.name == "func.return"]
    entry = block.operations[0]
    freed = []                       # device buffers freed at every return
    with ir.InsertionPoint(entry), fn.location:
        twins = []
        for i, a in enumerate(args):
            if not isinstance(a.type, ir.MemRefType):
                twins.append(None)
                continue
            t = ir.MemRefType(a.type)
            if t.get_strides_and_offset() != (_c_strides(t.shape), 0):
                raise _Error(fn.location, "msmlir-gpu-device-buffers: a public function's "
                             f"argument {i} has a strided layout ({t})")
            if i in resident:              # a device buffer already (the caller's)
                twins.append(None)
                continue
            d = _device_alloc(t)
            uses = list(a.uses)
            for u in uses:
                u.owner.operands[u.operand_number] = d
            if n_in is None or i < n_in:
                _memcpy(d, a)
            twins.append(d)
            freed.append(d)
    for o in [o.operation for o in block.operations]:
        _rewrite_op(o, freed)
    _elide_result_copies(block)
    for ret in returns:
        with ir.InsertionPoint(ret), ret.location:
            for i, (a, d) in enumerate(zip(args, twins)):
                if d is not None and (n_in is None or i >= n_in):
                    _memcpy(a, d)
            for d in freed:
                gpu.DeallocOp(None, [], d)


def _all_uses(v: ir.Value) -> list[ir.Operation]:
    """The ops using `v`, directly or through views of it."""
    out = []
    for u in v.uses:
        o = u.owner
        o = o.operation if hasattr(o, "operation") else o
        out.append(o)
        if o.name in _VIEWS:
            for r in o.results:
                out += _all_uses(r)
    return out


def _elide_result_copies(block: ir.Block) -> None:
    """gpu.alloc %t; ...writes/reads of %t...; gpu.memcpy %d, %t; gpu.dealloc %t
    -> the same work on %d, when %d is defined before %t (an argument or an
    entry twin), has %t's type, and neither buffer is used in between or %t
    after (the copy then moved nothing that %d would not hold)."""
    for op in list(block.operations):
        op = op.operation
        if op.name != "gpu.memcpy" or len(op.operands) != 2:
            continue
        dst, src = op.operands[0], op.operands[1]
        alloc = src.owner
        if not isinstance(alloc, ir.OpView) and not isinstance(alloc, ir.Operation):
            continue
        alloc = alloc.operation
        if alloc.name != "gpu.alloc" or list(alloc.operands) or alloc.block != block or \
                dst.type != src.type:
            continue
        d_def = dst.owner
        if not isinstance(d_def, ir.Block):
            d_def = d_def.operation
            if d_def.block != block or not d_def.is_before_in_block(alloc):
                continue
        ok = True
        deallocs = []
        for u in _all_uses(src):
            if u == op:
                continue
            if u.block != block:
                ok = False
            elif u.name == "gpu.dealloc" and op.is_before_in_block(u):
                deallocs.append(u)
            elif not u.is_before_in_block(op):
                ok = False
        for u in _all_uses(dst):
            if u != op and u.block == block and alloc.is_before_in_block(u) and \
                    u.is_before_in_block(op):
                ok = False
            elif u != op and u.block != block:
                ok = False
        if not ok:
            continue
        src.replace_all_uses_with(dst)
        for o in deallocs + [op, alloc]:
            o.erase()


def _resident(fn: ir.Operation, n_args: int) -> set[int]:
    """The argument indices of `msmlir.gpu_resident` (checked)."""
    if RESIDENT_ATTR not in fn.attributes:
        return set()
    attr = fn.attributes[RESIDENT_ATTR]
    try:
        out = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(attr)]
    except ValueError:
        raise _Error(fn.location, f"msmlir-gpu-device-buffers: '{RESIDENT_ATTR}' must be an "
                     f"array of argument indices, got {attr}") from None
    fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    for i in out:
        if not 0 <= i < n_args or not isinstance(fn_type.inputs[i], ir.MemRefType):
            raise _Error(fn.location, f"msmlir-gpu-device-buffers: '{RESIDENT_ATTR}' names "
                         f"argument {i}, which is not a memref argument of the function")
    return set(out)


def _rewrite_op(o: ir.Operation, freed: list) -> None:
    name = o.name
    if name in _FINE or name.startswith(("arith.", "gpu.")):
        return
    with ir.InsertionPoint(o), o.location:
        if name == "memref.alloc" and not list(o.operands):
            d = _device_alloc(ir.MemRefType(o.results[0].type))
            o.results[0].replace_all_uses_with(d)
        elif name == "memref.dealloc":
            gpu.DeallocOp(None, [], o.operands[0])
        elif name == "memref.get_global":
            d = _device_alloc(ir.MemRefType(o.results[0].type))
            host = o.clone()
            o.results[0].replace_all_uses_with(d)
            _memcpy(d, host.results[0])
            freed.append(d)
        elif name == "memref.copy":
            _memcpy(o.operands[1], o.operands[0])
        else:
            raise _Error(o.location, f"msmlir-gpu-device-buffers: host op '{name}' cannot work "
                         "on device buffers (inline the kernel functions first; control flow "
                         "on tensor values, host callbacks and dynamic shapes are not supported "
                         "by the GPU host runtime)")
    o.erase()


@register_pass("msmlir-gpu-device-buffers",
               "Host functions of a GPU program on device buffers: arguments copied to and "
               "from device twins, allocs/globals/copies as gpu.alloc/gpu.memcpy (run after "
               "inline, before gpu-async-region and gpu-to-llvm)")
def device_buffers(module: ir.Operation):
    try:
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "func.func" and op.regions[0].blocks and \
                    "sym_visibility" not in op.attributes:
                _rewrite(op)
    except _Error as e:
        e.loc.emit_error(str(e))
        raise PassFailure() from None
