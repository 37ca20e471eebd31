//===- MindIRDialect.cpp - mindir dialect registration -------------------===//
#include "MindIR.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace msmlir::mindir;

#include "MindIRDialect.cpp.inc"
#include "MindIREnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "MindIRAttrs.cpp.inc"

namespace {
/// mindir ops have no region- or call-site-specific semantics, so calls to
/// functions made of them can always be inlined (the jit frontend emits one
/// private function per helper; inlining exposes them to fusion and to
/// mindir-functionalize-assign).
struct MindIRInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
};
} // namespace

void MindIRDialect::initialize() {
  addInterfaces<MindIRInlinerInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "MindIRAttrs.cpp.inc"
      >();
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
