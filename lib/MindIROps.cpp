//===- MindIROps.cpp - mindir result-type inference, verifiers, folders --===//
//
// Shape logic lives here once: the Python frontend builds ops with inferred
// result types, and the verifier re-runs the same inference on parsed IR, so a
// shape error is reported at the op's location (the user's Python line when
// the IR came from the frontend).
//
//===----------------------------------------------------------------------===//
#include "MindIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace msmlir::mindir;

#define GET_OP_CLASSES
#include "MindIROps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using Loc = std::optional<Location>;
using Shape = SmallVector<int64_t>;

bool msmlir::mindir::hasRepresentableSize(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return true;   // other constraints speak about these
  int64_t n = 1;
  for (int64_t d : t.getShape())
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return false;
  unsigned bits = t.getElementType().isIntOrFloat() ? t.getElementType().getIntOrFloatBitWidth()
                                                    : 64;
  int64_t bytes;
  return !llvm::MulOverflow(n, int64_t(std::max(1u, bits / 8)), bytes);
}

LogicalResult msmlir::mindir::checkInferredSizes(Loc loc, ArrayRef<Type> inferred) {
  for (Type t : inferred)
    if (!hasRepresentableSize(t))
      return emitOptionalError(loc, "result type ", t, " is too large (its element count or "
                                                       "byte size does not fit in int64)");
  return success();
}

namespace {
/// Formats a number for messages as the user wrote it (%g: 0.5, 1e-05).
std::string num(double v) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%g", v);
  return out;
}

/// Formats a shape as [2, 3] for messages.
std::string fmt(ArrayRef<int64_t> s) {
  std::string out = "[";
  for (auto [i, d] : llvm::enumerate(s))
    out += (i ? ", " : "") + std::to_string(d);
  return out + "]";
}

/// The operand as a ranked, statically shaped tensor type (inference may run
/// on operands that no verifier has checked yet when ops are built from
/// Python, so this is checked here and not only by the ODS constraints).
FailureOr<RankedTensorType> ranked(Loc loc, Value v, StringRef what) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return emitOptionalError(loc, what, " must be a statically shaped tensor, got ",
                             v.getType());
  return t;
}

/// a + b + ... with int64 overflow reported as a located error.
FailureOr<int64_t> checkedSum(Loc loc, std::initializer_list<int64_t> terms, StringRef what) {
  int64_t total = 0;
  for (int64_t t : terms)
    if (llvm::AddOverflow(total, t, total))
      return emitOptionalError(loc, what, " overflows int64");
  return total;
}

/// a * b with int64 overflow reported as a located error.
FailureOr<int64_t> checkedProduct(Loc loc, int64_t a, int64_t b, StringRef what) {
  int64_t r;
  if (llvm::MulOverflow(a, b, r))
    return emitOptionalError(loc, what, " overflows int64");
  return r;
}

/// Checks that a shape given as an attribute has no negative dims.
LogicalResult checkShapeAttr(Loc loc, ArrayRef<int64_t> shape, StringRef what) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return emitOptionalError(loc, what, " ", fmt(shape), " has a negative dim");
  return success();
}

/// Normalizes a possibly negative axis into [0, rank).
FailureOr<int64_t> normAxis(Loc loc, int64_t axis, int64_t rank, StringRef what = "axis") {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return emitOptionalError(loc, what, " ", axis, " is out of range for rank ", rank);
  return a;
}

/// NumPy broadcasting of two shapes.
FailureOr<Shape> broadcast(Loc loc, ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return emitOptionalError(loc, "shapes ", fmt(a), " and ", fmt(b),
                               " cannot be broadcast together");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Broadcasts all operand shapes; requires equal element types when
/// `sameElem` (listing operand indices to compare).
FailureOr<Shape> broadcastAll(Loc loc, ValueRange values) {
  Shape shape;
  for (Value v : values) {
    auto t = ranked(loc, v, "operand");
    if (failed(t))
      return failure();
    auto b = broadcast(loc, shape, t->getShape());
    if (failed(b))
      return failure();
    shape = *b;
  }
  return shape;
}

LogicalResult sameElementType(Loc loc, ValueRange values) {
  Type first;
  for (Value v : values) {
    Type et = cast<ShapedType>(v.getType()).getElementType();
    if (first && et != first)
      return emitOptionalError(loc, "operands must have the same element type, got ",
                               first, " and ", et);
    first = et;
  }
  return success();
}

LogicalResult inferBroadcast(Loc loc, ValueRange values, Type resultElem,
                             SmallVectorImpl<Type> &inferred) {
  auto shape = broadcastAll(loc, values);
  if (failed(shape))
    return failure();
  if (!resultElem)
    resultElem = cast<ShapedType>(values.front().getType()).getElementType();
  inferred.push_back(RankedTensorType::get(*shape, resultElem));
  return success();
}

/// Output size of one spatial dim of a convolution/pooling window.
FailureOr<int64_t> windowOut(Loc loc, PadMode padMode, int64_t in, int64_t k,
                             int64_t stride, int64_t dilation, int64_t padLo,
                             int64_t padHi) {
  if (stride <= 0 || dilation <= 0 || k <= 0)
    return emitOptionalError(loc, "kernel size, stride and dilation must be positive");
  if (padLo < 0 || padHi < 0)
    return emitOptionalError(loc, "padding must be non-negative");
  auto span = checkedProduct(loc, dilation, k - 1, "the window size");
  if (failed(span))
    return failure();
  auto effOr = checkedSum(loc, {*span, 1}, "the window size");
  auto padded = checkedSum(loc, {in, padLo, padHi}, "the padded input size");
  if (failed(effOr) || failed(padded))
    return failure();
  int64_t eff = *effOr;
  int64_t out = 0;
  switch (padMode) {
  case PadMode::same:
    out = in / stride + (in % stride != 0);
    break;
  case PadMode::valid:
    out = in >= eff ? (in - eff) / stride + 1 : 0;
    break;
  case PadMode::pad:
    out = *padded >= eff ? (*padded - eff) / stride + 1 : 0;
    break;
  }
  if (out <= 0)
    return emitOptionalError(loc, "window of size ", eff, " does not fit an input of size ",
                             in, " (pad_mode \"", stringifyPadMode(padMode), "\")");
  return out;
}

LogicalResult checkWindowAttrs(Loc loc, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> dilation, PadMode padMode,
                               ArrayRef<int64_t> pad) {
  if (kernel.size() != 2 || stride.size() != 2 || dilation.size() != 2)
    return emitOptionalError(loc, "kernel size, stride and dilation must have 2 values");
  if (pad.size() != 4)
    return emitOptionalError(loc, "pad must have 4 values [top, bottom, left, right], got ",
                             pad.size());
  if (llvm::any_of(pad, [](int64_t p) { return p < 0; }))
    return emitOptionalError(loc, "pad values must be non-negative");
  if (padMode != PadMode::pad && llvm::any_of(pad, [](int64_t p) { return p != 0; }))
    return emitOptionalError(loc, "pad must be all zero unless pad_mode is \"pad\", got ",
                             fmt(pad), " with pad_mode \"", stringifyPadMode(padMode), "\"");
  return success();
}

/// Output shape of a 2-D convolution of `in` (NCHW) with `w` (OIHW).
FailureOr<Shape> convOut(Loc loc, ArrayRef<int64_t> in, ArrayRef<int64_t> w,
                         ArrayRef<int64_t> stride, PadMode padMode, ArrayRef<int64_t> pad,
                         ArrayRef<int64_t> dilation, int64_t group) {
  if (in.size() != 4 || w.size() != 4)
    return emitOptionalError(loc, "conv2d expects a 4-D NCHW input and a 4-D OIHW weight, got ",
                             fmt(in), " and ", fmt(w));
  if (failed(checkShapeAttr(loc, in, "input shape")) ||
      failed(checkShapeAttr(loc, w, "weight shape")) ||
      failed(checkWindowAttrs(loc, w.drop_front(2), stride, dilation, padMode, pad)))
    return failure();
  if (group <= 0 || in[1] % group || w[0] % group)
    return emitOptionalError(loc, "group ", group, " must divide the input channels ", in[1],
                             " and the output channels ", w[0]);
  if (in[1] / group != w[1])
    return emitOptionalError(loc, "input has ", in[1], " channels but the weight expects ",
                             w[1] * group, " (", w[1], " per group x ", group, " groups)");
  auto h = windowOut(loc, padMode, in[2], w[2], stride[0], dilation[0], pad[0], pad[1]);
  auto wd = windowOut(loc, padMode, in[3], w[3], stride[1], dilation[1], pad[2], pad[3]);
  if (failed(h) || failed(wd))
    return failure();
  return Shape{in[0], w[0], *h, *wd};
}

FailureOr<Shape> poolOut(Loc loc, ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                         ArrayRef<int64_t> strides, PadMode padMode, ArrayRef<int64_t> pad) {
  if (in.size() != 4)
    return emitOptionalError(loc, "pooling expects a 4-D NCHW input, got ", fmt(in));
  SmallVector<int64_t> dil = {1, 1};
  if (failed(checkShapeAttr(loc, in, "input shape")) ||
      failed(checkWindowAttrs(loc, kernel, strides, dil, padMode, pad)))
    return failure();
  auto h = windowOut(loc, padMode, in[2], kernel[0], strides[0], 1, pad[0], pad[1]);
  auto w = windowOut(loc, padMode, in[3], kernel[1], strides[1], 1, pad[2], pad[3]);
  if (failed(h) || failed(w))
    return failure();
  return Shape{in[0], in[1], *h, *w};
}

LogicalResult expectShape(Loc loc, ArrayRef<int64_t> got, ArrayRef<int64_t> want,
                          StringRef what) {
  if (got != want)
    return emitOptionalError(loc, what, " has shape ", fmt(got), " but ", fmt(want),
                             " was expected");
  return success();
}

Type elemOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }
ArrayRef<int64_t> shapeOf(Value v) { return cast<ShapedType>(v.getType()).getShape(); }

/// Checks that every value is a ranked tensor (inference may run on
/// unverified operands when ops are built from Python).
LogicalResult allRanked(Loc loc, ValueRange values) {
  for (Value v : values)
    if (failed(ranked(loc, v, "operand")))
      return failure();
  return success();
}

/// A splat constant equal to `v` (for x + 0, x * 1 style folds).
bool isSplat(Attribute attr, double v, bool negZero = false) {
  auto dense = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!dense)
    return false;
  Type et = dense.getElementType();
  if (isa<FloatType>(et)) {
    APFloat f = dense.getSplatValue<APFloat>();
    if (v == 0.0)
      return f.isZero() && f.isNegative() == negZero;
    bool lost;
    APFloat want(v);
    want.convert(f.getSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return f.compare(want) == APFloat::cmpEqual;
  }
  if (isa<IntegerType>(et))
    return dense.getSplatValue<APInt>().getSExtValue() == static_cast<int64_t>(v);
  return false;
}

//===----------------------------------------------------------------------===//
// Constant folding on splats. Only operations whose result is exactly
// determined (IEEE-754 round-to-nearest-even arithmetic, two's-complement
// integers) are folded; a folded float result that is NaN is left unfolded
// (NaN sign/payload are target specific), and so are integer divisions by
// zero and overflowing signed divisions.
//===----------------------------------------------------------------------===//

SplatElementsAttr splatOf(Attribute a) { return dyn_cast_or_null<SplatElementsAttr>(a); }

/// The static result type an elementwise fold produces, or null.
ShapedType staticResult(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape() ? rt : ShapedType();
}

using FloatUnary = function_ref<std::optional<APFloat>(const APFloat &)>;
using IntUnary = function_ref<std::optional<APInt>(const APInt &)>;
using FloatBinary = function_ref<std::optional<APFloat>(const APFloat &, const APFloat &)>;
using IntBinary = function_ref<std::optional<APInt>(const APInt &, const APInt &)>;

Attribute makeSplat(ShapedType t, const APFloat &v) {
  return DenseElementsAttr::get(t, ArrayRef<APFloat>(v));
}
Attribute makeSplat(ShapedType t, const APInt &v) {
  return DenseElementsAttr::get(t, ArrayRef<APInt>(v));
}
Attribute makeSplat(ShapedType t, bool v) { return DenseElementsAttr::get(t, ArrayRef<bool>(v)); }

Attribute foldUnarySplat(Attribute x, Type result, FloatUnary ff, IntUnary fi) {
  auto s = splatOf(x);
  ShapedType rt = staticResult(result);
  if (!s || !rt)
    return {};
  if (isa<FloatType>(s.getElementType())) {
    APFloat v = s.getSplatValue<APFloat>();
    if (!ff || v.isNaN())
      return {};
    std::optional<APFloat> r = ff(v);
    return r && !r->isNaN() ? makeSplat(rt, *r) : Attribute();
  }
  if (!fi)
    return {};
  std::optional<APInt> r = fi(s.getSplatValue<APInt>());
  return r ? makeSplat(rt, *r) : Attribute();
}

Attribute foldBinarySplat(ArrayRef<Attribute> operands, Type result, FloatBinary ff,
                          IntBinary fi) {
  auto l = splatOf(operands[0]), r = splatOf(operands[1]);
  ShapedType rt = staticResult(result);
  if (!l || !r || !rt || l.getElementType() != r.getElementType())
    return {};
  if (isa<FloatType>(l.getElementType())) {
    APFloat a = l.getSplatValue<APFloat>(), b = r.getSplatValue<APFloat>();
    if (!ff || a.isNaN() || b.isNaN())
      return {};
    std::optional<APFloat> v = ff(a, b);
    return v && !v->isNaN() ? makeSplat(rt, *v) : Attribute();
  }
  if (!fi)
    return {};
  std::optional<APInt> v = fi(l.getSplatValue<APInt>(), r.getSplatValue<APInt>());
  return v ? makeSplat(rt, *v) : Attribute();
}

/// Compares two splats: floats as IEEE (unordered with NaN), integers signed
/// except i1 (unsigned: false < true).
Attribute foldCompareSplat(ArrayRef<Attribute> operands, Type result,
                           function_ref<bool(APFloat::cmpResult)> pred) {
  auto l = splatOf(operands[0]), r = splatOf(operands[1]);
  ShapedType rt = staticResult(result);
  if (!l || !r || !rt || l.getElementType() != r.getElementType())
    return {};
  APFloat::cmpResult c;
  if (isa<FloatType>(l.getElementType())) {
    c = l.getSplatValue<APFloat>().compare(r.getSplatValue<APFloat>());
  } else {
    APInt a = l.getSplatValue<APInt>(), b = r.getSplatValue<APInt>();
    bool isBool = a.getBitWidth() == 1;
    c = a == b                              ? APFloat::cmpEqual
        : (isBool ? a.ult(b) : a.slt(b)) ? APFloat::cmpLessThan
                                            : APFloat::cmpGreaterThan;
  }
  return makeSplat(rt, pred(c));
}

/// A splat constant reshaped/rearranged to the (static) result type, or a
/// dense constant reshaped (row-major order is unchanged) when `reshape`.
OpFoldResult foldShapeOfConstant(Attribute x, Type result, bool reshape) {
  ShapedType rt = staticResult(result);
  if (!rt)
    return {};
  if (auto s = splatOf(x))
    return s.resizeSplat(rt);
  if (auto d = dyn_cast_or_null<DenseElementsAttr>(x); d && reshape)
    return d.reshape(rt);
  return {};
}

/// x when the op does not change its type (an identity reshape/slice/...).
OpFoldResult sameTypeIdentity(Value x, Type result) {
  return x.getType() == result ? OpFoldResult(x) : OpFoldResult();
}
} // namespace

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, Loc, Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  inferred.push_back(cast<TypedAttr>(adaptor.getValue()).getType());
  return success();
}
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult FillOp::verify() {
  Type vt = cast<TypedAttr>(getValue()).getType();
  if (vt != getType().getElementType())
    return emitOpError("fill value has type ") << vt << " but the result element type is "
                                               << getType().getElementType();
  return success();
}
OpFoldResult FillOp::fold(FoldAdaptor) {
  ShapedType rt = staticResult(getType());
  // (The type check also keeps DenseElementsAttr::get from asserting if the
  // folder ever runs on unverified IR.)
  if (!rt || !isa<IntegerAttr, FloatAttr>(getValue()) ||
      cast<TypedAttr>(getValue()).getType() != rt.getElementType())
    return {};
  return DenseElementsAttr::get(rt, ArrayRef<Attribute>(getValue()));
}

static OpFoldResult foldSplatLike(Value x, bool one) {
  auto t = cast<RankedTensorType>(x.getType());
  if (!t.hasStaticShape())
    return {};
  Builder b(x.getContext());
  Attribute scalar = one ? b.getOneAttr(t.getElementType()) : b.getZeroAttr(t.getElementType());
  return DenseElementsAttr::get(t, scalar);
}
OpFoldResult ZerosLikeOp::fold(FoldAdaptor) { return foldSplatLike(getX(), false); }
OpFoldResult OnesLikeOp::fold(FoldAdaptor) { return foldSplatLike(getX(), true); }

LogicalResult ArangeOp::verify() {
  double start = getStart().convertToDouble(), limit = getLimit().convertToDouble(),
         delta = getDelta().convertToDouble();
  if (delta == 0)
    return emitOpError("delta must not be zero");
  int64_t n = std::max<int64_t>(0, (int64_t)std::ceil((limit - start) / delta));
  if (getType().getRank() != 1 || getType().getDimSize(0) != n)
    return emitOpError("range [") << num(start) << ", " << num(limit) << ") with step " << num(delta)
                                  << " has " << n << " elements, but the result type is "
                                  << getType();
  return success();
}

LogicalResult RandomUniformOp::verify() {
  double lo = getMinval().convertToDouble(), hi = getMaxval().convertToDouble();
  if (!(lo < hi))
    return emitOpError("minval must be less than maxval, got [") << num(lo) << ", " << num(hi) << ")";
  return success();
}
LogicalResult RandomNormalOp::verify() {
  double sd = getStddev().convertToDouble();
  if (!(sd >= 0.0))
    return emitOpError("stddev must be non-negative, got ") << num(sd);
  return success();
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor a) {
  if (auto inner = getX().getDefiningOp<NegOp>())
    return inner.getX();
  return foldUnarySplat(
      a.getX(), getType(), [](const APFloat &v) -> std::optional<APFloat> { return neg(v); },
      [](const APInt &v) -> std::optional<APInt> { return -v; });
}
OpFoldResult AbsOp::fold(FoldAdaptor a) {
  // abs(abs(x)) = abs(x); abs(neg(x)) = abs(x) (also for the wrapping INT_MIN).
  if (getX().getDefiningOp<AbsOp>())
    return getX();
  if (auto inner = getX().getDefiningOp<NegOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  return foldUnarySplat(
      a.getX(), getType(), [](const APFloat &v) -> std::optional<APFloat> { return abs(v); },
      [](const APInt &v) -> std::optional<APInt> {
        if (v.isMinSignedValue())
          return std::nullopt;
        return v.abs();
      });
}
OpFoldResult SquareOp::fold(FoldAdaptor a) {
  return foldUnarySplat(
      a.getX(), getType(),
      [](const APFloat &v) -> std::optional<APFloat> {
        APFloat r = v;
        r.multiply(v, APFloat::rmNearestTiesToEven);
        return r;
      },
      [](const APInt &v) -> std::optional<APInt> { return v * v; });
}
OpFoldResult ReluOp::fold(FoldAdaptor a) {
  if (getX().getDefiningOp<ReluOp>())
    return getX();
  // relu(-0.0) is left alone: whether it gives -0.0 or +0.0 is target specific.
  return foldUnarySplat(
      a.getX(), getType(),
      [](const APFloat &v) -> std::optional<APFloat> {
        if (v.isZero() && v.isNegative())
          return std::nullopt;
        return v.isNegative() ? APFloat::getZero(v.getSemantics()) : v;
      },
      [](const APInt &v) -> std::optional<APInt> {
        return v.isNegative() ? APInt::getZero(v.getBitWidth()) : v;
      });
}
static OpFoldResult foldRounding(Attribute x, Type result, APFloat::roundingMode mode) {
  return foldUnarySplat(
      x, result,
      [mode](const APFloat &v) -> std::optional<APFloat> {
        APFloat r = v;
        r.roundToIntegral(mode);
        return r;
      },
      nullptr);
}
OpFoldResult FloorOp::fold(FoldAdaptor a) {
  return foldRounding(a.getX(), getType(), APFloat::rmTowardNegative);
}
OpFoldResult CeilOp::fold(FoldAdaptor a) {
  return foldRounding(a.getX(), getType(), APFloat::rmTowardPositive);
}
OpFoldResult RoundOp::fold(FoldAdaptor a) {
  return foldRounding(a.getX(), getType(), APFloat::rmNearestTiesToEven);
}
OpFoldResult LogicalNotOp::fold(FoldAdaptor a) {
  if (auto inner = getX().getDefiningOp<LogicalNotOp>())
    return inner.getX();
  return foldUnarySplat(a.getX(), getType(), nullptr,
                        [](const APInt &v) -> std::optional<APInt> { return ~v; });
}

static LogicalResult inferPredicate(Loc loc, Value x, SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, x, "input");
  if (failed(t))
    return failure();
  inferred.push_back(RankedTensorType::get(t->getShape(), IntegerType::get(x.getContext(), 1)));
  return success();
}
LogicalResult IsNanOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                        SmallVectorImpl<Type> &inferred) {
  return inferPredicate(loc, a.getX(), inferred);
}
LogicalResult IsFiniteOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                           SmallVectorImpl<Type> &inferred) {
  return inferPredicate(loc, a.getX(), inferred);
}

LogicalResult CastOp::verify() {
  if (getX().getType().getShape() != getY().getType().getShape())
    return emitOpError("cast cannot change the shape: ")
           << getX().getType() << " to " << getY().getType();
  return success();
}
OpFoldResult CastOp::fold(FoldAdaptor a) {
  if (getX().getType() == getY().getType())
    return getX();
  auto s = splatOf(a.getX());
  ShapedType rt = staticResult(getType());
  if (!s || !rt)
    return {};
  Type from = s.getElementType(), to = rt.getElementType();
  bool fromFloat = isa<FloatType>(from);
  std::optional<APFloat> f;
  std::optional<APInt> i;
  if (fromFloat) {
    f = s.getSplatValue<APFloat>();
    if (f->isNaN())
      return {};
  } else {
    i = s.getSplatValue<APInt>();
  }
  if (auto toF = dyn_cast<FloatType>(to)) {
    APFloat r(toF.getFloatSemantics());
    bool lost;
    if (fromFloat) {
      r = *f;
      r.convert(toF.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    } else {
      // i1 converts as 0/1, every other integer as signed.
      r.convertFromAPInt(*i, /*IsSigned=*/i->getBitWidth() != 1, APFloat::rmNearestTiesToEven);
    }
    return makeSplat(rt, r);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  if (width == 1)
    return makeSplat(rt, fromFloat ? !f->isZero() : !i->isZero());
  if (fromFloat) {
    APSInt r(width, /*isUnsigned=*/false);
    bool exact;
    if (f->convertToInteger(r, APFloat::rmTowardZero, &exact) & APFloat::opInvalidOp)
      return {}; // out of range: undefined
    return makeSplat(rt, APInt(r));
  }
  return makeSplat(rt, i->getBitWidth() == 1 ? i->zextOrTrunc(width) : i->sextOrTrunc(width));
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

#define MI_INFER_ARITH(OP)                                                          \
  LogicalResult OP::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,            \
                                     SmallVectorImpl<Type> &inferred) {            \
    if (failed(allRanked(loc, a.getOperands())) ||                                 \
        failed(sameElementType(loc, a.getOperands())))                             \
      return failure();                                                            \
    return inferBroadcast(loc, a.getOperands(), Type(), inferred);                 \
  }
MI_INFER_ARITH(AddOp)
MI_INFER_ARITH(SubOp)
MI_INFER_ARITH(MulOp)
MI_INFER_ARITH(DivOp)
MI_INFER_ARITH(FloorDivOp)
MI_INFER_ARITH(ModOp)
MI_INFER_ARITH(PowOp)
MI_INFER_ARITH(MaximumOp)
MI_INFER_ARITH(MinimumOp)
MI_INFER_ARITH(LogicalAndOp)
MI_INFER_ARITH(LogicalOrOp)
MI_INFER_ARITH(ClampOp)
// integer bitwise ops (issue 12)
MI_INFER_ARITH(BitwiseAndOp)
MI_INFER_ARITH(BitwiseOrOp)
MI_INFER_ARITH(BitwiseXorOp)
MI_INFER_ARITH(LeftShiftOp)
MI_INFER_ARITH(RightShiftOp)
#undef MI_INFER_ARITH

#define MI_INFER_COMPARE(OP)                                                        \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx, Loc loc, Adaptor a,         \
                                     SmallVectorImpl<Type> &inferred) {            \
    if (failed(allRanked(loc, a.getOperands())) ||                                 \
        failed(sameElementType(loc, a.getOperands())))                             \
      return failure();                                                            \
    return inferBroadcast(loc, a.getOperands(), IntegerType::get(ctx, 1), inferred); \
  }
MI_INFER_COMPARE(EqualOp)
MI_INFER_COMPARE(NotEqualOp)
MI_INFER_COMPARE(LessOp)
MI_INFER_COMPARE(LessEqualOp)
MI_INFER_COMPARE(GreaterOp)
MI_INFER_COMPARE(GreaterEqualOp)
#undef MI_INFER_COMPARE

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                         SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) ||
      failed(sameElementType(loc, {a.getX(), a.getY()})))
    return failure();
  return inferBroadcast(loc, a.getOperands(), elemOf(a.getX()), inferred);
}

/// x op c -> x when c is a splat identity and the result keeps x's type.
static OpFoldResult foldIdentity(Value x, Attribute c, Type result, double identity,
                                 bool negZero = false) {
  if (x.getType() == result && isSplat(c, identity, negZero))
    return x;
  return {};
}
static constexpr APFloat::roundingMode kRNE = APFloat::rmNearestTiesToEven;

OpFoldResult AddOp::fold(FoldAdaptor a) {
  if (Attribute c = foldBinarySplat(
          a.getOperands(), getType(),
          [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
            APFloat r = x;
            r.add(y, kRNE);
            return r;
          },
          [](const APInt &x, const APInt &y) -> std::optional<APInt> { return x + y; }))
    return c;
  bool isFloat = isa<FloatType>(getType().getElementType());
  // x + (-0.0) == x exactly; x + 0.0 would turn -0.0 into +0.0.
  if (auto r = foldIdentity(getLhs(), a.getRhs(), getType(), 0.0, isFloat))
    return r;
  return foldIdentity(getRhs(), a.getLhs(), getType(), 0.0, isFloat);
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  if (Attribute c = foldBinarySplat(
          a.getOperands(), getType(),
          [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
            APFloat r = x;
            r.subtract(y, kRNE);
            return r;
          },
          [](const APInt &x, const APInt &y) -> std::optional<APInt> { return x - y; }))
    return c;
  // x - (+0.0) == x exactly (also for x = -0.0); x - (-0.0) is not folded.
  return foldIdentity(getLhs(), a.getRhs(), getType(), 0.0);
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  if (Attribute c = foldBinarySplat(
          a.getOperands(), getType(),
          [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
            APFloat r = x;
            r.multiply(y, kRNE);
            return r;
          },
          [](const APInt &x, const APInt &y) -> std::optional<APInt> { return x * y; }))
    return c;
  if (auto r = foldIdentity(getLhs(), a.getRhs(), getType(), 1.0))
    return r;
  return foldIdentity(getRhs(), a.getLhs(), getType(), 1.0);
}
OpFoldResult DivOp::fold(FoldAdaptor a) {
  if (Attribute c = foldBinarySplat(
          a.getOperands(), getType(),
          [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
            APFloat r = x;
            r.divide(y, kRNE);
            return r;
          },
          [](const APInt &x, const APInt &y) -> std::optional<APInt> {
            if (y.isZero() || (x.isMinSignedValue() && y.isAllOnes()))
              return std::nullopt;
            return x.sdiv(y);
          }))
    return c;
  return foldIdentity(getLhs(), a.getRhs(), getType(), 1.0);
}
OpFoldResult MaximumOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldBinarySplat(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return maximum(x, y);
      },
      [](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return llvm::APIntOps::smax(x, y);
      });
}
OpFoldResult MinimumOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldBinarySplat(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return minimum(x, y);
      },
      [](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return llvm::APIntOps::smin(x, y);
      });
}

#define MI_FOLD_COMPARE(OP, PRED)                                                   \
  OpFoldResult OP::fold(FoldAdaptor a) {                                           \
    return foldCompareSplat(a.getOperands(), getType(),                            \
                            [](APFloat::cmpResult c) -> bool { return PRED; });    \
  }
MI_FOLD_COMPARE(EqualOp, c == APFloat::cmpEqual)
MI_FOLD_COMPARE(NotEqualOp, c != APFloat::cmpEqual)
MI_FOLD_COMPARE(LessOp, c == APFloat::cmpLessThan)
MI_FOLD_COMPARE(LessEqualOp, c == APFloat::cmpLessThan || c == APFloat::cmpEqual)
MI_FOLD_COMPARE(GreaterOp, c == APFloat::cmpGreaterThan)
MI_FOLD_COMPARE(GreaterEqualOp, c == APFloat::cmpGreaterThan || c == APFloat::cmpEqual)
#undef MI_FOLD_COMPARE

/// logical_and/or: x op x = x; x op identity = x; x op absorbing = absorbing.
static OpFoldResult foldLogical(Value lhs, Value rhs, ArrayRef<Attribute> operands,
                                Type result, bool isAnd) {
  if (lhs == rhs && lhs.getType() == result)
    return lhs;
  if (Attribute c = foldBinarySplat(operands, result, nullptr,
                                    [isAnd](const APInt &x, const APInt &y)
                                        -> std::optional<APInt> { return isAnd ? x & y : x | y; }))
    return c;
  ShapedType rt = staticResult(result);
  for (auto [x, c] : {std::pair{lhs, operands[1]}, std::pair{rhs, operands[0]}}) {
    auto s = splatOf(c);
    if (!s)
      continue;
    bool v = s.getSplatValue<APInt>().getBoolValue();
    if (v == isAnd && x.getType() == result)
      return x;
    if (v != isAnd && rt)
      return makeSplat(rt, v);
  }
  return {};
}
OpFoldResult LogicalAndOp::fold(FoldAdaptor a) {
  return foldLogical(getLhs(), getRhs(), a.getOperands(), getType(), true);
}
OpFoldResult LogicalOrOp::fold(FoldAdaptor a) {
  return foldLogical(getLhs(), getRhs(), a.getOperands(), getType(), false);
}

OpFoldResult SelectOp::fold(FoldAdaptor a) {
  if (getX() == getY() && getX().getType() == getType())
    return getX();
  if (auto c = splatOf(a.getCond())) {
    Value pick = c.getSplatValue<APInt>().getBoolValue() ? getX() : getY();
    if (pick.getType() == getType())
      return pick;
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(Loc loc, Value x, ArrayRef<int64_t> axes, bool keepDims,
                                 Type elem, SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, x, "input");
  if (failed(t))
    return failure();
  int64_t rank = t->getRank();
  llvm::SmallSet<int64_t, 8> reduced;
  for (int64_t ax : axes) {
    auto n = normAxis(loc, ax, rank);
    if (failed(n))
      return failure();
    if (!reduced.insert(*n).second)
      return emitOptionalError(loc, "axis ", ax, " is repeated");
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i) {
    bool r = axes.empty() || reduced.contains(i);
    if (!r)
      out.push_back(t->getDimSize(i));
    else if (keepDims)
      out.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(out, elem ? elem : t->getElementType()));
  return success();
}

#define MI_INFER_REDUCE(OP)                                                         \
  LogicalResult OP::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,            \
                                     SmallVectorImpl<Type> &inferred) {            \
    return inferReduce(loc, a.getX(), a.getAxes(), a.getKeepDims(), Type(), inferred); \
  }
MI_INFER_REDUCE(ReduceSumOp)
MI_INFER_REDUCE(ReduceMeanOp)
MI_INFER_REDUCE(ReduceMaxOp)
MI_INFER_REDUCE(ReduceMinOp)
MI_INFER_REDUCE(ReduceProdOp)
#undef MI_INFER_REDUCE

// A reduction that keeps the type only reduces unit dims (or a 0-d tensor):
// every output element is one input element. The max/min of a splat is the
// splat value (sum/mean/prod of a splat would round, so they are not folded).
#define MI_FOLD_REDUCE(OP, SPLAT)                                                   \
  OpFoldResult OP::fold(FoldAdaptor a) {                                           \
    if (OpFoldResult r = sameTypeIdentity(getX(), getType()))                      \
      return r;                                                                    \
    if (auto s = splatOf(a.getX()); SPLAT && s && staticResult(getType()))         \
      if (!isa<FloatType>(s.getElementType()) || !s.getSplatValue<APFloat>().isNaN()) \
        return s.resizeSplat(cast<ShapedType>(getType()));                         \
    return {};                                                                     \
  }
MI_FOLD_REDUCE(ReduceSumOp, false)
MI_FOLD_REDUCE(ReduceMeanOp, false)
MI_FOLD_REDUCE(ReduceMaxOp, true)
MI_FOLD_REDUCE(ReduceMinOp, true)
MI_FOLD_REDUCE(ReduceProdOp, false)
#undef MI_FOLD_REDUCE

#define MI_INFER_ARG(OP)                                                            \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx, Loc loc, Adaptor a,         \
                                     SmallVectorImpl<Type> &inferred) {            \
    auto t = ranked(loc, a.getX(), "input");                                       \
    if (failed(t))                                                                 \
      return failure();                                                            \
    int64_t axis = a.getAxis();                                                    \
    if (t->getRank() == 0)                                                         \
      return emitOptionalError(loc, "argmax/argmin need a tensor of rank >= 1");   \
    auto ax = normAxis(loc, axis, t->getRank());                                   \
    if (failed(ax))                                                                \
      return failure();                                                            \
    if (t->getDimSize(*ax) == 0) /* numpy and MindSpore raise too */               \
      return emitOptionalError(loc, "argmax/argmin of an empty axis (", axis,        \
                               " of shape ", fmt(t->getShape()), ") has no answer");  \
    return inferReduce(loc, a.getX(), {axis}, a.getKeepDims(),                     \
                       IntegerType::get(ctx, 32), inferred);                       \
  }
MI_INFER_ARG(ArgmaxOp)
MI_INFER_ARG(ArgminOp)
#undef MI_INFER_ARG

//===----------------------------------------------------------------------===//
// Sorting
//===----------------------------------------------------------------------===//

LogicalResult SortOp::inferReturnTypes(MLIRContext *ctx, Loc loc, Adaptor a,
                                       SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  if (t->getRank() == 0)
    return emitOptionalError(loc, "sort needs a tensor of rank >= 1");
  auto axis = normAxis(loc, a.getAxis(), t->getRank());
  if (failed(axis))
    return failure();
  int64_t n = t->getShape()[*axis];
  if (n > std::numeric_limits<int32_t>::max())
    return emitOptionalError(loc, "sort axis of size ", n, " does not fit i32 indices");
  inferred.push_back(*t);
  inferred.push_back(RankedTensorType::get(t->getShape(), IntegerType::get(ctx, 32)));
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

static LogicalResult inferMatmul(Loc loc, Value a, Value b, bool ta, bool tb, bool batched,
                                 SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, {a, b})) || failed(sameElementType(loc, {a, b})))
    return failure();
  ArrayRef<int64_t> sa = shapeOf(a), sb = shapeOf(b);
  if (!batched && (sa.size() != 2 || sb.size() != 2))
    return emitOptionalError(loc, "matmul expects 2-D operands, got ", fmt(sa), " and ",
                             fmt(sb));
  if (batched && (sa.size() < 3 || sb.size() < 3))
    return emitOptionalError(loc, "batch_matmul expects operands of rank >= 3, got ",
                             fmt(sa), " and ", fmt(sb));
  int64_t ra = sa.size(), rb = sb.size();
  int64_t m = ta ? sa[ra - 1] : sa[ra - 2], ka = ta ? sa[ra - 2] : sa[ra - 1];
  int64_t kb = tb ? sb[rb - 1] : sb[rb - 2], n = tb ? sb[rb - 2] : sb[rb - 1];
  if (ka != kb)
    return emitOptionalError(loc, "contraction dims differ: ", fmt(sa),
                             ta ? " (transposed)" : "", " x ", fmt(sb),
                             tb ? " (transposed)" : "", " contracts ", ka, " with ", kb);
  Shape out;
  if (batched) {
    auto bs = broadcast(loc, sa.drop_back(2), sb.drop_back(2));
    if (failed(bs))
      return failure();
    out = *bs;
  }
  out.push_back(m);
  out.push_back(n);
  inferred.push_back(RankedTensorType::get(out, elemOf(a)));
  return success();
}
LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                         SmallVectorImpl<Type> &inferred) {
  return inferMatmul(loc, a.getA(), a.getB(), a.getTransposeA(), a.getTransposeB(), false,
                     inferred);
}
LogicalResult BatchMatMulOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                              SmallVectorImpl<Type> &inferred) {
  return inferMatmul(loc, a.getA(), a.getB(), a.getTransposeA(), a.getTransposeB(), true,
                     inferred);
}

LogicalResult BiasAddOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                          SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) || failed(sameElementType(loc, a.getOperands())))
    return failure();
  ArrayRef<int64_t> x = shapeOf(a.getX()), bias = shapeOf(a.getBias());
  if (x.size() < 2)
    return emitOptionalError(loc, "bias_add expects an input of rank >= 2, got ", fmt(x));
  int64_t c = a.getDataFormat() == DataFormat::NCHW ? x[1] : x.back();
  if (bias.size() != 1 || bias[0] != c)
    return emitOptionalError(loc, "bias has shape ", fmt(bias), " but the input has ", c,
                             " channels");
  inferred.push_back(a.getX().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                         SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) || failed(sameElementType(loc, a.getOperands())))
    return failure();
  auto out = convOut(loc, shapeOf(a.getInput()), shapeOf(a.getWeight()), a.getStride(),
                     a.getPadMode(), a.getPad(), a.getDilation(), a.getGroup());
  if (failed(out))
    return failure();
  inferred.push_back(RankedTensorType::get(*out, elemOf(a.getInput())));
  return success();
}

LogicalResult Conv2DBackpropInputOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                                      SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) || failed(sameElementType(loc, a.getOperands())))
    return failure();
  ArrayRef<int64_t> inShape = a.getInputShape();
  auto out = convOut(loc, inShape, shapeOf(a.getWeight()), a.getStride(), a.getPadMode(),
                     a.getPad(), a.getDilation(), a.getGroup());
  if (failed(out) || failed(expectShape(loc, shapeOf(a.getDout()), *out, "dout")))
    return failure();
  inferred.push_back(RankedTensorType::get(inShape, elemOf(a.getDout())));
  return success();
}

LogicalResult Conv2DBackpropFilterOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                                       SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) || failed(sameElementType(loc, a.getOperands())))
    return failure();
  ArrayRef<int64_t> wShape = a.getFilterShape();
  auto out = convOut(loc, shapeOf(a.getInput()), wShape, a.getStride(), a.getPadMode(),
                     a.getPad(), a.getDilation(), a.getGroup());
  if (failed(out) || failed(expectShape(loc, shapeOf(a.getDout()), *out, "dout")))
    return failure();
  inferred.push_back(RankedTensorType::get(wShape, elemOf(a.getDout())));
  return success();
}

#define MI_INFER_POOL(OP)                                                           \
  LogicalResult OP::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,            \
                                     SmallVectorImpl<Type> &inferred) {            \
    if (failed(ranked(loc, a.getX(), "input")))                                    \
      return failure();                                                            \
    auto out = poolOut(loc, shapeOf(a.getX()), a.getKernelSize(), a.getStrides(),  \
                       a.getPadMode(), a.getPad());                                \
    if (failed(out))                                                               \
      return failure();                                                            \
    inferred.push_back(RankedTensorType::get(*out, elemOf(a.getX())));             \
    return success();                                                              \
  }
MI_INFER_POOL(MaxPool2DOp)
MI_INFER_POOL(AvgPool2DOp)
#undef MI_INFER_POOL

LogicalResult MaxPool2DGradOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                                SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) || failed(sameElementType(loc, a.getOperands())))
    return failure();
  auto out = poolOut(loc, shapeOf(a.getX()), a.getKernelSize(), a.getStrides(),
                     a.getPadMode(), a.getPad());
  if (failed(out) || failed(expectShape(loc, shapeOf(a.getDout()), *out, "dout")))
    return failure();
  inferred.push_back(a.getX().getType());
  return success();
}

LogicalResult AvgPool2DGradOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                                SmallVectorImpl<Type> &inferred) {
  if (failed(ranked(loc, a.getDout(), "dout")))
    return failure();
  auto out = poolOut(loc, a.getInputShape(), a.getKernelSize(), a.getStrides(),
                     a.getPadMode(), a.getPad());
  if (failed(out) || failed(expectShape(loc, shapeOf(a.getDout()), *out, "dout")))
    return failure();
  inferred.push_back(RankedTensorType::get(a.getInputShape(), elemOf(a.getDout())));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization, softmax, dropout, losses
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return normAxis(getLoc(), getAxis(), getType().getRank());
}
LogicalResult LogSoftmaxOp::verify() {
  return normAxis(getLoc(), getAxis(), getType().getRank());
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                            SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) || failed(sameElementType(loc, a.getOperands())))
    return failure();
  ArrayRef<int64_t> x = shapeOf(a.getX());
  int64_t rank = x.size();
  auto bna = normAxis(loc, a.getBeginNormAxis(), rank, "begin_norm_axis");
  auto bpa = normAxis(loc, a.getBeginParamsAxis(), rank, "begin_params_axis");
  if (failed(bna) || failed(bpa))
    return failure();
  ArrayRef<int64_t> params = x.drop_front(*bpa);
  if (failed(expectShape(loc, shapeOf(a.getGamma()), params, "gamma")) ||
      failed(expectShape(loc, shapeOf(a.getBeta()), params, "beta")))
    return failure();
  Shape stat(x.begin(), x.end());
  for (int64_t i = *bna; i < rank; ++i)
    stat[i] = 1;
  Type et = elemOf(a.getX());
  inferred.push_back(a.getX().getType());
  inferred.push_back(RankedTensorType::get(stat, et));
  inferred.push_back(RankedTensorType::get(stat, et));
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                            SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) || failed(sameElementType(loc, a.getOperands())))
    return failure();
  ArrayRef<int64_t> x = shapeOf(a.getX());
  if (x.size() < 2)
    return emitOptionalError(loc, "batch_norm expects an input of rank >= 2 (N, C, ...), got ",
                             fmt(x));
  Shape c = {x[1]};
  // Named arrays: a zip over initializer-list temporaries would dangle.
  Value params[] = {a.getScale(), a.getBias(), a.getMean(), a.getVariance()};
  StringRef names[] = {"scale", "bias", "mean", "variance"};
  for (auto [v, name] : llvm::zip(params, names))
    if (failed(expectShape(loc, shapeOf(v), c, name)))
      return failure();
  auto ct = RankedTensorType::get(c, elemOf(a.getX()));
  inferred.push_back(a.getX().getType());
  inferred.push_back(ct);
  inferred.push_back(ct);
  return success();
}

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                          SmallVectorImpl<Type> &inferred) {
  if (failed(ranked(loc, a.getX(), "input")))
    return failure();
  inferred.push_back(a.getX().getType());
  inferred.push_back(a.getX().getType());
  return success();
}
LogicalResult DropoutOp::verify() {
  double p = getKeepProb().convertToDouble();
  if (!(p > 0.0 && p <= 1.0))
    return emitOpError("keep_prob must be in (0, 1], got ") << num(p);
  return success();
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                         SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())) ||
      failed(sameElementType(loc, {a.getOnValue(), a.getOffValue()})))
    return failure();
  if (!shapeOf(a.getOnValue()).empty() || !shapeOf(a.getOffValue()).empty())
    return emitOptionalError(loc, "on_value and off_value must be 0-d tensors");
  // I64Attr getters return uint64_t: read them as the signed values they are
  int64_t depth = static_cast<int64_t>(a.getDepth());
  int64_t axisAttr = static_cast<int64_t>(a.getAxis());
  if (depth <= 0)
    return emitOptionalError(loc, "depth must be positive, got ", depth);
  ArrayRef<int64_t> idx = shapeOf(a.getIndices());
  int64_t axis = axisAttr == -1 ? idx.size() : axisAttr;
  if (axis < 0 || axis > (int64_t)idx.size())
    return emitOptionalError(loc, "axis ", axisAttr, " is out of range for rank ",
                             idx.size() + 1);
  Shape out(idx.begin(), idx.end());
  out.insert(out.begin() + axis, depth);
  inferred.push_back(RankedTensorType::get(out, elemOf(a.getOnValue())));
  return success();
}

static LogicalResult inferCrossEntropy(Loc loc, Value logits, Value labels, bool sparse,
                                       SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, {logits, labels})))
    return failure();
  ArrayRef<int64_t> l = shapeOf(logits);
  if (l.size() != 2)
    return emitOptionalError(loc, "logits must be 2-D [N, C], got ", fmt(l));
  if (sparse) {
    if (failed(expectShape(loc, shapeOf(labels), {l[0]}, "labels")))
      return failure();
  } else if (failed(expectShape(loc, shapeOf(labels), l, "labels")) ||
             failed(sameElementType(loc, {logits, labels}))) {
    return failure();
  }
  inferred.push_back(RankedTensorType::get({l[0]}, elemOf(logits)));
  inferred.push_back(logits.getType());
  return success();
}
LogicalResult SoftmaxCrossEntropyWithLogitsOp::inferReturnTypes(
    MLIRContext *, Loc loc, Adaptor a, SmallVectorImpl<Type> &inferred) {
  return inferCrossEntropy(loc, a.getLogits(), a.getLabels(), false, inferred);
}
LogicalResult SparseSoftmaxCrossEntropyWithLogitsOp::inferReturnTypes(
    MLIRContext *, Loc loc, Adaptor a, SmallVectorImpl<Type> &inferred) {
  return inferCrossEntropy(loc, a.getLogits(), a.getLabels(), true, inferred);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                          SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  Shape out(a.getShape());
  int64_t known = 1, inferIdx = -1;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == -1) {
      if (inferIdx >= 0)
        return emitOptionalError(loc, "reshape target ", fmt(out), " has more than one -1");
      inferIdx = i;
    } else if (d < 0) {
      return emitOptionalError(loc, "reshape target ", fmt(out), " has a negative dim");
    } else {
      auto k = checkedProduct(loc, known, d, "the reshape target's element count");
      if (failed(k))
        return failure();
      known = *k;
    }
  }
  int64_t total = t->getNumElements();
  if (inferIdx >= 0) {
    if (known == 0 || total % known)
      return emitOptionalError(loc, "cannot reshape ", fmt(t->getShape()), " (", total,
                               " elements) to ", fmt(out));
    out[inferIdx] = total / known;
  } else if (known != total) {
    return emitOptionalError(loc, "cannot reshape ", fmt(t->getShape()), " (", total,
                             " elements) to ", fmt(out), " (", known, " elements)");
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  if (getX().getType() == getType())
    return getX();
  if (OpFoldResult c = foldShapeOfConstant(a.getX(), getType(), /*reshape=*/true))
    return c;
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    // The target shape keeps its -1 (if any): it infers the same dim from
    // the inner input, which has the same element count.
    getXMutable().assign(inner.getX());
    return getResult();
  }
  return {};
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                            SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> perm = a.getPerm();
  if ((int64_t)perm.size() != t->getRank())
    return emitOptionalError(loc, "perm ", fmt(perm), " does not match rank ", t->getRank());
  Shape out;
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t p : perm) {
    if (p < 0 || p >= t->getRank() || !seen.insert(p).second)
      return emitOptionalError(loc, "perm ", fmt(perm), " is not a permutation");
    out.push_back(t->getDimSize(p));
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  if (llvm::all_of(llvm::enumerate(getPerm()),
                   [](auto ip) { return (int64_t)ip.index() == ip.value(); }))
    return getX();
  if (OpFoldResult c = foldShapeOfConstant(a.getX(), getType(), /*reshape=*/false))
    return c;
  // transpose(transpose(x, p1), p2) = transpose(x, p1[p2[i]]).
  if (auto inner = getX().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> p1 = inner.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t p : getPerm())
      composed.push_back(p1[p]);
    getXMutable().assign(inner.getX());
    setPermAttr(DenseI64ArrayAttr::get(getContext(), composed));
    return getResult();
  }
  return {};
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                              SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> in = t->getShape();
  Shape out(a.getShape());
  if (out.size() < in.size())
    return emitOptionalError(loc, "cannot broadcast ", fmt(in), " to the lower-rank shape ",
                             fmt(out));
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (i < off)
        return emitOptionalError(loc, "-1 in ", fmt(out), " has no matching input dim");
      out[i] = in[i - off];
    }
    if (out[i] < 0)
      return emitOptionalError(loc, "broadcast shape ", fmt(a.getShape()),
                               " has a negative dim other than -1");
    if (i >= off && in[i - off] != out[i] && in[i - off] != 1)
      return emitOptionalError(loc, "cannot broadcast ", fmt(in), " to ", fmt(a.getShape()));
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult BroadcastToOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = sameTypeIdentity(getX(), getType()))
    return r;
  if (OpFoldResult c = foldShapeOfConstant(a.getX(), getType(), /*reshape=*/false))
    return c;
  // broadcast_to(broadcast_to(x, s1), s2) = broadcast_to(x, s2): broadcasting
  // is transitive. The shape attribute becomes the (static) result shape.
  if (auto inner = getX().getDefiningOp<BroadcastToOp>()) {
    getXMutable().assign(inner.getX());
    setShapeAttr(DenseI64ArrayAttr::get(getContext(), getType().getShape()));
    return getResult();
  }
  return {};
}

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                             SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  auto axis = normAxis(loc, a.getAxis(), t->getRank() + 1);
  if (failed(axis))
    return failure();
  Shape out(t->getShape());
  out.insert(out.begin() + *axis, 1);
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult ExpandDimsOp::fold(FoldAdaptor a) {
  return foldShapeOfConstant(a.getX(), getType(), /*reshape=*/true);
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                          SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  llvm::SmallSet<int64_t, 8> drop;
  for (int64_t ax : a.getAxis()) {
    auto n = normAxis(loc, ax, t->getRank());
    if (failed(n))
      return failure();
    if (t->getDimSize(*n) != 1)
      return emitOptionalError(loc, "cannot squeeze axis ", ax, " of size ",
                               t->getDimSize(*n));
    drop.insert(*n);
  }
  Shape out;
  for (int64_t i = 0; i < t->getRank(); ++i) {
    bool d = a.getAxis().empty() ? t->getDimSize(i) == 1 : drop.contains(i);
    if (!d)
      out.push_back(t->getDimSize(i));
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult SqueezeOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = sameTypeIdentity(getX(), getType()))
    return r;
  return foldShapeOfConstant(a.getX(), getType(), /*reshape=*/true);
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                          SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  if (t->getRank() == 0)
    return emitOptionalError(loc, "flatten expects a tensor of rank >= 1");
  int64_t rest = 1;
  for (int64_t d : t->getShape().drop_front())
    rest *= d;
  inferred.push_back(RankedTensorType::get({t->getDimSize(0), rest}, t->getElementType()));
  return success();
}
OpFoldResult FlattenOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = sameTypeIdentity(getX(), getType()))
    return r;
  return foldShapeOfConstant(a.getX(), getType(), /*reshape=*/true);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                        SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> begin = a.getBegin(), size = a.getSize();
  if ((int64_t)begin.size() != t->getRank() || (int64_t)size.size() != t->getRank())
    return emitOptionalError(loc, "begin and size need one value per dim (rank ",
                             t->getRank(), ")");
  Shape out;
  for (int64_t i = 0; i < t->getRank(); ++i) {
    int64_t dim = t->getDimSize(i);
    bool ok = begin[i] >= 0 && begin[i] <= dim;
    int64_t s = size[i] == -1 && ok ? dim - begin[i] : size[i];
    if (!ok || s < 0 || s > dim - begin[i]) {
      int64_t end;
      if (llvm::AddOverflow(begin[i], s, end))
        return emitOptionalError(loc, "slice of size ", s, " at ", begin[i],
                                 " is out of bounds for dim ", i, " of size ", dim);
      return emitOptionalError(loc, "slice [", begin[i], ", ", end,
                               ") is out of bounds for dim ", i, " of size ", dim);
    }
    out.push_back(s);
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult SliceOp::fold(FoldAdaptor a) {
  // In bounds and of the input's shape: the whole tensor.
  if (OpFoldResult r = sameTypeIdentity(getX(), getType()))
    return r;
  return foldShapeOfConstant(a.getX(), getType(), /*reshape=*/false);
}

LogicalResult StridedSliceOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                               SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> b = a.getBegin(), e = a.getEnd(), s = a.getStrides();
  int64_t rank = t->getRank();
  if ((int64_t)b.size() != rank || (int64_t)e.size() != rank || (int64_t)s.size() != rank)
    return emitOptionalError(loc, "begin, end and strides need one value per dim (rank ",
                             rank, ")");
  Shape out;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = t->getDimSize(i);
    if (s[i] == 0)
      return emitOptionalError(loc, "stride of dim ", i, " is zero");
    bool ok = s[i] > 0 ? (b[i] >= 0 && b[i] <= dim && e[i] >= 0 && e[i] <= dim)
                       : (b[i] >= -1 && b[i] < dim && e[i] >= -1 && e[i] < dim);
    if (!ok)
      return emitOptionalError(loc, "begin ", b[i], " / end ", e[i],
                               " are not normalized indices for dim ", i, " of size ", dim);
    // begin and end are within [-1, dim], so only the stride can overflow
    int64_t span = s[i] > 0 ? e[i] - b[i] : b[i] - e[i];
    int64_t n = 0;
    if (span > 0)
      n = s[i] == std::numeric_limits<int64_t>::min()
              ? 1
              : (span - 1) / (s[i] > 0 ? s[i] : -s[i]) + 1;
    out.push_back(n);
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult StridedSliceOp::fold(FoldAdaptor a) {
  // Unit strides and the input's shape: the whole tensor (a negative stride
  // of the same shape would reverse it).
  if (llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }))
    if (OpFoldResult r = sameTypeIdentity(getX(), getType()))
      return r;
  return foldShapeOfConstant(a.getX(), getType(), /*reshape=*/false);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                         SmallVectorImpl<Type> &inferred) {
  if (a.getInputs().empty())
    return emitOptionalError(loc, "concat needs at least one input");
  if (failed(allRanked(loc, a.getInputs())) || failed(sameElementType(loc, a.getInputs())))
    return failure();
  ArrayRef<int64_t> first = shapeOf(a.getInputs().front());
  auto axis = normAxis(loc, a.getAxis(), first.size());
  if (failed(axis))
    return failure();
  Shape out(first);
  out[*axis] = 0;
  for (Value v : a.getInputs()) {
    ArrayRef<int64_t> s = shapeOf(v);
    if (s.size() != first.size())
      return emitOptionalError(loc, "concat inputs differ in rank: ", fmt(first), " and ",
                               fmt(s));
    for (size_t i = 0; i < s.size(); ++i)
      if ((int64_t)i != *axis && s[i] != first[i])
        return emitOptionalError(loc, "concat inputs ", fmt(first), " and ", fmt(s),
                                 " differ outside axis ", *axis);
    auto sum = checkedSum(loc, {out[*axis], s[*axis]}, "the concatenated size");
    if (failed(sum))
      return failure();
    out[*axis] = *sum;
  }
  inferred.push_back(RankedTensorType::get(out, elemOf(a.getInputs().front())));
  return success();
}
OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return sameTypeIdentity(getInputs().front(), getType());
  return {};
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                        SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  auto axis = normAxis(loc, a.getAxis(), t->getRank());
  if (failed(axis))
    return failure();
  int64_t n = static_cast<int64_t>(a.getOutputNum()), dim = t->getDimSize(*axis);
  if (n <= 0 || dim % n)
    return emitOptionalError(loc, "cannot split dim ", *axis, " of size ", dim, " into ", n,
                             " equal parts");
  Shape out(t->getShape());
  out[*axis] = dim / n;
  inferred.append(n, RankedTensorType::get(out, t->getElementType()));
  return success();
}

LogicalResult StackOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                        SmallVectorImpl<Type> &inferred) {
  if (a.getInputs().empty())
    return emitOptionalError(loc, "stack needs at least one input");
  if (failed(allRanked(loc, a.getInputs())))
    return failure();
  Type first = a.getInputs().front().getType();
  for (Value v : a.getInputs())
    if (v.getType() != first)
      return emitOptionalError(loc, "stack inputs must have the same type, got ", first,
                               " and ", v.getType());
  auto t = cast<RankedTensorType>(first);
  auto axis = normAxis(loc, a.getAxis(), t.getRank() + 1);
  if (failed(axis))
    return failure();
  Shape out(t.getShape());
  out.insert(out.begin() + *axis, a.getInputs().size());
  inferred.push_back(RankedTensorType::get(out, t.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                         SmallVectorImpl<Type> &inferred) {
  if (failed(allRanked(loc, a.getOperands())))
    return failure();
  ArrayRef<int64_t> p = shapeOf(a.getParams()), idx = shapeOf(a.getIndices());
  auto axis = normAxis(loc, a.getAxis(), p.size());
  if (failed(axis))
    return failure();
  Shape out(p.begin(), p.begin() + *axis);
  out.append(idx.begin(), idx.end());
  out.append(p.begin() + *axis + 1, p.end());
  inferred.push_back(RankedTensorType::get(out, elemOf(a.getParams())));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                       SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> m = a.getMultiples();
  if ((int64_t)m.size() < t->getRank())
    return emitOptionalError(loc, "multiples ", fmt(m), " must have at least rank ",
                             t->getRank(), " values");
  Shape out;
  size_t off = m.size() - t->getRank();
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] <= 0)
      return emitOptionalError(loc, "multiples must be positive, got ", fmt(m));
    auto d = checkedProduct(loc, m[i], i < off ? 1 : t->getDimSize(i - off), "the tiled size");
    if (failed(d))
      return failure();
    out.push_back(*d);
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}
OpFoldResult TileOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = sameTypeIdentity(getX(), getType()))
    return r;
  return foldShapeOfConstant(a.getX(), getType(), /*reshape=*/false);
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor a,
                                      SmallVectorImpl<Type> &inferred) {
  auto t = ranked(loc, a.getX(), "input");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> p = a.getPaddings();
  if ((int64_t)p.size() != 2 * t->getRank())
    return emitOptionalError(loc, "paddings need 2 values per dim (", 2 * t->getRank(),
                             "), got ", p.size());
  Shape out;
  for (int64_t i = 0; i < t->getRank(); ++i) {
    if (p[2 * i] < 0 || p[2 * i + 1] < 0)
      return emitOptionalError(loc, "paddings must be non-negative, got ", fmt(p));
    auto d = checkedSum(loc, {t->getDimSize(i), p[2 * i], p[2 * i + 1]}, "the padded size");
    if (failed(d))
      return failure();
    out.push_back(*d);
  }
  inferred.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Automatic differentiation
//===----------------------------------------------------------------------===//

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = symbols.lookupNearestSymbolFrom<FunctionOpInterface>(*this, getCalleeAttr());
  if (!fn)
    return emitOpError("'") << getCallee() << "' does not reference a function";
  auto type = dyn_cast<FunctionType>(fn.getFunctionType());
  if (!type)
    return emitOpError("callee has no function type");
  if (getInputs().getTypes() != type.getInputs())
    return emitOpError("inputs ") << getInputs().getTypes() << " do not match the parameters "
                                  << type.getInputs() << " of @" << getCallee();
  unsigned nDiff = getHasAux() ? 1 : type.getNumResults();
  if (getHasAux() && type.getNumResults() == 0)
    return emitOpError("has_aux needs a callee with at least one result");
  if (!getSens().empty() &&
      getSens().getTypes() != type.getResults().take_front(nDiff))
    return emitOpError("sens ") << getSens().getTypes()
                                << " must match the differentiated results "
                                << type.getResults().take_front(nDiff);
  SmallVector<Type> expected;
  if (getReturnValue())
    llvm::append_range(expected, type.getResults());
  for (int64_t p : getGradPosition()) {
    if (p < 0 || p >= (int64_t)type.getNumInputs())
      return emitOpError("grad_position ") << p << " is out of range for @" << getCallee()
                                           << " with " << type.getNumInputs() << " parameters";
    expected.push_back(type.getInput(p));
  }
  if (getOutputs().getTypes() != ArrayRef<Type>(expected))
    return emitOpError("result types ") << getOutputs().getTypes() << " do not match "
                                        << expected;
  return success();
}
OpFoldResult PadOp::fold(FoldAdaptor) {
  // Same type means all paddings are zero.
  return sameTypeIdentity(getX(), getType());
}

//===----------------------------------------------------------------------===//
// State and ordering
//===----------------------------------------------------------------------===//

OpFoldResult DependOp::fold(FoldAdaptor) {
  return getDeps().empty() ? OpFoldResult(getValue()) : OpFoldResult();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// The type of a gather of `groupSize` `x`s (dim 0 times groupSize), or a
/// scatter (dim 0 divided); failure names what does not fit.
static LogicalResult checkGroupDim(Operation *op, RankedTensorType x, RankedTensorType y,
                                   int64_t groupSize, bool gather) {
  if (groupSize < 1)
    return op->emitOpError("group_size must be at least 1, got ") << groupSize;
  if (x.getRank() < 1)
    return op->emitOpError("needs a tensor of rank >= 1 (it splits or joins dim 0), got ") << x;
  int64_t d0 = x.getDimSize(0), want;
  if (gather) {
    if (d0 > std::numeric_limits<int64_t>::max() / groupSize)
      return op->emitOpError("dim 0 times group_size overflows int64");
    want = d0 * groupSize;
  } else {
    if (d0 % groupSize != 0)
      return op->emitOpError("dim 0 (") << d0 << ") is not divisible by group_size (" << groupSize
                                        << ")";
    want = d0 / groupSize;
  }
  SmallVector<int64_t> shape(x.getShape());
  shape[0] = want;
  auto expected = RankedTensorType::get(shape, x.getElementType());
  if (y != expected)
    return op->emitOpError("result type must be ") << expected << ", got " << y;
  return success();
}

LogicalResult AllGatherOp::verify() {
  return checkGroupDim(*this, getX().getType(), getY().getType(), getGroupSize(), true);
}

LogicalResult ReduceScatterOp::verify() {
  return checkGroupDim(*this, getX().getType(), getY().getType(), getGroupSize(), false);
}

LogicalResult BroadcastOp::verify() {
  int64_t root = static_cast<int64_t>(getRoot());   // (I64Attr reads back unsigned)
  if (root < 0)
    return emitOpError("root must be a rank (>= 0), got ") << root;
  return success();
}
