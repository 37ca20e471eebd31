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
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MindIR_Dialect : Dialect {
  let name = "mindir";
  let cppNamespace = "::msmlir::mindir";
  let summary = "MindSpore's graph-level IR (MindIR) as an MLIR dialect";
  let description = [{
    Graph-level tensor operations with MindSpore primitive semantics. Functions
    are `func.func`, control flow is `scf` on tensors. Binary operations
    broadcast like NumPy; reductions take `axes` (empty = all axes) and
    `keep_dims`. Lowered to linalg/tensor/arith/math by
    `convert-mindir-to-linalg`.
  }];
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def MI_FloatElem : AnyTypeOf<[F16, BF16, F32, F64]>;
def MI_IntElem : AnyTypeOf<[I8, I32, I64]>;
def MI_NumElem : AnyTypeOf<[F16, BF16, F32, F64, I8, I32, I64]>;
def MI_AnyElem : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I32, I64]>;

def MI_Tensor : RankedTensorOf<[MI_AnyElem]>;
def MI_FloatTensor : RankedTensorOf<[MI_FloatElem]>;
def MI_IntTensor : RankedTensorOf<[MI_IntElem]>;
def MI_NumTensor : RankedTensorOf<[MI_NumElem]>;
def MI_BoolTensor : RankedTensorOf<[I1]>;

// Attribute shorthands with MindSpore defaults.
class MI_I64Array<string default = "{}"> :
  DefaultValuedAttr<DenseI64ArrayAttr, default>;
def MI_Axes : MI_I64Array<"{}">;
def MI_KeepDims : DefaultValuedAttr<BoolAttr, "false">;
def MI_PadMode : DefaultValuedAttr<StrAttr, "\"valid\"">;

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
}
class MI_FloatUnaryOp<string mnemonic, list<Trait> traits = []> :
    MI_UnaryOp<mnemonic, MI_FloatTensor, traits>;
class MI_NumUnaryOp<string mnemonic, list<Trait> traits = []> :
    MI_UnaryOp<mnemonic, MI_NumTensor, traits>;

// Broadcasting binary op; both operands share the element type.
class MI_BinaryOp<string mnemonic, Type T, list<Trait> traits = []> :
    MI_InferredOp<mnemonic, traits> {
  let arguments = (ins T:$lhs, T:$rhs);
  let results = (outs MI_Tensor:$result);
}
class MI_ArithOp<string mnemonic, list<Trait> traits = []> :
    MI_BinaryOp<mnemonic, MI_NumTensor, traits>;
class MI_CompareOp<string mnemonic, list<Trait> traits = []> :
    MI_BinaryOp<mnemonic, MI_Tensor, traits> {
  let results = (outs MI_BoolTensor:$result);
}

class MI_ReduceOp<string mnemonic, list<Trait> traits = []> :
    MI_InferredOp<mnemonic, traits> {
  let arguments = (ins MI_NumTensor:$x, MI_Axes:$axes, MI_KeepDims:$keep_dims);
  let results = (outs MI_NumTensor:$y);
}

class MI_ArgReduceOp<string mnemonic> : MI_InferredOp<mnemonic> {
  let arguments = (ins MI_NumTensor:$x,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       MI_KeepDims:$keep_dims);
  let results = (outs RankedTensorOf<[I32]>:$y);
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

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

def MindIR_ConstantOp : MindIR_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "dense constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs MI_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def MindIR_FillOp : MindIR_Op<"fill", [Pure]> {
  let summary = "tensor of the given type filled with one scalar value";
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs MI_Tensor:$output);
  let assemblyFormat = "$value attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def MindIR_ZerosLikeOp : MI_UnaryOp<"zeros_like", MI_Tensor> {
  let summary = "zeros with the shape and type of the input";
  let hasFolder = 1;
}
def MindIR_OnesLikeOp : MI_UnaryOp<"ones_like", MI_Tensor> {
  let summary = "ones with the shape and type of the input";
  let hasFolder = 1;
}

def MindIR_ArangeOp : MindIR_Op<"arange", [Pure]> {
  let summary = "1-D range [start, limit) with step delta";
  let arguments = (ins F64Attr:$start, F64Attr:$limit,
                       DefaultValuedAttr<F64Attr, "1.0">:$delta);
  let results = (outs RankedTensorOf<[MI_NumElem]>:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def MindIR_RandomUniformOp : MindIR_Op<"random_uniform", [Pure]> {
  let summary = "stateless seeded uniform random tensor in [minval, maxval)";
  let description = [{
    Counter-based: element i is a hash of (seed, i), so results do not depend
    on the schedule and are reproducible on every target.
  }];
  let arguments = (ins I64Attr:$seed,
                       DefaultValuedAttr<F64Attr, "0.0">:$minval,
                       DefaultValuedAttr<F64Attr, "1.0">:$maxval);
  let results = (outs MI_FloatTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

def MindIR_RandomNormalOp : MindIR_Op<"random_normal", [Pure]> {
  let summary = "stateless seeded normal random tensor (Box-Muller)";
  let arguments = (ins I64Attr:$seed,
                       DefaultValuedAttr<F64Attr, "0.0">:$mean,
                       DefaultValuedAttr<F64Attr, "1.0">:$stddev);
  let results = (outs MI_FloatTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

def MindIR_NegOp : MI_NumUnaryOp<"neg"> { let summary = "-x"; let hasFolder = 1; }
def MindIR_AbsOp : MI_NumUnaryOp<"abs"> { let summary = "|x|"; }
def MindIR_SignOp : MI_NumUnaryOp<"sign"> { let summary = "sign(x) in {-1, 0, 1}"; }
def MindIR_SquareOp : MI_NumUnaryOp<"square"> { let summary = "x * x"; }
def MindIR_ReluOp : MI_NumUnaryOp<"relu"> { let summary = "max(x, 0)"; let hasFolder = 1; }
def MindIR_ExpOp : MI_FloatUnaryOp<"exp"> { let summary = "e^x"; }
def MindIR_LogOp : MI_FloatUnaryOp<"log"> { let summary = "natural logarithm"; }
def MindIR_Log1pOp : MI_FloatUnaryOp<"log1p"> { let summary = "log(1 + x)"; }
def MindIR_Expm1Op : MI_FloatUnaryOp<"expm1"> { let summary = "e^x - 1"; }
def MindIR_SqrtOp : MI_FloatUnaryOp<"sqrt"> { let summary = "square root"; }
def MindIR_RsqrtOp : MI_FloatUnaryOp<"rsqrt"> { let summary = "1 / sqrt(x)"; }
def MindIR_ReciprocalOp : MI_FloatUnaryOp<"reciprocal"> { let summary = "1 / x"; }
def MindIR_SinOp : MI_FloatUnaryOp<"sin"> { let summary = "sine"; }
def MindIR_CosOp : MI_FloatUnaryOp<"cos"> { let summary = "cosine"; }
def MindIR_TanhOp : MI_FloatUnaryOp<"tanh"> { let summary = "hyperbolic tangent"; }
def MindIR_SigmoidOp : MI_FloatUnaryOp<"sigmoid"> { let summary = "1 / (1 + e^-x)"; }
def MindIR_ErfOp : MI_FloatUnaryOp<"erf"> { let summary = "Gauss error function"; }
def MindIR_SoftplusOp : MI_FloatUnaryOp<"softplus"> { let summary = "log(1 + e^x)"; }
def MindIR_SiluOp : MI_FloatUnaryOp<"silu"> { let summary = "x * sigmoid(x)"; }
def MindIR_FloorOp : MI_FloatUnaryOp<"floor"> { let summary = "round toward -inf"; }
def MindIR_CeilOp : MI_FloatUnaryOp<"ceil"> { let summary = "round toward +inf"; }
def MindIR_RoundOp : MI_FloatUnaryOp<"round"> { let summary = "round half to even (numpy.round)"; }
def MindIR_StopGradientOp : MI_UnaryOp<"stop_gradient", MI_Tensor> {
  let summary = "identity whose gradient is zero";
}

def MindIR_LeakyReluOp : MindIR_Op<"leaky_relu", [Pure, SameOperandsAndResultType]> {
  let summary = "x if x >= 0 else alpha * x";
  let arguments = (ins MI_FloatTensor:$x, DefaultValuedAttr<F64Attr, "0.2">:$alpha);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def MindIR_GeluOp : MindIR_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "GELU; approximate = \"tanh\" (default) or \"none\" (erf form)";
  let arguments = (ins MI_FloatTensor:$x,
                       DefaultValuedAttr<StrAttr, "\"tanh\"">:$approximate);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def MindIR_LogicalNotOp : MI_UnaryOp<"logical_not", MI_BoolTensor> {
  let summary = "boolean negation";
  let hasFolder = 1;
}

def MindIR_IsNanOp : MI_InferredOp<"isnan"> {
  let summary = "x != x, as i1";
  let arguments = (ins MI_FloatTensor:$x);
  let results = (outs MI_BoolTensor:$y);
}
def MindIR_IsFiniteOp : MI_InferredOp<"isfinite"> {
  let summary = "not nan and not +-inf, as i1";
  let arguments = (ins MI_FloatTensor:$x);
  let results = (outs MI_BoolTensor:$y);
}

def MindIR_CastOp : MindIR_Op<"cast", [Pure]> {
  let summary = "element type conversion (float<->int truncates toward zero)";
  let arguments = (ins MI_Tensor:$x);
  let results = (outs MI_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Binary elementwise with broadcasting, select, clamp
//===----------------------------------------------------------------------===//

def MindIR_AddOp : MI_ArithOp<"add", [Commutative]> { let summary = "x + y"; let hasFolder = 1; }
def MindIR_SubOp : MI_ArithOp<"sub"> { let summary = "x - y"; let hasFolder = 1; }
def MindIR_MulOp : MI_ArithOp<"mul", [Commutative]> { let summary = "x * y"; let hasFolder = 1; }
def MindIR_DivOp : MI_ArithOp<"div"> { let summary = "x / y (integer division truncates)"; let hasFolder = 1; }
def MindIR_FloorDivOp : MI_ArithOp<"floordiv"> { let summary = "floor(x / y)"; }
def MindIR_ModOp : MI_ArithOp<"mod"> { let summary = "x - floor(x / y) * y (sign of y, as numpy)"; }
def MindIR_PowOp : MI_BinaryOp<"pow", MI_FloatTensor> { let summary = "x ** y"; }
def MindIR_MaximumOp : MI_ArithOp<"maximum", [Commutative]> { let summary = "max(x, y), nan-propagating"; }
def MindIR_MinimumOp : MI_ArithOp<"minimum", [Commutative]> { let summary = "min(x, y), nan-propagating"; }

def MindIR_EqualOp : MI_CompareOp<"equal", [Commutative]> { let summary = "x == y"; }
def MindIR_NotEqualOp : MI_CompareOp<"not_equal", [Commutative]> { let summary = "x != y"; }
def MindIR_LessOp : MI_CompareOp<"less"> { let summary = "x < y"; }
def MindIR_LessEqualOp : MI_CompareOp<"less_equal"> { let summary = "x <= y"; }
def MindIR_GreaterOp : MI_CompareOp<"greater"> { let summary = "x > y"; }
def MindIR_GreaterEqualOp : MI_CompareOp<"greater_equal"> { let summary = "x >= y"; }

def MindIR_LogicalAndOp : MI_BinaryOp<"logical_and", MI_BoolTensor, [Commutative]> {
  let summary = "x and y";
  let results = (outs MI_BoolTensor:$result);
}
def MindIR_LogicalOrOp : MI_BinaryOp<"logical_or", MI_BoolTensor, [Commutative]> {
  let summary = "x or y";
  let results = (outs MI_BoolTensor:$result);
}

def MindIR_SelectOp : MI_InferredOp<"select"> {
  let summary = "cond ? x : y, all three broadcast";
  let arguments = (ins MI_BoolTensor:$cond, MI_Tensor:$x, MI_Tensor:$y);
  let results = (outs MI_Tensor:$result);
}

def MindIR_ClampOp : MI_InferredOp<"clamp"> {
  let summary = "min(max(x, min), max), all three broadcast";
  let arguments = (ins MI_NumTensor:$x, MI_NumTensor:$min, MI_NumTensor:$max);
  let results = (outs MI_NumTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def MindIR_ReduceSumOp : MI_ReduceOp<"reduce_sum"> { let summary = "sum over axes"; }
def MindIR_ReduceMeanOp : MI_ReduceOp<"reduce_mean"> { let summary = "mean over axes"; }
def MindIR_ReduceMaxOp : MI_ReduceOp<"reduce_max"> { let summary = "max over axes"; }
def MindIR_ReduceMinOp : MI_ReduceOp<"reduce_min"> { let summary = "min over axes"; }
def MindIR_ReduceProdOp : MI_ReduceOp<"reduce_prod"> { let summary = "product over axes"; }
def MindIR_ArgmaxOp : MI_ArgReduceOp<"argmax"> { let summary = "index of the first max along axis (i32)"; }
def MindIR_ArgminOp : MI_ArgReduceOp<"argmin"> { let summary = "index of the first min along axis (i32)"; }

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def MindIR_MatMulOp : MI_InferredOp<"matmul"> {
  let summary = "2-D matrix product, optionally transposing either operand";
  let arguments = (ins MI_NumTensor:$a, MI_NumTensor:$b,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs MI_NumTensor:$output);
}

def MindIR_BatchMatMulOp : MI_InferredOp<"batch_matmul"> {
  let summary = "batched matrix product over the last two dims; batch dims broadcast";
  let arguments = (ins MI_NumTensor:$a, MI_NumTensor:$b,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs MI_NumTensor:$output);
}

def MindIR_BiasAddOp : MI_InferredOp<"bias_add"> {
  let summary = "x + bias along the channel dim (1 for NCHW, last for NHWC)";
  let arguments = (ins MI_NumTensor:$x, MI_NumTensor:$bias,
                       DefaultValuedAttr<StrAttr, "\"NCHW\"">:$data_format);
  let results = (outs MI_NumTensor:$output);
}

//===----------------------------------------------------------------------===//
// Neural-network ops
//===----------------------------------------------------------------------===//

def MindIR_Conv2DOp : MI_InferredOp<"conv2d"> {
  let summary = "2-D convolution, NCHW input, OIHW weight (O, C/group, kh, kw)";
  let description = [{
    `pad_mode` is "valid" (no padding), "same" (output = ceil(in / stride),
    extra padding at the bottom/right as MindSpore/TF) or "pad" (explicit
    `pad` = [top, bottom, left, right]).
  }];
  let arguments = !con((ins MI_FloatTensor:$input, MI_FloatTensor:$weight), MI_ConvAttrs);
  let results = (outs MI_FloatTensor:$output);
}

def MindIR_Conv2DBackpropInputOp : MI_InferredOp<"conv2d_backprop_input"> {
  let summary = "gradient of conv2d w.r.t. its input (shape given by input_shape)";
  let arguments = !con((ins MI_FloatTensor:$dout, MI_FloatTensor:$weight,
                            DenseI64ArrayAttr:$input_shape), MI_ConvAttrs);
  let results = (outs MI_FloatTensor:$dx);
}

def MindIR_Conv2DBackpropFilterOp : MI_InferredOp<"conv2d_backprop_filter"> {
  let summary = "gradient of conv2d w.r.t. its weight (shape given by filter_shape)";
  let arguments = !con((ins MI_FloatTensor:$dout, MI_FloatTensor:$input,
                            DenseI64ArrayAttr:$filter_shape), MI_ConvAttrs);
  let results = (outs MI_FloatTensor:$dw);
}

def MindIR_MaxPool2DOp : MI_InferredOp<"max_pool2d"> {
  let summary = "2-D max pooling over NCHW";
  let arguments = !con((ins MI_FloatTensor:$x), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$y);
}
def MindIR_AvgPool2DOp : MI_InferredOp<"avg_pool2d"> {
  let summary = "2-D average pooling over NCHW (padding not counted)";
  let arguments = !con((ins MI_FloatTensor:$x), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$y);
}
def MindIR_MaxPool2DGradOp : MI_InferredOp<"max_pool2d_grad"> {
  let summary = "gradient of max_pool2d: dout routed to the first max of each window";
  let arguments = !con((ins MI_FloatTensor:$x, MI_FloatTensor:$dout), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$dx);
}
def MindIR_AvgPool2DGradOp : MI_InferredOp<"avg_pool2d_grad"> {
  let summary = "gradient of avg_pool2d (input shape given by input_shape)";
  let arguments = !con((ins MI_FloatTensor:$dout, DenseI64ArrayAttr:$input_shape), MI_PoolAttrs);
  let results = (outs MI_FloatTensor:$dx);
}

def MindIR_SoftmaxOp : MindIR_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along axis";
  let arguments = (ins MI_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}
def MindIR_LogSoftmaxOp : MindIR_Op<"log_softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "log of softmax along axis, computed stably";
  let arguments = (ins MI_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MI_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def MindIR_LayerNormOp : MI_InferredOp<"layer_norm"> {
  let summary = "layer normalization; returns (y, mean, rstd)";
  let description = [{
    Normalizes over dims [begin_norm_axis, rank); gamma/beta have the shape of
    dims [begin_params_axis, rank). mean and rstd keep the input rank with the
    normalized dims set to 1 (they are saved for the backward pass).
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
    Training: normalizes with the batch statistics (biased variance) and returns
    them. Eval: normalizes with `mean`/`variance` and returns those. Moving
    averages are updated by the frontend with `assign`.
  }];
  let arguments = (ins MI_FloatTensor:$x, MI_FloatTensor:$scale, MI_FloatTensor:$bias,
                       MI_FloatTensor:$mean, MI_FloatTensor:$variance,
                       DefaultValuedAttr<BoolAttr, "false">:$is_training,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs MI_FloatTensor:$y, MI_FloatTensor:$batch_mean, MI_FloatTensor:$batch_var);
}

def MindIR_DropoutOp : MI_InferredOp<"dropout"> {
  let summary = "seeded dropout; returns (x * mask / keep_prob, mask)";
  let arguments = (ins MI_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "0.5">:$keep_prob,
                       DefaultValuedAttr<I64Attr, "0">:$seed);
  let results = (outs MI_FloatTensor:$y, MI_FloatTensor:$mask);
  let hasVerifier = 1;
}

def MindIR_OneHotOp : MI_InferredOp<"one_hot"> {
  let summary = "one-hot encoding with on/off values given as 0-d tensors";
  let arguments = (ins MI_IntTensor:$indices, MI_Tensor:$on_value, MI_Tensor:$off_value,
                       I64Attr:$depth, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MI_Tensor:$output);
}

def MindIR_SoftmaxCrossEntropyWithLogitsOp :
    MI_InferredOp<"softmax_cross_entropy_with_logits"> {
  let summary = "per-sample loss and d(loss)/d(logits) for dense labels [N, C]";
  let arguments = (ins MI_FloatTensor:$logits, MI_FloatTensor:$labels);
  let results = (outs MI_FloatTensor:$loss, MI_FloatTensor:$backprop);
}

def MindIR_SparseSoftmaxCrossEntropyWithLogitsOp :
    MI_InferredOp<"sparse_softmax_cross_entropy_with_logits"> {
  let summary = "per-sample loss and d(loss)/d(logits) for class-index labels [N]";
  let arguments = (ins MI_FloatTensor:$logits, MI_IntTensor:$labels);
  let results = (outs MI_FloatTensor:$loss, MI_FloatTensor:$backprop);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def MindIR_ReshapeOp : MI_InferredOp<"reshape"> {
  let summary = "reshape to `shape` (at most one -1, inferred)";
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$shape);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_TransposeOp : MI_InferredOp<"transpose"> {
  let summary = "permute dims: y.shape[i] = x.shape[perm[i]]";
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_BroadcastToOp : MI_InferredOp<"broadcast_to"> {
  let summary = "broadcast to `shape` (-1 keeps the input dim)";
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$shape);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_ExpandDimsOp : MI_InferredOp<"expand_dims"> {
  let summary = "insert a unit dim at `axis` (negative counts from the end)";
  let arguments = (ins MI_Tensor:$x, I64Attr:$axis);
  let results = (outs MI_Tensor:$y);
}
def MindIR_SqueezeOp : MI_InferredOp<"squeeze"> {
  let summary = "remove the unit dims in `axis` (empty = all unit dims)";
  let arguments = (ins MI_Tensor:$x, MI_Axes:$axis);
  let results = (outs MI_Tensor:$y);
  let hasFolder = 1;
}
def MindIR_FlattenOp : MI_InferredOp<"flatten"> {
  let summary = "keep dim 0, flatten the rest: [N, prod(rest)]";
  let arguments = (ins MI_Tensor:$x);
  let results = (outs MI_Tensor:$y);
}
def MindIR_SliceOp : MI_InferredOp<"slice"> {
  let summary = "contiguous slice x[begin : begin + size] (size -1 = to the end)";
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$begin, DenseI64ArrayAttr:$size);
  let results = (outs MI_Tensor:$y);
}
def MindIR_StridedSliceOp : MI_InferredOp<"strided_slice"> {
  let summary = "x[begin:end:strides] per dim; begin/end as Python slice.indices(dim) returns them";
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$begin, DenseI64ArrayAttr:$end,
                       DenseI64ArrayAttr:$strides);
  let results = (outs MI_Tensor:$y);
}
def MindIR_ConcatOp : MI_InferredOp<"concat"> {
  let summary = "concatenate along axis";
  let arguments = (ins Variadic<MI_Tensor>:$inputs, DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MI_Tensor:$output);
}
def MindIR_SplitOp : MI_InferredOp<"split"> {
  let summary = "split into output_num equal parts along axis";
  let arguments = (ins MI_Tensor:$x, DefaultValuedAttr<I64Attr, "0">:$axis, I64Attr:$output_num);
  let results = (outs Variadic<MI_Tensor>:$outputs);
}
def MindIR_StackOp : MI_InferredOp<"stack"> {
  let summary = "stack equally-shaped tensors along a new axis";
  let arguments = (ins Variadic<MI_Tensor>:$inputs, DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MI_Tensor:$output);
}
def MindIR_GatherOp : MI_InferredOp<"gather"> {
  let summary = "take slices of params along axis at indices";
  let arguments = (ins MI_Tensor:$params, MI_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MI_Tensor:$output);
}
def MindIR_TileOp : MI_InferredOp<"tile"> {
  let summary = "repeat x `multiples[i]` times along dim i";
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$multiples);
  let results = (outs MI_Tensor:$y);
}
def MindIR_PadOp : MI_InferredOp<"pad"> {
  let summary = "constant padding; paddings = [before0, after0, before1, after1, ...]";
  let arguments = (ins MI_Tensor:$x, DenseI64ArrayAttr:$paddings,
                       DefaultValuedAttr<F64Attr, "0.0">:$constant_value);
  let results = (outs MI_Tensor:$y);
}

//===----------------------------------------------------------------------===//
// State and ordering
//===----------------------------------------------------------------------===//

def MindIR_AssignOp : MindIR_Op<"assign", [AllTypesMatch<["variable", "value", "result"]>,
                                           MemoryEffects<[MemWrite]>]> {
  let summary = "write value into a parameter (a writable function argument)";
  let arguments = (ins MI_Tensor:$variable, MI_Tensor:$value);
  let results = (outs MI_Tensor:$result);
  let assemblyFormat = "$variable `,` $value attr-dict `:` type($variable)";
}

def MindIR_DependOp : MindIR_Op<"depend", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "value, ordered after the side effects producing `deps`";
  let arguments = (ins MI_Tensor:$value, Variadic<AnyType>:$deps);
  let results = (outs MI_Tensor:$result);
  let assemblyFormat = "$value (`after` $deps^ `:` type($deps))? attr-dict `:` type($value)";
}

#endif // MSMLIR_MINDIR_TD
