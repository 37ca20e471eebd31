//===- AscendC.h - the ascendc dialect --------------------------*- C++ -*-===//
#ifndef MSMLIR_ASCENDC_H
#define MSMLIR_ASCENDC_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/RegionKindInterface.h"

#include "AscendCEnums.h.inc"
#include "AscendCDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "AscendCAttrs.h.inc"
#define GET_OP_CLASSES
#include "AscendCOps.h.inc"

#endif
