//===- MindIR.td - the graph-level dialect of msmlir --------*- tablegen -*-===//
//
// MindIR: MindSpore's graph IR as an MLIR dialect. Tensor semantics, static
// shapes, NumPy/MindSpore broadcasting. Every op's result type is inferred in
// C++ (lib/MindIROps.cpp) where it can be, so the Python frontend builds ops
// without computing shapes itself, and the verifier re-checks the inference.
//
//===----------------------------------------------------------------------===//

#ifndef MSMLIR_MINDIR_TD
#define MSMLIR_MINDIR_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MindIR_Dialect : Dialect {
  let name = "mindir";
  let cppNamespace = "::msmlir::mindir";
  let summary = "MindSpore's graph-level IR (MindIR) as an MLIR dialect";
  let description = [{
    Graph-level tensor operations with MindSpore primitive semantics. Functions
    are `func.func`, control flow is `scf` on tensors. Lowered to
    linalg/tensor/arith/math by `convert-mindir-to-linalg`.

    Conventions shared by all operations:

    * Tensors are ranked and statically shaped. Element types are `f16`,
      `bf16`, `f32`, `f64`, `i1` (bool), `i8`, `i32` and `i64`; integers are
      signed (signless in MLIR, interpreted as two's complement), `i1` is
      unsigned (false = 0, true = 1).
    * Binary elementwise operations broadcast like NumPy (shapes are aligned
      on the right; a dim of size 1 stretches). Their operands must share the
      element type: the frontend inserts `mindir.cast` for mixed types.
    * Axes may be negative (counted from the end). Reductions take `axes`
      (empty = all axes) and `keep_dims`.
    * Result types are inferred in C++ from the operands and attributes
      (`InferTypeOpInterface`) and re-checked by the verifier, so shape errors
      are reported at the op's location. Most ops print the full functional
      type, `(operand types) -> result types`, to keep the IR readable.
    * Default-valued attributes (MindSpore's defaults) are elided when printed.
    * Attributes with a fixed set of values are ODS enums printed as
      `#mindir.MNEMONIC<CASE>`, e.g. `pad_mode = #mindir.pad_mode<same>`,
      `approximate = #mindir.approximate<none>`,
      `data_format = #mindir.data_format<NHWC>`.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def MI_FloatElem : AnyTypeOf<[F16, BF16, F32, F64], "float (f16, bf16, f32, f64)">;
def MI_IntElem : AnyTypeOf<[I8, I32, I64], "integer (i8, i32, i64)">;
def MI_NumElem : AnyTypeOf<[F16, BF16, F32, F64, I8, I32, I64],
                           "number (f16, bf16, f32, f64, i8, i32, i64)">;
def MI_AnyElem : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I32, I64],
                           "f16, bf16, f32, f64, i1, i8, i32 or i64">;

// All mindir tensors are ranked and statically shaped, and small enough that
// their element count and byte size fit in int64.
def MI_RepresentableSizePred : CPred<"::msmlir::mindir::hasRepresentableSize($_self)">;
class MI_TensorOf<list<Type> elems> :
  RankedTensorOf<elems, [HasStaticShapePred, MI_RepresentableSizePred],
                 "statically shaped tensor (at most 2^63-1 bytes)">;
def MI_Tensor : MI_TensorOf<[MI_AnyElem]>;
def MI_FloatTensor : MI_TensorOf<[MI_FloatElem]>;
def MI_IntTensor : MI_TensorOf<[MI_IntElem]>;
def MI_NumTensor : MI_TensorOf<[MI_NumElem]>;
def MI_BoolTensor : MI_TensorOf<[I1]>;

// Attribute shorthands with MindSpore defaults.
class MI_I64Array<string default = "{}"> :
  DefaultValuedAttr<DenseI64ArrayAttr, default>;
def MI_Axes : MI_I64Array<"{}">;
def MI_KeepDims : DefaultValuedAttr<BoolAttr, "false">;

//===----------------------------------------------------------------------===//
// Enum attributes
//===----------------------------------------------------------------------===//
// Each enum is an I32EnumAttr (C++ enum class + stringify/symbolize, Python
// IntEnum in msmlir.dialects.mindir) wrapped in a dialect EnumAttr printed as
// `#mindir.MNEMONIC<CASE>`. The parser rejects any other case, so the
// C++ inference and verifiers never see an unknown value.

def MindIR_PadMode : I32EnumAttr<"PadMode", "padding mode of a convolution/pooling window", [
    I32EnumAttrCase<"valid", 0>,   // no padding
    I32EnumAttrCase<"same", 1>,    // output = ceil(in / stride)
    I32EnumAttrCase<"pad", 2>      // explicit `pad` = [top, bottom, left, right]
  ]> {
  let cppNamespace = "::msmlir::mindir";
  let genSpecializedAttr = 0;
}
def MindIR_PadModeAttr : EnumAttr<MindIR_Dialect, MindIR_PadMode, "pad_mode"> {
  let summary = "window padding mode: valid, same or pad";
  let assemblyFormat = "`<` $value `>`";
}

def MindIR_GeluApproximate : I32EnumAttr<"GeluApproximate", "GELU formula", [
    I32EnumAttrCase<"tanh", 0>,    // tanh approximation (MindSpore GeLU primitive)
    I32EnumAttrCase<"none", 1>     // exact erf form
  ]> {
  let cppNamespace = "::msmlir::mindir";
  let genSpecializedAttr = 0;
}
def MindIR_GeluApproximateAttr : EnumAttr<MindIR_Dialect, MindIR_GeluApproximate, "approximate"> {
  let summary = "GELU formula: tanh (approximation) or none (erf)";
  let assemblyFormat = "`<` $value `>`";
}

def MindIR_DataFormat : I32EnumAttr<"DataFormat", "position of the channel dim", [
    I32EnumAttrCase<"NCHW", 0>,    // channels at dim 1
    I32EnumAttrCase<"NHWC", 1>     // channels last
  ]> {
  let cppNamespace = "::msmlir::mindir";
  let genSpecializedAttr = 0;
}
def MindIR_DataFormatAttr : EnumAttr<MindIR_Dialect, MindIR_DataFormat, "data_format"> {
  let summary = "channel layout: NCHW (channels at dim 1) or NHWC (channels last)";
  let assemblyFormat = "`<` $value `>`";
}

def MindIR_ReduceOp : I32EnumAttr<"ReduceOp", "how a collective combines the ranks' values", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"prod", 3>
  ]> {
  let cppNamespace = "::msmlir::mindir";
  let genSpecializedAttr = 0;
}
def MindIR_ReduceOpAttr : EnumAttr<MindIR_Dialect, MindIR_ReduceOp, "reduce_op"> {
  let summary = "reduction of a collective: sum, max, min or prod (MindSpore ReduceOp)";
  let assemblyFormat = "`<` $value `>`";
}

// A defvar (an anonymous record), so the generated Python op builders look up
// the attribute builder of MindIR_PadModeAttr.
defvar MI_PadMode = DefaultValuedAttr<MindIR_PadModeAttr, "::msmlir::mindir::PadMode::valid">;

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

class MindIR_Op<string mnemonic, list<Trait> traits = []> :
    Op<MindIR_Dialect, mnemonic, traits>;

// Result type inferred in C++ from operands and attributes (InferTypeOpAdaptor);
// the printed form keeps the full functional type so IR stays readable.
//
// The C API infers result types before it fills in default-valued attributes,
// so the raw entry point below completes the properties first
// (inferWithDefaults in lib/MindIR.h) and then calls the adaptor overload that
// each op implements in lib/MindIROps.cpp.
class MI_InferredOp<string mnemonic, list<Trait> traits = []> :
    MindIR_Op<mnemonic, !listconcat(traits, [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    static ::llvm::LogicalResult inferReturnTypes(::mlir::MLIRContext *,
        std::optional<::mlir::Location>, Adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &);
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
        std::optional<::mlir::Location> loc, ::mlir::ValueRange operands,
        ::mlir::DictionaryAttr attrs, ::mlir::OpaqueProperties props,
        ::mlir::RegionRange regions, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::msmlir::mindir::inferWithDefaults<$cppClass>(ctx, loc, operands, attrs,
                                                            props, regions, inferred);
    }
  }];
}

class MI_UnaryOp<string mnemonic, Type T, list<Trait> traits = []> :
    MindIR_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType])> {
  let arguments = (ins T:$x);
  let results = (outs T:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let description = [{
    Elementwise; the result has the type of the operand.
    ```mlir
    %y = mindir.}] # mnemonic # [{ %x : tensor<2x3xf32>
    ```
  }];
}
class MI_FloatUnaryOp<string mnemonic, list<Trait> traits = []> :
    MI_UnaryOp<mnemonic, MI_FloatTensor, traits>;
class MI_NumUnaryOp<string mnemonic, list<Trait> traits = []> :
    MI_UnaryOp<mnemonic, MI_NumTensor, traits>;

// Broadcasting binary op; both operands share the element type.
class MI_BinaryOp<string mnemonic, Type T, list<Trait> traits = []> :
    MI_InferredOp<mnemonic, traits> {
  let arguments = (ins T:$lhs, T:$rhs);
  let results = (outs T:$result);
  let description = [{
    Elementwise with NumPy broadcasting. Both operands must have the same
    element type; the result has the broadcast shape and that element type.
    ```mlir
    %r = mindir.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}
class MI_ArithOp<string mnemonic, list<Trait> traits = []> :
    MI_BinaryOp<mnemonic, MI_NumTensor, traits>;
class MI_CompareOp<string mnemonic, list<Trait> traits = []> :
    MI_BinaryOp<mnemonic, MI_Tensor, traits> {
  let results = (outs MI_BoolTensor:$result);
  let description = [{
    Elementwise comparison with NumPy broadcasting; the operands share the
    element type and the result is `i1` of the broadcast shape. Floats compare
    as IEEE (every comparison with NaN is false except `not_equal`); integers
    compare signed, `i1` unsigned (false < true).
    ```mlir
    %r = mindir.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    ```
  }];
  let hasFolder = 1;
}

class MI_ReduceOp<string mnemonic, list<Trait> traits = []> :
    MI_InferredOp<mnemonic, traits> {
  let arguments = (ins MI_NumTensor:$x, MI_Axes:$axes, MI_KeepDims:$keep_dims);
  let results = (outs MI_NumTensor:$y);
  let description = [{
    Reduces over `axes` (empty = all axes; negative axes count from the end;
    no axis may repeat). With `keep_dims` the reduced dims stay as size 1,
    otherwise they are removed. The element type is kept.
    ```mlir
    %s = mindir.}] # mnemonic # [{ %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
    ```
  }];
  let hasFolder = 1;
}

class MI_ArgReduceOp<string mnemonic> : MI_InferredOp<mnemonic> {
  let arguments = (ins MI_NumTensor:$x,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       MI_KeepDims:$keep_dims);
  let results = (outs MI_TensorOf<[I32]>:$y);
  let description = [{
    Index (`i32`, as MindSpore's default `output_type`) along `axis` (default
    -1); ties resolve to the first index. With `keep_dims` the axis stays as
    size 1. The input must have rank >= 1.
  }];
}

// Attributes shared by conv2d and its backprop ops (MindSpore Conv2D).
defvar MI_ConvAttrs = (ins MI_I64Array<"{1, 1}">:$stride,
                           MI_PadMode:$pad_mode,
                           MI_I64Array<"{0, 0, 0, 0}">:$pad,
                           MI_I64Array<"{1, 1}">:$dilation,
                           DefaultValuedAttr<I64Attr, "1">:$group);
// Attributes shared by the pooling ops (MindSpore MaxPool/AvgPool).
defvar MI_PoolAttrs = (ins DenseI64ArrayAttr:$kernel_size,
                           MI_I64Array<"{1, 1}">:$strides,
                           MI_PadMode:$pad_mode,
                           MI_I64Array<"{0, 0, 0, 0}">:$pad);

defvar MI_WindowDoc = [{
    Window attributes (MindSpore semantics): `stride`/`strides`, `dilation`
    and `kernel_size` have two values [h, w]. `pad_mode` (an enum,
    `#mindir.pad_mode<...>`) is `valid` (the default: no padding, output =
    floor((in - effective_kernel) / stride) + 1), `same` (output =
    ceil(in / stride); the total padding is split with the extra row/column at
    the bottom/right, as MindSpore/TF) or `pad` (explicit `pad` = [top, bottom,
    left, right]); `pad` must be all zero unless `pad_mode` is `pad`.
}];

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

def MindIR_ConstantOp : MindIR_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "dense constant tensor";
  let description = [{
    The result type is the type of `value` (any `ElementsAttr`: `dense<...>`,
    `dense_resource<...>`, ...). Folders of other ops produce constants through
    the dialect's constant materializer.
    ```mlir
    %c = mindir.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs MI_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def MindIR_FillOp : MindIR_Op<"fill", [Pure]> {
  let summary = "tensor of the given type filled with one scalar value";
  let description = [{
    `value` is a typed scalar attribute whose type is the result element type.
    Folds to a splat `mindir.constant`.
    ```mlir
    %t = mindir.fill 1.5 : f32 : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs MI_Tensor:$output);
  let assemblyFormat = "$value attr-dict `:` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MindIR_ZerosLikeOp : MI_UnaryOp<"zeros_like", MI_Tensor> {
  let summary = "zeros with the shape and type of the input";
  let description = [{
    Folds to a splat `mindir.constant` (the input's values are not read).
  }];
  let hasFolder = 1;
}
def MindIR_OnesLikeOp : MI_UnaryOp<"ones_like", MI_Tensor> {
  let summary = "ones with the shape and type of the input";
  let description = [{
    Folds to a splat `mindir.constant` (`true` for `i1`).
  }];
  let hasFolder = 1;
}

def MindIR_ArangeOp : MindIR_Op<"arange", [Pure]> {
  let summary = "1-D range [start, limit) with step delta";
  let description = [{
    Element i is `start + i * delta`; the result has
    `max(0, ceil((limit - start) / delta))` elements (checked against the
    result type). `delta` must not be zero.
    ```mlir
    %r = mindir.arange {start = 0.0 : f64, limit = 5.0 : f64} : tensor<5xi32>
    ```
  }];
  let arguments = (ins F64Attr:$start, F64Attr:$limit,
                       DefaultValuedAttr<F64Attr, "1.0">:$delta);
  let results = (outs MI_TensorOf<[MI_NumElem]>:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def MindIR_RandomUniformOp : MindIR_Op<"random_uniform", [Pure]> {
  let summary = "stateless seeded uniform random tensor in [minval, maxval)";
  let description = [{
    Counter-based: element i is a hash of (seed, i), so results do not depend
    on the schedule and are reproducible on every target. Two ops with the
    same seed and type produce the same tensor (so they may be CSE'd). The
    optional `offset` (a 0-d i64 tensor) is mixed into the key: the frontend
    feeds it a counter that advances at every execution, so a compiled graph
    draws fresh numbers each run (MindSpore's stateful RNG) and stays
    reproducible under `set_seed`.
    Requires `minval < maxval`.
    ```mlir
    %u = mindir.random_uniform {seed = 42 : i64} : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins I64Attr:$seed,
                       DefaultValuedAttr<F64Attr, "0.0">:$minval,
                       DefaultValuedAttr<F64Attr, "1.0">:$maxval,
                       Optional<0DTensorOf<[I64]>>:$offset);
  let results = (outs MI_FloatTensor:$output);
  let assemblyFormat = "(`offset` `(` $offset^ `:` type($offset) `)`)? attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def MindIR_RandomNormalOp : MindIR_Op<"random_normal", [Pure]> {
  let summary = "stateless seeded normal random tensor (Box-Muller)";
  let description = [{
    Counter-based like `random_uniform`; `mean + stddev * N(0, 1)` with the
    normal sample made by Box-Muller from two uniform hashes of (seed, i).
    Requires `stddev >= 0`.
    ```mlir
    %n = mindir.random_normal {seed = 7 : i64, stddev = 0.02 : f64} : tensor<16xf32>
    ```
  }];
  let arguments = (ins I64Attr:$seed,
                       DefaultValuedAttr<F64Attr, "0.0">:$mean,
                       DefaultValuedAttr<F64Attr, "1.0">:$stddev,
                       Optional<0DTensorOf<[I64]>>:$offset);
  let results = (outs MI_FloatTensor:$output);
  let assemblyFormat = "(`offset` `(` $offset^ `:` type($offset) `)`)? attr-dict `:` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

def MindIR_NegOp : MI_NumUnaryOp<"neg"> {
  let summary = "elementwise negation, -x";
  let hasFolder = 1;
}
def MindIR_AbsOp : MI_NumUnaryOp<"abs"> {
  let summary = "elementwise absolute value, |x|";
  let hasFolder = 1;
}
def MindIR_SignOp : MI_NumUnaryOp<"sign"> {
  let summary = "elementwise sign: -1, 0 or 1 (0 for +-0.0, NaN for NaN)";
}
def MindIR_SquareOp : MI_NumUnaryOp<"square"> {
  let summary = "elementwise square, x * x";
  let hasFolder = 1;
}
def MindIR_ReluOp : MI_NumUnaryOp<"relu"> {
  let summary = "rectified linear unit, max(x, 0)";
  let hasFolder = 1;
}
def MindIR_ExpOp : MI_FloatUnaryOp<"exp"> { let summary = "elementwise exponential, e^x"; }
def MindIR_LogOp : MI_FloatUnaryOp<"log"> { let summary = "elementwise natural logarithm"; }
def MindIR_Log1pOp : MI_FloatUnaryOp<"log1p"> { let summary = "elementwise log(1 + x)"; }
def MindIR_Expm1Op : MI_FloatUnaryOp<"expm1"> { let summary = "elementwise e^x - 1"; }
def MindIR_SqrtOp : MI_FloatUnaryOp<"sqrt"> { let summary = "elementwise square root"; }
def MindIR_RsqrtOp : MI_FloatUnaryOp<"rsqrt"> { let summary = "elementwise reciprocal square root, 1 / sqrt(x)"; }
def MindIR_ReciprocalOp : MI_FloatUnaryOp<"reciprocal"> { let summary = "elementwise reciprocal, 1 / x"; }
def MindIR_SinOp : MI_FloatUnaryOp<"sin"> { let summary = "elementwise sine"; }
def MindIR_CosOp : MI_FloatUnaryOp<"cos"> { let summary = "elementwise cosine"; }
def MindIR_TanhOp : MI_FloatUnaryOp<"tanh"> { let summary = "elementwise hyperbolic tangent"; }
def MindIR_SigmoidOp : MI_FloatUnaryOp<"sigmoid"> { let summary = "logistic sigmoid, 1 / (1 + e^-x)"; }
def MindIR_ErfOp : MI_FloatUnaryOp<"erf"> { let summary = "Gauss error function"; }
def MindIR_SoftplusOp : MI_FloatUnaryOp<"softplus"> { let summary = "softplus, log(1 + e^x)"; }
def MindIR_SiluOp : MI_FloatUnaryOp<"silu"> { let summary = "SiLU (swish), x * sigmoid(x)"; }
def MindIR_FloorOp : MI_FloatUnaryOp<"floor"> {
  let summary = "elementwise rounding toward -inf";
  let hasFolder = 1;
}
def MindIR_CeilOp : MI_FloatUnaryOp<"ceil"> {
  let summary = "elementwise rounding toward +inf";
  let hasFolder = 1;
}
def MindIR_RoundOp : MI_FloatUnaryOp<"round"> {
  let summary = "elementwise rounding half to even (MindSpore Round, numpy.round)";
  let hasFolder = 1;
}
def MindIR_StopGradientOp : MI_UnaryOp<"stop_gradient", MI_Tensor> {
  let summary = "identity whose gradient is zero";
  let description = [{
    Forward: returns `x`. Autodiff treats the result as a constant. It is
    removed only after autodiff (it has no folder on purpose).
  }];
}

def MindIR_LeakyReluOp : MindIR_Op<"leaky_relu", [Pure, SameOperandsAndResultType]> {
  let summary = "leaky ReLU: x if x >= 0 else alpha * x";
  let description = [{
    `alpha` defaults to 0.2 (MindSpore nn.LeakyReLU).
    ```mlir
    %y = mindir.leaky_relu %x {alpha = 1.000000e-02 : f64} : tensor<8xf32>
    ```
  }];
  let arguments = (ins MI_FloatTensor:$x, DefaultValuedAttr<F64Attr, "0.2">:$alpha);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def MindIR_GeluOp : MindIR_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "GELU; approximate = tanh (default) or none (erf form)";
  let description = [{
    `approximate` is an enum, `#mindir.approximate<tanh|none>`.
    `tanh` (MindSpore GeLU primitive, the default):
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.
    `none`: `0.5 * x * (1 + erf(x / sqrt(2)))`.
    ```mlir
    %y = mindir.gelu %x {approximate = #mindir.approximate<none>} : tensor<8xf32>
    ```
  }];
  let arguments = (ins MI_FloatTensor:$x,
                       DefaultValuedAttr<MindIR_GeluApproximateAttr,
                                         "::msmlir::mindir::GeluApproximate::tanh">:$approximate);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def MindIR_LogicalNotOp : MI_UnaryOp<"logical_not", MI_BoolTensor> {
  let summary = "elementwise boolean negation";
  let hasFolder = 1;
}

def MindIR_IsNanOp : MI_InferredOp<"isnan"> {
  let summary = "elementwise x != x, as i1";
  let arguments = (ins MI_FloatTensor:$x);
  let results = (outs MI_BoolTensor:$y);
}
def MindIR_IsFiniteOp : MI_InferredOp<"isfinite"> {
  let summary = "elementwise: neither NaN nor +-inf, as i1";
  let arguments = (ins MI_FloatTensor:$x);
  let results = (outs MI_BoolTensor:$y);
}

def MindIR_CastOp : MindIR_Op<"cast", [Pure]> {
  let summary = "element type conversion (MindSpore Cast)";
  let description = [{
    Keeps the shape, changes the element type:
    * float -> float: rounds to nearest even;
    * float -> int: truncates toward zero (NaN/out of range is undefined);
    * int -> float: signed, rounds to nearest even; `i1` converts as 0/1;
    * int -> int: sign-extends or truncates (two's complement); `i1`
      zero-extends;
    * anything -> `i1`: `x != 0` (NaN -> true).
    Folds when the types are equal, and on splat constants.
    ```mlir
    %y = mindir.cast %x : tensor<4xi32> to tensor<4xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$x);
  let results = (outs MI_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Binary elementwise with broadcasting, select, clamp
//===----------------------------------------------------------------------===//

def MindIR_AddOp : MI_ArithOp<"add", [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let hasFolder = 1;
}
def MindIR_SubOp : MI_ArithOp<"sub"> {
  let summary = "elementwise subtraction with broadcasting";
  let hasFolder = 1;
}
def MindIR_MulOp : MI_ArithOp<"mul", [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
  let hasFolder = 1;
}
def MindIR_DivOp : MI_ArithOp<"div"> {
  let summary = "elementwise division with broadcasting (integers truncate toward zero)";
  let hasFolder = 1;
}
def MindIR_FloorDivOp : MI_ArithOp<"floordiv"> {
  let summary = "elementwise floor(lhs / rhs) with broadcasting";
}
def MindIR_ModOp : MI_ArithOp<"mod"> {
  let summary = "elementwise lhs - floor(lhs / rhs) * rhs (sign of rhs, as numpy.mod)";
}
def MindIR_PowOp : MI_BinaryOp<"pow", MI_FloatTensor> {
  let summary = "elementwise lhs ** rhs with broadcasting (floats)";
}
def MindIR_MaximumOp : MI_ArithOp<"maximum", [Commutative]> {
  let summary = "elementwise maximum with broadcasting, NaN-propagating";
  let hasFolder = 1;
}
def MindIR_MinimumOp : MI_ArithOp<"minimum", [Commutative]> {
  let summary = "elementwise minimum with broadcasting, NaN-propagating";
  let hasFolder = 1;
}

def MindIR_EqualOp : MI_CompareOp<"equal", [Commutative]> { let summary = "elementwise lhs == rhs"; }
def MindIR_NotEqualOp : MI_CompareOp<"not_equal", [Commutative]> { let summary = "elementwise lhs != rhs"; }
def MindIR_LessOp : MI_CompareOp<"less"> { let summary = "elementwise lhs < rhs"; }
def MindIR_LessEqualOp : MI_CompareOp<"less_equal"> { let summary = "elementwise lhs <= rhs"; }
def MindIR_GreaterOp : MI_CompareOp<"greater"> { let summary = "elementwise lhs > rhs"; }
def MindIR_GreaterEqualOp : MI_CompareOp<"greater_equal"> { let summary = "elementwise lhs >= rhs"; }

def MindIR_LogicalAndOp : MI_BinaryOp<"logical_and", MI_BoolTensor, [Commutative]> {
  let summary = "elementwise boolean and with broadcasting";
  let hasFolder = 1;
}
def MindIR_LogicalOrOp : MI_BinaryOp<"logical_or", MI_BoolTensor, [Commutative]> {
  let summary = "elementwise boolean or with broadcasting";
  let hasFolder = 1;
}

def MindIR_SelectOp : MI_InferredOp<"select"> {
  let summary = "elementwise cond ? x : y, all three broadcast";
  let description = [{
    `x` and `y` share the element type, which is the result's; the result has
    the broadcast shape of all three operands.
    ```mlir
    %r = mindir.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins MI_BoolTensor:$cond, MI_Tensor:$x, MI_Tensor:$y);
  let results = (outs MI_Tensor:$result);
  let hasFolder = 1;
}

def MindIR_ClampOp : MI_InferredOp<"clamp"> {
  let summary = "elementwise min(max(x, min), max), all three broadcast";
  let description = [{
    All three operands share the element type; the result has their broadcast
    shape.
    ```mlir
    %r = mindir.clamp %x, %lo, %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins MI_NumTensor:$x, MI_NumTensor:$min, MI_NumTensor:$max);
  let results = (outs MI_NumTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def MindIR_ReduceSumOp : MI_ReduceOp<"reduce_sum"> { let summary = "sum over axes"; }
def MindIR_ReduceMeanOp : MI_ReduceOp<"reduce_mean"> { let summary = "mean over axes"; }
def MindIR_ReduceMaxOp : MI_ReduceOp<"reduce_max"> { let summary = "maximum over axes"; }
def MindIR_ReduceMinOp : MI_ReduceOp<"reduce_min"> { let summary = "minimum over axes"; }
def MindIR_ReduceProdOp : MI_ReduceOp<"reduce_prod"> { let summary = "product over axes"; }
def MindIR_ArgmaxOp : MI_ArgReduceOp<"argmax"> { let summary = "index of the first maximum along axis (i32)"; }
def MindIR_ArgminOp : MI_ArgReduceOp<"argmin"> { let summary = "index of the first minimum along axis (i32)"; }

//===----------------------------------------------------------------------===//
// Sorting
//===----------------------------------------------------------------------===//

def MindIR_SortOp : MI_InferredOp<"sort"> {
  let summary = "stable sort along axis; returns (values, indices)";
  let description = [{
    Sorts `x` along `axis` (default -1; negative counts from the end), in
    ascending order or, with `descending`, in descending order (MindSpore
    Sort). `values` has the type of `x`; `indices` (`i32`, as MindSpore's
    Sort/argsort) holds, for each sorted position, the position along `axis`
    of that element in `x`, so `values = take_along_axis(x, indices, axis)`.

    The sort is stable: equal elements keep their input order, in both
    directions (so ties give the smallest index first, as MindSpore's topk).
    NaN is ordered above +inf: NaNs come last in ascending order (NumPy's
    convention) and first in descending order; NaNs keep their input order
    among themselves. -0.0 and +0.0 compare equal. `x` must have rank >= 1
    and the axis at most 2^31 - 1 elements.
    ```mlir
    %v, %i = mindir.sort %x {axis = 0 : i64, descending = true}
        : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
    ```
  }];
  let arguments = (ins MI_NumTensor:$x,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$descending);
  let results = (outs MI_NumTensor:$values, MI_TensorOf<[I32]>:$indices);
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def MindIR_MatMulOp : MI_InferredOp<"matmul"> {
  let summary = "2-D matrix product, optionally transposing either operand";
  let description = [{
    `a` is [M, K] ([K, M] with `transpose_a`), `b` is [K, N] ([N, K] with
    `transpose_b`); the result is [M, N]. Operands share the element type.
    ```mlir
    %c = mindir.matmul %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins MI_NumTensor:$a, MI_NumTensor:$b,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs MI_NumTensor:$output);
}

def MindIR_BatchMatMulOp : MI_InferredOp<"batch_matmul"> {
  let summary = "batched matrix product over the last two dims; batch dims broadcast";
  let description = [{
    Operands have rank >= 3; the last two dims multiply as in `matmul`
    (with the same transpose flags), the leading batch dims broadcast like
    NumPy.
    ```mlir
    %c = mindir.batch_matmul %a, %b : (tensor<8x2x3xf32>, tensor<1x3x4xf32>) -> tensor<8x2x4xf32>
    ```
  }];
  let arguments = (ins MI_NumTensor:$a, MI_NumTensor:$b,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs MI_NumTensor:$output);
}

def MindIR_BiasAddOp : MI_InferredOp<"bias_add"> {
  let summary = "x + bias along the channel dim (1 for NCHW, last for NHWC)";
  let description = [{
    `x` has rank >= 2, `bias` is 1-D with the channel count; `data_format`
    (an enum, `#mindir.data_format<...>`) is `NCHW` (channels at dim 1, the
    default, also used for 2-D [N, C]) or `NHWC` (channels last).
    ```mlir
    %y = mindir.bias_add %x, %b {data_format = #mindir.data_format<NHWC>}
        : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
    ```
  }];
  let arguments = (ins MI_NumTensor:$x, MI_NumTensor:$bias,
                       DefaultValuedAttr<MindIR_DataFormatAttr,
                                         "::msmlir::mindir::DataFormat::NCHW">:$data_format);
  let results = (outs MI_NumTensor:$output);
}

//===----------------------------------------------------------------------===//
// Neural-network ops
//===----------------------------------------------------------------------===//

def MindIR_Conv2DOp : MI_InferredOp<"conv2d"> {
  let summary = "2-D convolution, NCHW input, OIHW weight (O, C/group, kh, kw)";
  let description = !strconcat([{
    Cross-correlation (no kernel flip) of `input` [N, C, H, W] with `weight`
    [O, C / group, kh, kw]; the result is [N, O, Ho, Wo]. `group` must divide
    C and O.
  }], MI_WindowDoc, [{
    ```mlir
    %y = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>}
        : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
    ```
  }]);
  let arguments = !con((ins MI_FloatTensor:$input, MI_FloatTensor:$weight), MI_ConvAttrs);
  let results = (outs MI_FloatTensor:$output);
}

def MindIR_Conv2DBackpropInputOp : MI_InferredOp<"conv2d_backprop_input"> {
  let summary = "gradient of conv2d w.r.t. its input (shape given by input_shape)";
  let description = [{
    `dout` is the gradient of a `conv2d` output; `input_shape` is the forward
    input's shape; window attributes are those of the forward op, and `dout`
    must have the shape the forward op produces. The result has `input_shape`.
  }];
  let arguments = !con((ins MI_FloatTensor:$dout, MI_FloatTensor:$weight,
                            DenseI64ArrayAttr:$input_shape), MI_ConvAttrs);
  let results = (outs MI_FloatTensor:$dx);
}

def MindIR_Conv2DBackpropFilterOp : MI_InferredOp<"conv2d_backprop_filter"> {
  let summary = "gradient of conv2d w.r.t. its weight (shape given by filter_shape)";
  let description = [{
    `dout` is the gradient of a `conv2d` output, `input` the forward input;
    `filter_shape` is the forward weight's shape; window attributes are those
    of the forward op. The result has `filter_shape`.
  }];
  let arguments = !con((ins MI_FloatTensor:$dout, MI_FloatTensor:$input,
                            DenseI64ArrayAttr:$filter_shape), MI_ConvAttrs);
  let results = (outs MI_FloatTensor:$dw);
}

def MindIR_MaxPool2DOp : MI_InferredOp<"max_pool2d"> {
  let summary = "2-D max pooling over NCHW";
  let description = !strconcat([{
    Padded positions never win the maximum.
  }], MI_WindowDoc, [{
    ```mlir
    %y = mindir.max_pool2d %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
  }]);
  let arguments = !con((ins MI_FloatTensor:$x), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$y);
}
def MindIR_AvgPool2DOp : MI_InferredOp<"avg_pool2d"> {
  let summary = "2-D average pooling over NCHW (padding not counted)";
  let description = !strconcat([{
    Each output is the mean of the window's in-bounds input elements (padded
    positions are not counted in the divisor).
  }], MI_WindowDoc);
  let arguments = !con((ins MI_FloatTensor:$x), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$y);
}
def MindIR_MaxPool2DGradOp : MI_InferredOp<"max_pool2d_grad"> {
  let summary = "gradient of max_pool2d: dout routed to the first max of each window";
  let description = [{
    `x` is the forward input, `dout` the gradient of the forward output (its
    shape is checked); the result has the shape of `x`. Overlapping windows
    accumulate.
  }];
  let arguments = !con((ins MI_FloatTensor:$x, MI_FloatTensor:$dout), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$dx);
}
def MindIR_AvgPool2DGradOp : MI_InferredOp<"avg_pool2d_grad"> {
  let summary = "gradient of avg_pool2d (input shape given by input_shape)";
  let description = [{
    `dout` is the gradient of the forward output (its shape is checked against
    `input_shape` and the window attributes); each window spreads its gradient
    evenly over its in-bounds elements. The result has `input_shape`.
  }];
  let arguments = !con((ins MI_FloatTensor:$dout, DenseI64ArrayAttr:$input_shape), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$dx);
}

def MindIR_SoftmaxOp : MindIR_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along axis";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis` (default -1).
    ```mlir
    %y = mindir.softmax %x {axis = 0 : i64} : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins MI_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}
def MindIR_LogSoftmaxOp : MindIR_Op<"log_softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "log of softmax along axis, computed stably";
  let description = [{
    `x - max - log(sum(exp(x - max)))` along `axis` (default -1).
  }];
  let arguments = (ins MI_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def MindIR_LayerNormOp : MI_InferredOp<"layer_norm"> {
  let summary = "layer normalization; returns (y, mean, rstd)";
  let description = [{
    Normalizes over dims [begin_norm_axis, rank); gamma/beta have the shape of
    dims [begin_params_axis, rank). mean and rstd (1 / sqrt(var + epsilon),
    biased variance) keep the input rank with the normalized dims set to 1
    (they are saved for the backward pass).
    ```mlir
    %y, %mean, %rstd = mindir.layer_norm %x, %g, %b
        : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    ```
  }];
  let arguments = (ins MI_FloatTensor:$x, MI_FloatTensor:$gamma, MI_FloatTensor:$beta,
                       DefaultValuedAttr<I64Attr, "-1">:$begin_norm_axis,
                       DefaultValuedAttr<I64Attr, "-1">:$begin_params_axis,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs MI_FloatTensor:$y, MI_FloatTensor:$mean, MI_FloatTensor:$rstd);
}

def MindIR_BatchNormOp : MI_InferredOp<"batch_norm"> {
  let summary = "batch normalization over channel dim 1; returns (y, batch_mean, batch_var)";
  let description = [{
    `x` is [N, C, ...]; `scale`, `bias`, `mean` and `variance` are [C].
    Training (`is_training = true`): normalizes with the batch statistics
    over all dims but 1 (biased variance) and returns them. Eval: normalizes
    with `mean`/`variance` and returns those. Moving averages are updated by
    the frontend with `assign`.
    ```mlir
    %y, %m, %v = mindir.batch_norm %x, %s, %b, %mm, %mv {is_training = true}
        : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
        -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins MI_FloatTensor:$x, MI_FloatTensor:$scale, MI_FloatTensor:$bias,
                       MI_FloatTensor:$mean, MI_FloatTensor:$variance,
                       DefaultValuedAttr<BoolAttr, "false">:$is_training,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs MI_FloatTensor:$y, MI_FloatTensor:$batch_mean, MI_FloatTensor:$batch_var);
}

def MindIR_DropoutOp : MI_InferredOp<"dropout"> {
  let summary = "seeded dropout; returns (x * mask / keep_prob, mask)";
  let description = [{
    `mask` (0 or 1, the type of `x`) keeps each element with probability
    `keep_prob` in (0, 1]; it is counter-based on (seed, i) like
    `random_uniform`, so it is reproducible and returned for the backward pass.
    The optional `offset` (0-d i64) is mixed into the key as for
    `random_uniform`: a new mask per execution.
  }];
  let arguments = (ins MI_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "0.5">:$keep_prob,
                       DefaultValuedAttr<I64Attr, "0">:$seed,
                       Optional<0DTensorOf<[I64]>>:$offset);
  let results = (outs MI_FloatTensor:$y, MI_FloatTensor:$mask);
  let hasVerifier = 1;
}

def MindIR_OneHotOp : MI_InferredOp<"one_hot"> {
  let summary = "one-hot encoding with on/off values given as 0-d tensors";
  let description = [{
    Inserts a new dim of size `depth` at `axis` (-1 = last, otherwise in
    [0, rank]); the result has the element type of `on_value`/`off_value`.
    Indices outside [0, depth) give all `off_value`.
    ```mlir
    %y = mindir.one_hot %i, %on, %off {depth = 10 : i64}
        : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins MI_IntTensor:$indices, MI_Tensor:$on_value, MI_Tensor:$off_value,
                       I64Attr:$depth, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MI_Tensor:$output);
}

def MindIR_SoftmaxCrossEntropyWithLogitsOp :
    MI_InferredOp<"softmax_cross_entropy_with_logits"> {
  let summary = "per-sample loss and d(loss)/d(logits) for dense labels [N, C]";
  let description = [{
    `loss[n] = -sum_c labels[n, c] * log_softmax(logits)[n, c]` ([N]) and
    `backprop = softmax(logits) - labels` ([N, C]), as MindSpore's
    SoftmaxCrossEntropyWithLogits.
  }];
  let arguments = (ins MI_FloatTensor:$logits, MI_FloatTensor:$labels);
  let results = (outs MI_FloatTensor:$loss, MI_FloatTensor:$backprop);
}

def MindIR_SparseSoftmaxCrossEntropyWithLogitsOp :
    MI_InferredOp<"sparse_softmax_cross_entropy_with_logits"> {
  let summary = "per-sample loss and d(loss)/d(logits) for class-index labels [N]";
  let description = [{
    Like `softmax_cross_entropy_with_logits` with `labels` given as class
    indices [N] (the one-hot of them as dense labels). The loss is per sample
    ([N], not averaged as MindSpore's `is_grad = False` form); the frontend
    reduces it.
  }];
  let arguments = (ins MI_FloatTensor:$logits, MI_IntTensor:$labels);
  let results = (outs MI_FloatTensor:$loss, MI_FloatTensor:$backprop);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def MindIR_ReshapeOp : MI_InferredOp<"reshape"> {
  let summary = "reshape to `shape` (at most one -1, inferred)";
  let description = [{
    Row-major reshape; the element count must not change. Folds
    reshape(reshape(x)) and reshapes of constants.
    ```mlir
    %y = mindir.reshape %x {shape = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$shape);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_TransposeOp : MI_InferredOp<"transpose"> {
  let summary = "permute dims: y.shape[i] = x.shape[perm[i]]";
  let description = [{
    ```mlir
    %y = mindir.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_BroadcastToOp : MI_InferredOp<"broadcast_to"> {
  let summary = "broadcast to `shape` (-1 keeps the input dim)";
  let description = [{
    NumPy broadcasting of `x` to `shape` (right-aligned; input dims of size 1
    stretch). A -1 in `shape` keeps the corresponding input dim.
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$shape);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_ExpandDimsOp : MI_InferredOp<"expand_dims"> {
  let summary = "insert a unit dim at `axis` (negative counts from the end)";
  let description = [{
    `axis` is in [-rank - 1, rank].
  }];
  let arguments = (ins MI_Tensor:$x, I64Attr:$axis);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_SqueezeOp : MI_InferredOp<"squeeze"> {
  let summary = "remove the unit dims in `axis` (empty = all unit dims)";
  let description = [{
    Every listed axis must have size 1.
  }];
  let arguments = (ins MI_Tensor:$x, MI_Axes:$axis);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_FlattenOp : MI_InferredOp<"flatten"> {
  let summary = "keep dim 0, flatten the rest: [N, prod(rest)]";
  let arguments = (ins MI_Tensor:$x);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_SliceOp : MI_InferredOp<"slice"> {
  let summary = "contiguous slice x[begin : begin + size] (size -1 = to the end)";
  let description = [{
    `begin` and `size` have one value per dim; `begin` is non-negative and the
    slice must be in bounds.
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$begin, DenseI64ArrayAttr:$size);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_StridedSliceOp : MI_InferredOp<"strided_slice"> {
  let summary = "x[begin:end:strides] per dim; begin/end as Python slice.indices(dim) returns them";
  let description = [{
    One value per dim in each of `begin`, `end`, `strides`. Indices are
    normalized (as Python's `slice(...).indices(dim)` returns them): for a
    positive stride 0 <= begin, end <= dim; for a negative stride
    -1 <= begin, end < dim, with -1 meaning "before the first element".
    The result has `max(0, ceil((end - begin) / stride))` elements per dim.
    ```mlir
    %y = mindir.strided_slice %x {begin = array<i64: 3>, end = array<i64: -1>, strides = array<i64: -1>}
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$begin, DenseI64ArrayAttr:$end,
                       DenseI64ArrayAttr:$strides);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_ConcatOp : MI_InferredOp<"concat"> {
  let summary = "concatenate along axis";
  let description = [{
    At least one input; all share the element type, the rank and every dim
    but `axis`.
  }];
  let arguments = (ins Variadic<MI_Tensor>:$inputs, DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MI_Tensor:$output);
  let hasFolder = 1;
}
def MindIR_SplitOp : MI_InferredOp<"split"> {
  let summary = "split into output_num equal parts along axis";
  let description = [{
    ```mlir
    %a, %b = mindir.split %x {axis = 1 : i64, output_num = 2 : i64}
        : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    ```
  }];
  let arguments = (ins MI_Tensor:$x, DefaultValuedAttr<I64Attr, "0">:$axis, I64Attr:$output_num);
  let results = (outs Variadic<MI_Tensor>:$outputs);
}
def MindIR_StackOp : MI_InferredOp<"stack"> {
  let summary = "stack equally-typed tensors along a new axis";
  let description = [{
    At least one input, all of the same type; `axis` is in [-rank - 1, rank].
  }];
  let arguments = (ins Variadic<MI_Tensor>:$inputs, DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MI_Tensor:$output);
}
def MindIR_GatherOp : MI_InferredOp<"gather"> {
  let summary = "take slices of params along axis at indices";
  let description = [{
    Result shape: params.shape[:axis] + indices.shape + params.shape[axis+1:]
    (MindSpore Gather).
    ```mlir
    %y = mindir.gather %p, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$params, MI_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MI_Tensor:$output);
}
def MindIR_TileOp : MI_InferredOp<"tile"> {
  let summary = "repeat x `multiples[i]` times along dim i";
  let description = [{
    `multiples` has at least rank(x) positive values; when it has more, `x`
    is first viewed with leading unit dims (MindSpore Tile).
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$multiples);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_PadOp : MI_InferredOp<"pad"> {
  let summary = "constant padding; paddings = [before0, after0, before1, after1, ...]";
  let description = [{
    Non-negative paddings, two per dim; padded elements are `constant_value`
    converted to the element type.
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$paddings,
                       DefaultValuedAttr<F64Attr, "0.0">:$constant_value);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Automatic differentiation
//===----------------------------------------------------------------------===//

def MindIR_GradOp : MindIR_Op<"grad", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "gradient of function @callee at `inputs` w.r.t. the arguments in grad_position";
  let description = [{
    Expanded by `mindir-autodiff` into new functions holding the forward and
    the reverse-mode backward of @callee, so later passes see both.
    `sens` are the initial cotangents of @callee's results (ones when empty).
    With `has_aux`, only the first result of @callee is differentiated and the
    others are returned as values. Results: @callee's results first when
    `return_value` is set (value_and_grad), then one gradient per position.
    ```mlir
    %v, %dx = mindir.grad @f(%x) {grad_position = array<i64: 0>, return_value}
        : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<MI_Tensor>:$inputs,
                       Variadic<MI_Tensor>:$sens, DenseI64ArrayAttr:$grad_position,
                       UnitAttr:$has_aux, UnitAttr:$return_value);
  let results = (outs Variadic<MI_Tensor>:$outputs);
  let assemblyFormat = [{
    $callee `(` $inputs `)` (`sens` `(` $sens^ `:` type($sens) `)`)? attr-dict `:`
    functional-type($inputs, $outputs)
  }];
}

//===----------------------------------------------------------------------===//
// State and ordering
//===----------------------------------------------------------------------===//

def MindIR_AssignOp : MindIR_Op<"assign", [AllTypesMatch<["variable", "value", "result"]>,
                                           MemoryEffects<[MemWrite]>]> {
  let summary = "write value into a parameter (a writable function argument)";
  let description = [{
    Returns the new value of the variable. The write is a side effect, so the
    op is kept even when its result is unused; `mindir.depend` orders reads
    after it.
    ```mlir
    %w1 = mindir.assign %w, %new : tensor<4xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$variable, MI_Tensor:$value);
  let results = (outs MI_Tensor:$result);
  let assemblyFormat = "$variable `,` $value attr-dict `:` type($variable)";
}

def MindIR_DependOp : MindIR_Op<"depend", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "value, ordered after the side effects producing `deps`";
  let description = [{
    Returns `value`; the uses of the result are ordered after the ops that
    produced `deps` (MindSpore Depend). Without `deps` it folds to `value`.
    ```mlir
    %r = mindir.depend %x after %a : tensor<4xf32> : tensor<2xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$value, Variadic<AnyType>:$deps);
  let results = (outs MI_Tensor:$result);
  let assemblyFormat = "$value (`after` $deps^ `:` type($deps))? attr-dict `:` type($value)";
  let hasFolder = 1;
}

// ---- sharding hints (msmlir.parallel: Cell.shard, parameter_plan) --------------------
def MindIR_ShardingHintOp : MindIR_Op<"sharding_hint", [Pure, SameOperandsAndResultType]> {
  let summary = "value, laid out over the ranks by `strategy` (a layout constraint)";
  let description = [{
    Returns `x`. Under semi-auto parallelism the value is cut by `strategy`
    (one cut per dim, MindSpore's) at this point of the program:
    `mindir-insert-shardings` turns the hint into `shard.shard` ops and drops
    it (what `Cell.shard`'s in/out strategies and `parameter_plan` build).
    Its gradient is the gradient hinted the same way. No folder: the hint
    must survive the graph passes before insert-shardings.
    ```mlir
    %y = mindir.sharding_hint %x {strategy = array<i64: 2, 1>} : tensor<8x4xf32>
    ```
  }];
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$strategy);
  let results = (outs MI_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}
// ---- end sharding hints ---------------------------------------------------------------

def MindIR_HostCallbackOp : MindIR_Op<"host_callback"> {
  let summary = "call back into the Python interpreter at run time (JIT Fallback)";
  let description = [{
    Runs the host function registered under `callee` (see
    `msmlir.frontend.fallback`) on the operands' values and returns its
    results. Graph mode uses it for Python code it cannot compile, e.g.
    `print(x)` or a NumPy call on a tensor: the call is kept and executed by
    the interpreter at run time. `origin` names the Python construct and its
    source line for diagnostics. The op has unknown side effects, so it is
    never removed, duplicated or reordered with other side effects, and it is
    not differentiable.
    ```mlir
    %y = mindir.host_callback @msmlir_host_3 "np.sort (model.py:12)" (%x)
           : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, StrAttr:$origin,
                       Variadic<MI_Tensor>:$inputs);
  let results = (outs Variadic<MI_Tensor>:$results);
  let assemblyFormat = [{
    $callee $origin `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
}


//===----------------------------------------------------------------------===//
// Collectives (msmlir.communication): every rank of MPI_COMM_WORLD runs the
// same program; lowered to the upstream `mpi` dialect (MPI_Allreduce on the
// MPI library the program runs under). They read and write communication
// buffers, so they are never removed, duplicated or reordered with other
// side effects.
//===----------------------------------------------------------------------===//

def MI_CommTensor : MI_TensorOf<[F32, F64, I32, I64]>;
defvar MI_Reduction = DefaultValuedAttr<MindIR_ReduceOpAttr, "::msmlir::mindir::ReduceOp::sum">;

def MindIR_AllReduceOp : MindIR_Op<"all_reduce", [SameOperandsAndResultType,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "element-wise reduction of `x` over all ranks, result on every rank";
  let description = [{
    ```mlir
    %y = mindir.all_reduce %x {op = #mindir.reduce_op<sum>} : tensor<4xf32>
    ```
  }];
  let arguments = (ins MI_CommTensor:$x, MI_Reduction:$op);
  let results = (outs MI_CommTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def MindIR_AllGatherOp : MindIR_Op<"all_gather", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the ranks' `x` concatenated along dim 0 in rank order, on every rank";
  let description = [{
    `group_size` is the number of ranks (fixed at compile time, as the
    result type depends on it): the result's dim 0 is `group_size` times x's.
    ```mlir
    %y = mindir.all_gather %x {group_size = 2 : i64} : tensor<3x4xf32> -> tensor<6x4xf32>
    ```
  }];
  let arguments = (ins MI_CommTensor:$x, I64Attr:$group_size);
  let results = (outs MI_CommTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let hasVerifier = 1;
}

def MindIR_ReduceScatterOp : MindIR_Op<"reduce_scatter", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "all_reduce of `x`, then rank r keeps the r-th of `group_size` slices of dim 0";
  let description = [{
    ```mlir
    %y = mindir.reduce_scatter %x {group_size = 2 : i64} : tensor<6x4xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins MI_CommTensor:$x, MI_Reduction:$op, I64Attr:$group_size);
  let results = (outs MI_CommTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let hasVerifier = 1;
}

def MindIR_BroadcastOp : MindIR_Op<"broadcast", [SameOperandsAndResultType,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "rank `root`'s `x` on every rank";
  let description = [{
    ```mlir
    %y = mindir.broadcast %x {root = 0 : i64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins MI_CommTensor:$x, DefaultValuedAttr<I64Attr, "0">:$root);
  let results = (outs MI_CommTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Integer bitwise ops (issue 12: MindSpore's BitwiseAnd/Or/Xor, LeftShift,
// RightShift, Invert; on bool tensors the frontend uses the logical ops)
//===----------------------------------------------------------------------===//

def MindIR_BitwiseAndOp : MI_BinaryOp<"bitwise_and", MI_IntTensor, [Commutative]> {
  let summary = "elementwise lhs & rhs with broadcasting (integers)";
}
def MindIR_BitwiseOrOp : MI_BinaryOp<"bitwise_or", MI_IntTensor, [Commutative]> {
  let summary = "elementwise lhs | rhs with broadcasting (integers)";
}
def MindIR_BitwiseXorOp : MI_BinaryOp<"bitwise_xor", MI_IntTensor, [Commutative]> {
  let summary = "elementwise lhs ^ rhs with broadcasting (integers)";
}
def MindIR_LeftShiftOp : MI_BinaryOp<"left_shift", MI_IntTensor> {
  let summary = "elementwise lhs << rhs; a shift outside [0, bit width) gives 0";
}
def MindIR_RightShiftOp : MI_BinaryOp<"right_shift", MI_IntTensor> {
  let summary = "elementwise arithmetic lhs >> rhs; a shift outside [0, bit width) gives "
                "0, or -1 for a negative lhs";
}
def MindIR_BitwiseNotOp : MI_UnaryOp<"bitwise_not", MI_IntTensor> {
  let summary = "elementwise ~x (integers)";
}
// ---- end integer bitwise ops ------------------------------------------------------

#endif // MSMLIR_MINDIR_TD
