//===- MindIRDialect.cpp - mindir dialect registration -------------------===//
#include "MindIR.h"

using namespace mlir;
using namespace msmlir::mindir;

#include "MindIRDialect.cpp.inc"

void MindIRDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "MindIROps.cpp.inc"
      >();
}

// Folders return ElementsAttrs; this turns them back into mindir.constant.
Operation *MindIRDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                              Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}
