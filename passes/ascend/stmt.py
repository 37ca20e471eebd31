"""Statements of an Ascend C kernel stage (no pass): one record per Ascend C
call, the unit both the ascendc IR and the emitted source are made of.

The vector planner (vector.py) and the IR builder (to_ascendc.py) create
records; to_ascendc.py turns each into one `ascendc` op (`mlir(rec, statics)`),
and the emitter (emit_ascendc.py) turns each op back into a record
(`from_op`) whose text is the Ascend C statement. A record is a `str` (its
Ascend C text) with the structure as fields, so one renderer serves both
directions and the statement texts the cost model counts stay strings.

    vec        Api(args..., count)                      ascendc.vec
    copy       DataCopy(dst, src, count | DataCopyParams) ascendc.data_copy
    copy_pad   DataCopyPad(dst, src, DataCopyExtParams[, pad]) ascendc.data_copy_pad
    rows       for (r < rows) { items }                 ascendc.for_rows
    sync       SetFlag + WaitFlag of one event          ascendc.sync
    set_flag / wait_flag                                ascendc.set_flag / wait_flag
    alloc / enque / deque / free / get                  queue and TBuf access
    scalar     a scalar-unit statement (GetValue / SetValue), kept as text
    note       a comment
"""
from __future__ import annotations

CT = {"float": "f32", "half": "f16", "uint8_t": "ui8", "int32_t": "i32"}
CT_OF = {v: k for k, v in CT.items()}
SIZE = {"float": 4, "half": 2, "uint8_t": 1, "int32_t": 4}


class Stmt(str):
    """An Ascend C statement: its text, `op` (the record kind) and the fields."""

    def __new__(cls, _text: str, _op: str, **fields):
        s = str.__new__(cls, _text)
        s.op = _op
        s.fields = fields
        s.__dict__.update(fields)      # instance attributes shadow str's methods (count)
        return s


def _noted(text: str, note: str | None) -> str:
    return f"{text}  // {note}" if note else text


def vec(api: str, *args: str, note: str | None = None) -> Stmt:
    """One vector instruction: `api(args..., count)` (the last argument is the count)."""
    return Stmt(_noted(f"{api}({', '.join(args)});", note), "vec", api=api, args=list(args[:-1]),
                count=args[-1], note=note)


def copy(dst: str, src: str, count: str | None = None, params: list | None = None, ct: str = "float",
         note: str | None = None) -> Stmt:
    """DataCopy of `count` elements, or with DataCopyParams (blockLen, strides in 32-byte blocks)."""
    arg = count if params is None else f"DataCopyParams{{{', '.join(params)}}}"
    return Stmt(_noted(f"DataCopy({dst}, {src}, {arg});", note), "copy", dst=dst, src=src, count=count,
                params=params, ct=ct, note=note)


def pad_params(ct: str) -> str:
    """DataCopyPad's padding parameters for element type ct: no padding."""
    return f"DataCopyPadExtParams<{ct}>{{false, 0, 0, {'0.0f' if ct == 'float' else '0'}}}"


def copy_pad(dst: str, src: str, params: list, pad: str | None, ct: str = "float", count: str | None = None,
             note: str | None = None) -> Stmt:
    """DataCopyPad with DataCopyExtParams (blockLen in bytes); `pad`: the element type of
    the GM -> local padding parameters (None to GM). `count`: the elements a plain
    DataCopy of the same data would copy (the planted unaligned-copy bug)."""
    tail = f", {pad_params(pad)}" if pad else ""
    return Stmt(_noted(f"DataCopyPad({dst}, {src}, DataCopyExtParams{{{', '.join(params)}}}{tail});", note),
                "copy_pad", dst=dst, src=src, params=list(params), pad=pad, ct=ct, count=count, note=note)


def rows(*items: Stmt, note: str | None = None) -> Stmt:
    return Stmt(_noted(f"for (uint32_t r = 0; r < rows; ++r) {{ {' '.join(items)} }}", note), "rows",
                items=list(items), note=note)


def sync(event: str, note: str | None = None) -> Stmt:
    return Stmt(_noted(f"SetFlag<HardEvent::{event}>(0); WaitFlag<HardEvent::{event}>(0);", note), "sync",
                event=event, note=note)


def set_flag(event: str) -> Stmt:
    return Stmt(f"SetFlag<HardEvent::{event}>(0);", "set_flag", event=event)


def wait_flag(event: str) -> Stmt:
    return Stmt(f"WaitFlag<HardEvent::{event}>(0);", "wait_flag", event=event)


def scalar(text: str) -> Stmt:
    return Stmt(text, "scalar", text=text)


def note(text: str) -> Stmt:
    return Stmt(f"// {text}", "note", text=text)


def alloc(queue: str, local: str, ct: str) -> Stmt:
    return Stmt(f"LocalTensor<{ct}> {local} = {queue}.AllocTensor<{ct}>();", "alloc", queue=queue, local=local, ct=ct)


def deque(queue: str, local: str, ct: str) -> Stmt:
    return Stmt(f"LocalTensor<{ct}> {local} = {queue}.DeQue<{ct}>();", "deque", queue=queue, local=local, ct=ct)


def enque(queue: str, local: str) -> Stmt:
    return Stmt(f"{queue}.EnQue({local});", "enque", queue=queue, local=local)


def free(queue: str, local: str) -> Stmt:
    return Stmt(f"{queue}.FreeTensor({local});", "free", queue=queue, local=local)


def get(buf: str, ct: str, member: str, local: str | None = None) -> Stmt:
    """LocalTensor of TBuf `buf` (C++ member `member`), named `local` (default: buf)."""
    return Stmt(f"LocalTensor<{ct}> {local or buf} = {member}.Get<{ct}>();", "get", buf=buf, ct=ct,
                member=member, local=local)


# ----------------------------------------------------------------------------- records <-> ascendc ops
def q(s: str) -> str:
    """An MLIR string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _strs(xs) -> str:
    return "[" + ", ".join(q(x) for x in xs) + "]"


def _note_attr(rec) -> list:
    return [f"note = {q(rec.note)}"] if rec.fields.get("note") else []


def _attrs(items: list) -> str:
    return f" {{{', '.join(items)}}}" if items else ""


def mlir(rec: Stmt, statics, indent: str) -> list[str]:
    """The ascendc op(s) of record `rec` as lines of MLIR. `statics(kind, rec)`
    gives the static figures the verifiers read: ('elems', rec) -> the count of
    the largest tile, ('bytes', rec) -> the block bytes of every tile shape."""
    k = rec.op
    if k == "vec":
        return [f"{indent}ascendc.vec <{rec.api}> {_strs(rec.args)} count {q(rec.count)} elems "
                f"{statics('elems', rec)}{_attrs(_note_attr(rec))}"]
    if k in ("copy", "copy_pad"):
        items = [f"block_bytes = array<i64: {', '.join(map(str, statics('bytes', rec)))}>"]
        if rec.count is not None:
            items.append(f"count = {q(rec.count)}")
        if rec.params is not None:
            items.append(f"params = {_strs(rec.params)}")
        if k == "copy_pad" and rec.pad:
            items.append(f"pad = {CT[rec.pad]}")
        items += _note_attr(rec)
        name = "data_copy" if k == "copy" else "data_copy_pad"
        return [f"{indent}ascendc.{name} {q(rec.dst)}, {q(rec.src)}{_attrs(items)}"]
    if k == "rows":
        out = [f"{indent}ascendc.for_rows{' attributes' + _attrs(_note_attr(rec)) if rec.note else ''} {{"]
        for it in rec.items:
            out += mlir(it, statics, indent + "  ")
        return out + [f"{indent}}}"]
    if k in ("sync", "set_flag", "wait_flag"):
        return [f"{indent}ascendc.{k} <{rec.event}>{_attrs(_note_attr(rec))}"]
    if k == "scalar":
        return [f"{indent}ascendc.scalar {q(rec.text)}"]
    if k == "note":
        return [f"{indent}ascendc.note {q(rec.text)}"]
    if k in ("alloc", "deque"):
        name = "alloc_tensor" if k == "alloc" else "deque"
        return [f"{indent}ascendc.{name} @{rec.queue} -> {q(rec.local)} : {CT[rec.ct]}"]
    if k in ("enque", "free"):
        name = "enque" if k == "enque" else "free_tensor"
        return [f"{indent}ascendc.{name} @{rec.queue}, {q(rec.local)}"]
    if k == "get":
        return [f"{indent}ascendc.get_buf @{rec.buf}" + (f" -> {q(rec.local)}" if rec.local else "")]
    raise ValueError(f"no ascendc op for a '{k}' statement")


def _s(op, name):
    from mlir import ir
    a = op.attributes[name] if name in op.attributes else None
    return None if a is None else ir.StringAttr(a).value


def _strlist(op, name):
    from mlir import ir
    if name not in op.attributes:
        return None
    return [ir.StringAttr(x).value for x in ir.ArrayAttr(op.attributes[name])]


def _enum(op, name) -> str:
    t = str(op.attributes[name])
    return t[t.index("<") + 1:t.rindex(">")]


def _ct_of(t) -> str:
    return CT_OF[str(t)]


def from_op(op, bufs: dict) -> Stmt:
    """The record of ascendc op `op` (an ir.Operation); `bufs`: tbuf symbol -> (ct, member)."""
    from mlir import ir
    n = op.name
    if n == "ascendc.vec":
        return vec(_enum(op, "api"), *_strlist(op, "args"), _s(op, "count"), note=_s(op, "note"))
    if n == "ascendc.data_copy":
        return copy(_s(op, "dst"), _s(op, "src"), _s(op, "count"), _strlist(op, "params"), note=_s(op, "note"))
    if n == "ascendc.data_copy_pad":
        pad = _ct_of(ir.TypeAttr(op.attributes["pad"]).value) if "pad" in op.attributes else None
        return copy_pad(_s(op, "dst"), _s(op, "src"), _strlist(op, "params"), pad, count=_s(op, "count"),
                        note=_s(op, "note"))
    if n == "ascendc.for_rows":
        items = [from_op(o.operation, bufs) for o in op.regions[0].blocks[0].operations]
        return rows(*items, note=_s(op, "note"))
    if n == "ascendc.sync":
        return sync(_enum(op, "event"), note=_s(op, "note"))
    if n == "ascendc.set_flag":
        return set_flag(_enum(op, "event"))
    if n == "ascendc.wait_flag":
        return wait_flag(_enum(op, "event"))
    if n == "ascendc.scalar":
        return scalar(_s(op, "stmt"))
    if n == "ascendc.note":
        return note(_s(op, "text"))
    if n in ("ascendc.alloc_tensor", "ascendc.deque"):
        que = ir.FlatSymbolRefAttr(op.attributes["queue"]).value
        ct = _ct_of(ir.TypeAttr(op.attributes["elem"]).value)
        return (alloc if n == "ascendc.alloc_tensor" else deque)(que, _s(op, "local"), ct)
    if n in ("ascendc.enque", "ascendc.free_tensor"):
        que = ir.FlatSymbolRefAttr(op.attributes["queue"]).value
        return (enque if n == "ascendc.enque" else free)(que, _s(op, "local"))
    if n == "ascendc.get_buf":
        b = ir.FlatSymbolRefAttr(op.attributes["buf"]).value
        ct, member = bufs[b]
        return get(b, ct, member, _s(op, "local"))
    raise ValueError(f"'{n}' is not a statement of an ascendc stage")
