//===- Registration.cpp - C entry points for hosts -----------------------===//
//
// Python registers the dialects into each mlir.ir.Context through
// msmlirRegisterDialects (called with ctypes by msmlir._native); mlir-opt loads
// the same library with --load-dialect-plugin through mlirGetDialectPluginInfo.
//
//===----------------------------------------------------------------------===//
#include "MSKernel.h"
#include "MindIR.h"

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"

using namespace mlir;

static void registerAll(DialectRegistry &registry) {
  registry.insert<msmlir::mindir::MindIRDialect, msmlir::mskernel::MSKernelDialect>();
}

extern "C" {
__attribute__((visibility("default"))) void
msmlirRegisterDialects(MlirDialectRegistry registry) {
  registerAll(*unwrap(registry));
}

__attribute__((visibility("default"))) void
msmlirLoadDialects(MlirContext context) {
  MLIRContext *ctx = unwrap(context);
  ctx->getOrLoadDialect<msmlir::mindir::MindIRDialect>();
  ctx->getOrLoadDialect<msmlir::mskernel::MSKernelDialect>();
}

__attribute__((visibility("default"))) DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "msmlir", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) { registerAll(*registry); }};
}
}
