//===- MindIR.h - the mindir dialect ----------------------------*- C++ -*-===//
#ifndef MSMLIR_MINDIR_H
#define MSMLIR_MINDIR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <type_traits>

#include "MindIREnums.h.inc"
#include "MindIRDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "MindIRAttrs.h.inc"

namespace msmlir::mindir {
/// Whether a tensor of this type can exist: its element count and its size in
/// bytes fit in int64 (MLIR's layout code and the LLVM lowering compute both
/// in int64; an overflow there is an assertion or a too-small allocation).
bool hasRepresentableSize(mlir::Type type);

/// A located error for each inferred tensor type that is too large (see above).
llvm::LogicalResult checkInferredSizes(std::optional<mlir::Location> loc,
                                       llvm::ArrayRef<mlir::Type> inferred);

template <typename OpT, typename = void>
struct HasDefaultProperties : std::false_type {};
template <typename OpT>
struct HasDefaultProperties<
    OpT, std::void_t<decltype(OpT::populateDefaultProperties(
             std::declval<mlir::OperationName>(),
             std::declval<typename OpT::Properties &>()))>> : std::true_type {};

/// Raw InferTypeOpInterface entry: builds the op's adaptor from properties
/// completed with their defaults (absent when ops are created through the C
/// API), then runs the op's adaptor-based inference.
template <typename OpT>
llvm::LogicalResult inferWithDefaults(mlir::MLIRContext *ctx, std::optional<mlir::Location> loc,
                                      mlir::ValueRange operands, mlir::DictionaryAttr attrs,
                                      mlir::OpaqueProperties props, mlir::RegionRange regions,
                                      llvm::SmallVectorImpl<mlir::Type> &inferred) {
  typename OpT::Properties p;
  if (props)
    p = *props.as<typename OpT::Properties *>();
  if constexpr (HasDefaultProperties<OpT>::value)
    OpT::populateDefaultProperties(mlir::OperationName(OpT::getOperationName(), ctx), p);
  typename OpT::Adaptor adaptor(operands, attrs, p, regions);
  size_t before = inferred.size();
  if (mlir::failed(OpT::inferReturnTypes(ctx, loc, adaptor, inferred)))
    return mlir::failure();
  return checkInferredSizes(loc, llvm::ArrayRef<mlir::Type>(inferred).drop_front(before));
}
} // namespace msmlir::mindir
#define GET_OP_CLASSES
#include "MindIROps.h.inc"

#endif
