//===- MSKernel.td - the kernel-level dialect of msmlir -----*- tablegen -*-===//
//
// mskernel: kernels produced by graph-kernel fusion and the memory hierarchy
// they are scheduled onto. Later stages (polyhedral scheduling, data movement,
// Ascend ops) extend this dialect.
//
//===----------------------------------------------------------------------===//

#ifndef MSMLIR_MSKERNEL_TD
#define MSMLIR_MSKERNEL_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def MSKernel_Dialect : Dialect {
  let name = "mskernel";
  let cppNamespace = "::msmlir::mskernel";
  let summary = "kernel-level dialect: fused kernels and memory scopes";
  let description = [{
    The kernel level of msmlir. Graph-kernel fusion outlines clusters of
    `mindir` ops into `mskernel.fused` kernels; their bodies are later lowered
    to linalg/tensor, scheduled (polyhedral, per memory level) and bufferized.
    Buffers carry the memory level they live in as their memory space, e.g.
    `memref<16x16xf16, #mskernel.scope<ub>>` (Ascend unified buffer) or
    `memref<32xf32, #mskernel.scope<shared>>` (GPU shared memory).
  }];
  let useDefaultAttributePrinterParser = 1;
}

def MSKernel_MemoryScope : I32EnumAttr<"MemoryScope", "memory level a buffer lives in", [
    I32EnumAttrCase<"global", 0>,  // device/global memory (GM on Ascend)
    I32EnumAttrCase<"ub", 1>,      // Ascend unified buffer
    I32EnumAttrCase<"l1", 2>,      // Ascend L1 buffer
    I32EnumAttrCase<"l0a", 3>,     // Ascend cube input A
    I32EnumAttrCase<"l0b", 4>,     // Ascend cube input B
    I32EnumAttrCase<"l0c", 5>,     // Ascend cube accumulator
    I32EnumAttrCase<"shared", 6>,  // GPU shared memory
    I32EnumAttrCase<"local", 7>    // registers / thread-private
  ]> {
  let cppNamespace = "::msmlir::mskernel";
  let genSpecializedAttr = 0;
}

def MSKernel_ScopeAttr : EnumAttr<MSKernel_Dialect, MSKernel_MemoryScope, "scope"> {
  let summary = "memory scope, usable as a memref memory space";
  let description = [{
    One of `global` (device/global memory; GM on Ascend), `ub` (Ascend
    unified buffer), `l1` (Ascend L1), `l0a`/`l0b` (Ascend cube inputs),
    `l0c` (Ascend cube accumulator), `shared` (GPU shared memory) and `local`
    (registers / thread-private).
    ```mlir
    %b = memref.alloc() : memref<4xf32, #mskernel.scope<ub>>
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def MSKernel_KernelTarget : I32EnumAttr<"KernelTarget", "device a kernel runs on", [
    I32EnumAttrCase<"cpu", 0>,
    I32EnumAttrCase<"gpu", 1>,
    I32EnumAttrCase<"ascend", 2>
  ]> {
  let cppNamespace = "::msmlir::mskernel";
  let genSpecializedAttr = 0;
}

def MSKernel_TargetAttr : EnumAttr<MSKernel_Dialect, MSKernel_KernelTarget, "target"> {
  let summary = "device of a kernel: cpu, gpu or ascend";
  let assemblyFormat = "`<` $value `>`";
}

def MSKernel_FusionKind : I32EnumAttr<"FusionKind", "what a fused kernel's body computes", [
    I32EnumAttrCase<"compute", 0>,    // an @msmlir.kernel compute definition (linalg.generic stages)
    I32EnumAttrCase<"elemwise", 1>,   // fusion cluster: elementwise ops of one shape
    I32EnumAttrCase<"broadcast", 2>,  // fusion cluster: elementwise ops with broadcasts
    I32EnumAttrCase<"reduce", 3>,     // fusion cluster: dominated by a reduction
    I32EnumAttrCase<"matmul", 4>,     // fusion cluster: dominated by a matmul
    I32EnumAttrCase<"conv", 5>,       // fusion cluster: dominated by a convolution
    I32EnumAttrCase<"opaque", 6>      // anything else
  ]> {
  let cppNamespace = "::msmlir::mskernel";
  let genSpecializedAttr = 0;
}

def MSKernel_KindAttr : EnumAttr<MSKernel_Dialect, MSKernel_FusionKind, "kind"> {
  let summary = "kind of a fused kernel, read by the kernel scheduler";
  let assemblyFormat = "`<` $value `>`";
}

def MSKernel_FusedOp : Op<MSKernel_Dialect, "fused",
    [IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">,
     RecursiveMemoryEffects]> {
  let summary = "one graph kernel: an isolated region computing its results from its operands";
  let description = [{
    Produced by `@msmlir.kernel` compute definitions and by graph-kernel
    fusion. The region's block arguments are the kernel inputs;
    `mskernel.yield` returns the kernel outputs.

    Two enum attributes describe the kernel; both are elided when they have
    their default value:

    * `target` (`#mskernel.target<...>`, default `cpu`): the device, one of
      `cpu`, `gpu`, `ascend`.
    * `kind` (`#mskernel.kind<...>`, default `opaque`): what the body is, as
      the kernel scheduler reads it.
      - `compute`: an `@msmlir.kernel` compute definition (a body of
        `linalg.generic` stages).
      - `elemwise`, `broadcast`, `reduce`, `matmul`, `conv`: the dominant
        pattern of a graph-kernel-fusion cluster (elementwise ops of one
        shape; elementwise ops with broadcasts; a reduction; a matmul; a
        convolution, each with the elementwise ops fused around it).
      - `opaque`: anything else (scheduled without a pattern-specific
        template).

    The verifier checks that the body's arguments match the inputs one to one
    in type and that the yielded values match the results; the enum
    attributes only accept their listed cases (checked by the parser).
    ```mlir
    %r = mskernel.fused(%a, %b) {kind = #mskernel.kind<elemwise>, target = #mskernel.target<gpu>}
        : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
      %s = mindir.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      mskernel.yield %s : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs,
                       DefaultValuedAttr<MSKernel_TargetAttr,
                                         "::msmlir::mskernel::KernelTarget::cpu">:$target,
                       DefaultValuedAttr<MSKernel_KindAttr,
                                         "::msmlir::mskernel::FusionKind::opaque">:$kind);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body
  }];
  let hasVerifier = 1;
}

def MSKernel_YieldOp : Op<MSKernel_Dialect, "yield",
    [Pure, Terminator, ReturnLike, HasParent<"FusedOp">]> {
  let summary = "returns the results of a fused kernel";
  let description = [{
    Terminates the body of `mskernel.fused`; the yielded types must be the
    kernel's result types. May be omitted when the kernel has no results.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
}

#endif // MSMLIR_MSKERNEL_TD
