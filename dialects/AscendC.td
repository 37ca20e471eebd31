//===- AscendC.td - the Ascend C level of msmlir -------------*- tablegen -*-===//
//
// ascendc: one Ascend C kernel as the objects of the Ascend C programming
// model (GM tensors, TPipe queues and TBuf scratch with their TPosition,
// CopyIn / Compute / CopyOut stages, DataCopy / DataCopyPad, vector
// instructions with counts, pipe synchronisation, tiles split over cores by
// GetBlockIdx). mskernel-lower-to-ascend produces it; the emitter
// (passes/ascend/emit_ascendc.py) prints Ascend C from it and nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef MSMLIR_ASCENDC_TD
#define MSMLIR_ASCENDC_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/BuiltinAttributes.td"

def AscendC_Dialect : Dialect {
  let name = "ascendc";
  let cppNamespace = "::msmlir::ascendc";
  let summary = "the Ascend C programming model: queues, buffers, stages, DataCopy, vector instructions";
  let description = [{
    One `ascendc.kernel` per Ascend C kernel. Its body declares the kernel's
    GM tensors (`ascendc.global`), TPipe queues (`ascendc.queue`, a TPosition,
    a depth: 2 is double buffering) and TBuf scratch (`ascendc.tbuf`), then
    loops over tiles split over the cores (`ascendc.for_tiles`) running the
    stages (`ascendc.stage <CopyIn>` / `<Compute>` / `<CopyOut>`), whose
    bodies are Ascend C calls, one op each. The verifiers enforce the rules
    the IR can know statically: capacity per memory level (UB 192 KiB,
    L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB), buffer sizes aligned (32 B for
    UB/L1, 512 B for L0A/L0B, 64 B for L0C), queue depths in [1, 8],
    DataCopy lengths multiples of 32 bytes (else DataCopyPad), the tile
    split covering every tile.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class AscendC_Op<string mnemonic, list<Trait> traits = []> :
    Op<AscendC_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def AscendC_Position : I32EnumAttr<"Position", "TPosition of a buffer (its memory level)", [
    I32EnumAttrCase<"GM", 0>, I32EnumAttrCase<"VECIN", 1>, I32EnumAttrCase<"VECOUT", 2>,
    I32EnumAttrCase<"VECCALC", 3>, I32EnumAttrCase<"A1", 4>, I32EnumAttrCase<"B1", 5>,
    I32EnumAttrCase<"A2", 6>, I32EnumAttrCase<"B2", 7>, I32EnumAttrCase<"CO1", 8>,
    I32EnumAttrCase<"CO2", 9>
  ]> {
  let cppNamespace = "::msmlir::ascendc";
  let genSpecializedAttr = 0;
}
def AscendC_PositionAttr : EnumAttr<AscendC_Dialect, AscendC_Position, "position"> {
  let summary = "TPosition: VECIN/VECOUT/VECCALC (UB), A1/B1 (L1), A2 (L0A), B2 (L0B), CO1 (L0C), CO2 (UB)";
  let assemblyFormat = "`<` $value `>`";
}

def AscendC_Stage : I32EnumAttr<"Stage", "a stage of an Ascend C kernel", [
    I32EnumAttrCase<"CopyIn", 0>, I32EnumAttrCase<"Compute", 1>, I32EnumAttrCase<"CopyOut", 2>,
    I32EnumAttrCase<"LoadCols", 3>, I32EnumAttrCase<"StartChunk", 4>, I32EnumAttrCase<"Finish", 5>,
    I32EnumAttrCase<"CopyOutCols", 6>
  ]> {
  let cppNamespace = "::msmlir::ascendc";
  let genSpecializedAttr = 0;
}
def AscendC_StageAttr : EnumAttr<AscendC_Dialect, AscendC_Stage, "stage"> {
  let summary = "CopyIn / Compute / CopyOut (per tile); LoadCols, StartChunk, Finish, CopyOutCols (column chunks)";
  let assemblyFormat = "`<` $value `>`";
}

def AscendC_Event : I32EnumAttr<"Event", "HardEvent: producer pipe _ consumer pipe", [
    I32EnumAttrCase<"MTE2_V", 0>, I32EnumAttrCase<"V_MTE2", 1>, I32EnumAttrCase<"V_MTE3", 2>,
    I32EnumAttrCase<"MTE3_V", 3>, I32EnumAttrCase<"V_S", 4>, I32EnumAttrCase<"S_V", 5>,
    I32EnumAttrCase<"S_MTE3", 6>, I32EnumAttrCase<"MTE3_S", 7>, I32EnumAttrCase<"MTE2_S", 8>,
    I32EnumAttrCase<"S_MTE2", 9>
  ]> {
  let cppNamespace = "::msmlir::ascendc";
  let genSpecializedAttr = 0;
}
def AscendC_EventAttr : EnumAttr<AscendC_Dialect, AscendC_Event, "event"> {
  let summary = "a HardEvent between two pipes (MTE2: GM->UB, V: vector, MTE3: UB->GM, S: scalar)";
  let assemblyFormat = "`<` $value `>`";
}

def AscendC_VecApi : I32EnumAttr<"VecApi", "an Ascend C vector instruction", [
    I32EnumAttrCase<"Add", 0>, I32EnumAttrCase<"Sub", 1>, I32EnumAttrCase<"Mul", 2>,
    I32EnumAttrCase<"Div", 3>, I32EnumAttrCase<"Max", 4>, I32EnumAttrCase<"Min", 5>,
    I32EnumAttrCase<"Adds", 6>, I32EnumAttrCase<"Muls", 7>, I32EnumAttrCase<"Maxs", 8>,
    I32EnumAttrCase<"Mins", 9>, I32EnumAttrCase<"Exp", 10>, I32EnumAttrCase<"Ln", 11>,
    I32EnumAttrCase<"Abs", 12>, I32EnumAttrCase<"Sqrt", 13>, I32EnumAttrCase<"Rsqrt", 14>,
    I32EnumAttrCase<"Tanh", 15>, I32EnumAttrCase<"Erf", 16>, I32EnumAttrCase<"Log1p", 17>,
    I32EnumAttrCase<"Sin", 18>, I32EnumAttrCase<"Cos", 19>, I32EnumAttrCase<"Floor", 20>,
    I32EnumAttrCase<"Ceil", 21>, I32EnumAttrCase<"Duplicate", 22>, I32EnumAttrCase<"Cast", 23>,
    I32EnumAttrCase<"Compare", 24>, I32EnumAttrCase<"Select", 25>, I32EnumAttrCase<"ReduceSum", 26>,
    I32EnumAttrCase<"ReduceMax", 27>, I32EnumAttrCase<"ReduceMin", 28>
  ]> {
  let cppNamespace = "::msmlir::ascendc";
  let genSpecializedAttr = 0;
}
def AscendC_VecApiAttr : EnumAttr<AscendC_Dialect, AscendC_VecApi, "api"> {
  let summary = "the vector API of an ascendc.vec";
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// The kernel and its declarations
//===----------------------------------------------------------------------===//

def AscendC_KernelOp : AscendC_Op<"kernel",
    [IsolatedFromAbove, SymbolTable, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "one Ascend C kernel (`extern \"C\" __global__ __aicore__`)";
  let description = [{
    `name` is the kernel's symbol in the emitted source, `func` the kernel
    function it was lowered from, `block_dim` the cores it is launched on and
    `tiling` the host tiling data (field name -> value, in TILING_DATA_FIELD_DEF
    order), `kind` the kernel function's mskernel.kind, `ub_bytes` the UB the
    planner budgeted. `masks`: i1 values as f32 0/1 masks (Compare/Select
    scratch); `halves`: f16 values (Cast through a half scratch). `mode` is `row` (tiles of rows, reductions over the last axes)
    or `col` (column chunks accumulated over all rows). The body declares the
    buffers and holds the tile loop.

    The verifier sums the bytes reserved per memory level (a queue reserves
    depth x bytes) and checks them against the level's capacity
    (`ub_scale` > 1 multiplies UB: only the planted `ub-overflow` bug of the
    emulator's tests sets it).
    ```mlir
    ascendc.kernel "ascend_add" from @add soc "Ascend910B" mode "row" block_dim 4
        tiling {totalRows = 64 : i64, ...} { ... }
    ```
  }];
  let arguments = (ins StrAttr:$name, FlatSymbolRefAttr:$func, StrAttr:$soc, StrAttr:$mode,
                       I64Attr:$block_dim, DictionaryAttr:$tiling,
                       OptionalAttr<StrAttr>:$kind, OptionalAttr<I64Attr>:$ub_bytes,
                       UnitAttr:$masks, UnitAttr:$halves, OptionalAttr<I64Attr>:$ub_scale);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `from` $func `soc` $soc `mode` $mode `block_dim` $block_dim `tiling` $tiling
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def AscendC_GlobalOp : AscendC_Op<"global", [Symbol, HasParent<"KernelOp">]> {
  let summary = "a GlobalTensor on a GM_ADDR kernel parameter";
  let description = [{
    `param` is the kernel parameter (`x<i>` inputs, `y<k>` outputs), `numel`
    its elements; `scalar`: read once in Init (GetValue(0)); `unused`: not
    read by the kernel.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$param, I64Attr:$numel, TypeAttr:$elem,
                       UnitAttr:$scalar, UnitAttr:$unused);
  let assemblyFormat = "$sym_name `param` $param `:` $numel `x` $elem attr-dict";
  let hasVerifier = 1;
}

def AscendC_QueueOp : AscendC_Op<"queue", [Symbol, HasParent<"KernelOp">]> {
  let summary = "a TQue<position, depth> with `bytes` per buffer (TPipe::InitBuffer)";
  let description = [{
    `depth` buffers of `bytes` each (reserved: a multiple of the level's
    alignment); `depth` 2 is double buffering (the next tile's CopyIn under
    this tile's Compute). `size` is the InitBuffer length as the kernel
    computes it from its tiling data; `bytes` its value for the largest
    tile, rounded up to the alignment.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, AscendC_PositionAttr:$position, I64Attr:$depth,
                       I64Attr:$bytes, TypeAttr:$elem, StrAttr:$size);
  let assemblyFormat = "$sym_name $position `depth` $depth `bytes` $bytes `:` $elem `size` $size attr-dict";
  let hasVerifier = 1;
}

def AscendC_TBufOp : AscendC_Op<"tbuf", [Symbol, HasParent<"KernelOp">]> {
  let summary = "a TBuf<position> scratch buffer of `bytes` (TPipe::InitBuffer)";
  let description = [{
    Scratch (VECCALC: intermediate tiles, row buffers, reduction work
    space). `member` is the C++ member when it is not `<sym_name>Buf`;
    `data`: the values of a constant column (a static array loaded by
    LoadCols).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, AscendC_PositionAttr:$position, I64Attr:$bytes,
                       TypeAttr:$elem, StrAttr:$size, OptionalAttr<StrAttr>:$member,
                       OptionalAttr<DenseF32ArrayAttr>:$data);
  let assemblyFormat = "$sym_name $position `bytes` $bytes `:` $elem `size` $size attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control: tiles over cores, stages, rows
//===----------------------------------------------------------------------===//

def AscendC_ForTilesOp : AscendC_Op<"for_tiles", [NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a loop over tiles; with `per_core`: split over the cores by GetBlockIdx()";
  let description = [{
    Core b runs tiles [b * per_core, min((b + 1) * per_core, tiles)). The
    verifier checks that the kernel's block_dim cores cover every tile and
    that none is idle. Without `per_core` the loop is a plain loop over
    `tiles` (column mode's row tiles inside a column chunk).
  }];
  let arguments = (ins I64Attr:$tiles, OptionalAttr<I64Attr>:$per_core);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$tiles (`per_core` $per_core^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def AscendC_StageOp : AscendC_Op<"stage", [NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a stage of the kernel (a member function of the kernel class)";
  let arguments = (ins AscendC_StageAttr:$stage);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$stage attr-dict-with-keyword $body";
}

def AscendC_ForRowsOp : AscendC_Op<"for_rows", [NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "`for (uint32_t r = 0; r < rows; ++r)`: per-row instructions of a tile";
  let arguments = (ins OptionalAttr<StrAttr>:$note);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

//===----------------------------------------------------------------------===//
// Queue and buffer access
//===----------------------------------------------------------------------===//

def AscendC_AllocTensorOp : AscendC_Op<"alloc_tensor"> {
  let summary = "LocalTensor `local` = queue.AllocTensor()";
  let arguments = (ins FlatSymbolRefAttr:$queue, StrAttr:$local, TypeAttr:$elem);
  let assemblyFormat = "$queue `->` $local `:` $elem attr-dict";
  let hasVerifier = 1;
}
def AscendC_EnQueOp : AscendC_Op<"enque"> {
  let summary = "queue.EnQue(local)";
  let arguments = (ins FlatSymbolRefAttr:$queue, StrAttr:$local);
  let assemblyFormat = "$queue `,` $local attr-dict";
  let hasVerifier = 1;
}
def AscendC_DeQueOp : AscendC_Op<"deque"> {
  let summary = "LocalTensor `local` = queue.DeQue()";
  let arguments = (ins FlatSymbolRefAttr:$queue, StrAttr:$local, TypeAttr:$elem);
  let assemblyFormat = "$queue `->` $local `:` $elem attr-dict";
  let hasVerifier = 1;
}
def AscendC_FreeTensorOp : AscendC_Op<"free_tensor"> {
  let summary = "queue.FreeTensor(local)";
  let arguments = (ins FlatSymbolRefAttr:$queue, StrAttr:$local);
  let assemblyFormat = "$queue `,` $local attr-dict";
  let hasVerifier = 1;
}
def AscendC_GetBufOp : AscendC_Op<"get_buf"> {
  let summary = "LocalTensor `local` (default: the tbuf's name) = tbuf.Get()";
  let arguments = (ins FlatSymbolRefAttr:$buf, OptionalAttr<StrAttr>:$local);
  let assemblyFormat = "$buf (`->` $local^)? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement, vector instructions, synchronisation
//===----------------------------------------------------------------------===//

def AscendC_DataCopyOp : AscendC_Op<"data_copy"> {
  let summary = "DataCopy: a copy whose every block is a multiple of 32 bytes";
  let description = [{
    `dst`/`src` are Ascend C tensor expressions (a local, or a GM tensor at
    an offset). Either `count` elements (one block) or DataCopyParams
    `params` = [blockCount, blockLen, srcStride, dstStride] (blockLen and
    strides in 32-byte blocks). `block_bytes` is the block length in bytes
    of every tile shape the kernel runs (the full tile, the tails): the
    verifier requires each to be a non-zero multiple of 32.
  }];
  let arguments = (ins StrAttr:$dst, StrAttr:$src, OptionalAttr<StrAttr>:$count,
                       OptionalAttr<StrArrayAttr>:$params, DenseI64ArrayAttr:$block_bytes,
                       OptionalAttr<StrAttr>:$note);
  let assemblyFormat = "$dst `,` $src attr-dict";
  let hasVerifier = 1;
}

def AscendC_DataCopyPadOp : AscendC_Op<"data_copy_pad"> {
  let summary = "DataCopyPad: blocks of any byte length (tails that are not 32-byte multiples)";
  let description = [{
    DataCopyExtParams `params` = [blockCount, blockLen (bytes), srcStride,
    dstStride, rsv] and, GM -> local, the padding parameters of element type
    `pad`. `block_bytes`: the block length in bytes per tile shape.
    `count`: the element count a plain DataCopy of the same data would use
    (only the planted `unaligned-copy` bug of the emulator's tests emits it).
  }];
  let arguments = (ins StrAttr:$dst, StrAttr:$src, StrArrayAttr:$params,
                       OptionalAttr<TypeAttr>:$pad, DenseI64ArrayAttr:$block_bytes,
                       OptionalAttr<StrAttr>:$count, OptionalAttr<StrAttr>:$note);
  let assemblyFormat = "$dst `,` $src attr-dict";
  let hasVerifier = 1;
}

def AscendC_VecOp : AscendC_Op<"vec"> {
  let summary = "one vector instruction over `count` elements";
  let description = [{
    `api(args..., count)`: `args` are the instruction's operands (destination
    first) as Ascend C expressions, `count` its element count expression and
    `elems` its value for the largest tile (the verifier requires it > 0).
    ```mlir
    ascendc.vec <Adds> ["tF0", "in0", "1.0f"] count "cntF" elems 1024
    ```
  }];
  let arguments = (ins AscendC_VecApiAttr:$api, StrArrayAttr:$args, StrAttr:$count, I64Attr:$elems,
                       OptionalAttr<StrAttr>:$note);
  let assemblyFormat = "$api $args `count` $count `elems` $elems attr-dict";
  let hasVerifier = 1;
}

def AscendC_SetFlagOp : AscendC_Op<"set_flag"> {
  let summary = "SetFlag<HardEvent>(0)";
  let arguments = (ins AscendC_EventAttr:$event);
  let assemblyFormat = "$event attr-dict";
}
def AscendC_WaitFlagOp : AscendC_Op<"wait_flag"> {
  let summary = "WaitFlag<HardEvent>(0)";
  let arguments = (ins AscendC_EventAttr:$event);
  let assemblyFormat = "$event attr-dict";
}
def AscendC_SyncOp : AscendC_Op<"sync"> {
  let summary = "SetFlag + WaitFlag of one HardEvent (the consumer pipe waits for the producer)";
  let arguments = (ins AscendC_EventAttr:$event, OptionalAttr<StrAttr>:$note);
  let assemblyFormat = "$event attr-dict";
}

def AscendC_ScalarOp : AscendC_Op<"scalar"> {
  let summary = "a statement of the scalar unit (GetValue / SetValue, scalar arithmetic), as Ascend C";
  let arguments = (ins StrAttr:$stmt);
  let assemblyFormat = "$stmt attr-dict";
}

def AscendC_NoteOp : AscendC_Op<"note"> {
  let summary = "a comment carried into the emitted source (what the next instructions compute)";
  let arguments = (ins StrAttr:$text);
  let assemblyFormat = "$text attr-dict";
}

#endif // MSMLIR_ASCENDC_TD
