//===- Bridge.cpp - What the MLIR C API cannot do ---------------*- C++ -*-===//
//
// Three C entry points for the Rust side: the dialect handle, putting a pass
// made in Rust into MLIR's global pass registry (so a textual pipeline can name
// it), and mlir-opt's main loop.
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir-c/Pass.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

extern "C" {
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Executor, executor);

/// Registers the pass that `factory` creates under its own argument.
void executorRegisterPass(MlirPass (*factory)(void));

/// Runs mlir-opt's driver over `registry`; `version` is printed by --version
/// after LLVM's own version.
int executorOptMain(int argc, char **argv, MlirDialectRegistry registry,
                    const char *version);
}

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Executor, executor,
                                      catalyst::executor::ExecutorDialect)

void executorRegisterPass(MlirPass (*factory)(void)) {
  mlir::registerPass(
      [factory] { return std::unique_ptr<mlir::Pass>(unwrap(factory())); });
}

int executorOptMain(int argc, char **argv, MlirDialectRegistry registry,
                    const char *version) {
  std::string versionLine = version;
  llvm::cl::AddExtraVersionPrinter(
      [versionLine](llvm::raw_ostream &os) { os << versionLine << '\n'; });
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "executor-opt: the executor dialect's mlir-opt\n",
      *unwrap(registry)));
}
