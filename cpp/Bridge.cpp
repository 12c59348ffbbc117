//===- Bridge.cpp - What the MLIR C API cannot do ---------------*- C++ -*-===//
//
// Two C entry points for the Rust side: the dialect handle and mlir-opt's main
// loop. (The passes' entry point is in Passes.cpp.)
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

extern "C" {
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Executor, executor);

/// Runs mlir-opt's driver over `registry`; `version` is printed by --version
/// after LLVM's own version.
int executorOptMain(int argc, char **argv, MlirDialectRegistry registry,
                    const char *version);
}

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Executor, executor,
                                      catalyst::executor::ExecutorDialect)

int executorOptMain(int argc, char **argv, MlirDialectRegistry registry,
                    const char *version) {
  std::string versionLine = version;
  llvm::cl::AddExtraVersionPrinter(
      [versionLine](llvm::raw_ostream &os) { os << versionLine << '\n'; });
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "executor-opt: the executor dialect's mlir-opt\n",
      *unwrap(registry)));
}
