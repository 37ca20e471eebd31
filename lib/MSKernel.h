//===- MSKernel.h - the mskernel dialect ------------------------*- C++ -*-===//
#ifndef MSMLIR_MSKERNEL_H
#define MSMLIR_MSKERNEL_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "MSKernelEnums.h.inc"
#include "MSKernelDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "MSKernelAttrs.h.inc"
#define GET_OP_CLASSES
#include "MSKernelOps.h.inc"

#endif
