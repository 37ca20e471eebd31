//===- MSKernelDialect.cpp - mskernel dialect ----------------------------===//
#include "MSKernel.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace msmlir::mskernel;

#include "MSKernelDialect.cpp.inc"
#include "MSKernelEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "MSKernelAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "MSKernelOps.cpp.inc"

void MSKernelDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "MSKernelAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "MSKernelOps.cpp.inc"
      >();
}

LogicalResult FusedOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("kernel body has ")
           << body.getNumArguments() << " arguments but the kernel has "
           << getInputs().size() << " inputs";
  for (auto [i, arg, in] : llvm::enumerate(body.getArguments(), getInputs()))
    if (arg.getType() != in.getType())
      return emitOpError("kernel body argument #")
             << i << " has type " << arg.getType() << " but input #" << i
             << " has type " << in.getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getOutputs().getTypes())
    return emitOpError("yielded types ")
           << yield.getValues().getTypes() << " do not match the kernel results "
           << getOutputs().getTypes();
  return success();
}
