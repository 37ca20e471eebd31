//===- Registration.cpp - C entry points for hosts -----------------------===//
//
// Python registers the dialects into each mlir.ir.Context through
// msmlirRegisterDialects (called with ctypes by msmlir._native); mlir-opt loads
// the same library with --load-dialect-plugin through mlirGetDialectPluginInfo.
//
// msmlirSetCrashContext: ms-opt says what it was doing, and on which input,
// when MLIR aborts (an assertion in upstream code, docs/known-issues.md), as
// mlir-opt's pretty stack trace does. The text is kept in a static buffer and
// written to stderr by an LLVM signal handler (async-signal-safe: write(2)).
//
//===----------------------------------------------------------------------===//
#include "AscendC.h"
#include "MSKernel.h"
#include "MindIR.h"

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Support/Signals.h"

#include <cstring>
#include <unistd.h>

using namespace mlir;

static char crashContext[4096];

static void printCrashContext(void *) {
  size_t n = strnlen(crashContext, sizeof(crashContext));
  if (n && ::write(STDERR_FILENO, crashContext, n) < 0)
    return;
}

static void registerAll(DialectRegistry &registry) {
  registry.insert<msmlir::mindir::MindIRDialect, msmlir::mskernel::MSKernelDialect,
                  msmlir::ascendc::AscendCDialect>();
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
  ctx->getOrLoadDialect<msmlir::ascendc::AscendCDialect>();
}

/// Sets the text printed if the process dies on a signal (installs the handler
/// on first use); an empty text prints nothing.
__attribute__((visibility("default"))) void msmlirSetCrashContext(const char *text) {
  static bool installed = [] {
    llvm::sys::AddSignalHandler(printCrashContext, nullptr);
    return true;
  }();
  (void)installed;
  strncpy(crashContext, text, sizeof(crashContext) - 1);
  crashContext[sizeof(crashContext) - 1] = 0;
}

__attribute__((visibility("default"))) DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "msmlir", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) { registerAll(*registry); }};
}
}
