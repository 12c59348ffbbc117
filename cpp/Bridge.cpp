//===- Bridge.cpp - What the MLIR C API cannot do ---------------*- C++ -*-===//
//
// C entry points for the Rust side: the dialect handle, mlir-opt's main loop,
// the dialect's types, and the trait and type queries the MLIR C API lacks.
// (The passes' entry point is in Passes.cpp.)
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

extern "C" {
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Executor, executor);

/// Adds the executor dialect and its external interface models to `registry`.
/// Written against the C++ API so that it needs nothing of the MLIR C API: a
/// Catalyst host has none (docs/catalyst.md).
void executorRegisterDialect(MlirDialectRegistry registry);

/// Whether values defined outside `op` are invisible inside its regions.
bool executorIsIsolatedFromAbove(MlirOperation op);

/// Whether `op` holds a symbol table (`builtin.module`, `gpu.module`, ...).
bool executorIsSymbolTable(MlirOperation op);

/// `!executor.session` and `!executor.token` (the dialect must be loaded).
MlirType executorSessionTypeGet(MlirContext context);
MlirType executorTokenTypeGet(MlirContext context);

/// Whether a session or token appears strictly inside `type` (a tuple, a
/// memref, ... of them), at any depth.
bool executorTypeNestsHandle(MlirType type);

/// Runs mlir-opt's driver over `registry`; `version` is printed by --version
/// after LLVM's own version.
int executorOptMain(int argc, char **argv, MlirDialectRegistry registry,
                    const char *version);
}

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Executor, executor,
                                      catalyst::executor::ExecutorDialect)

void executorRegisterDialect(MlirDialectRegistry registry) {
  mlir::DialectRegistry &cppRegistry = *unwrap(registry);
  cppRegistry.insert<catalyst::executor::ExecutorDialect>();
  catalyst::executor::registerBufferizableOpInterfaceExternalModels(
      cppRegistry);
}

bool executorIsIsolatedFromAbove(MlirOperation op) {
  return unwrap(op)->hasTrait<mlir::OpTrait::IsIsolatedFromAbove>();
}

bool executorIsSymbolTable(MlirOperation op) {
  return unwrap(op)->hasTrait<mlir::OpTrait::SymbolTable>();
}

MlirType executorSessionTypeGet(MlirContext context) {
  return wrap(catalyst::executor::SessionType::get(unwrap(context)));
}

MlirType executorTokenTypeGet(MlirContext context) {
  return wrap(catalyst::executor::TokenType::get(unwrap(context)));
}

bool executorTypeNestsHandle(MlirType type) {
  mlir::Type outer = unwrap(type);
  bool nests = false;
  outer.walk([&](mlir::Type inner) {
    if (inner != outer &&
        mlir::isa<catalyst::executor::SessionType,
                  catalyst::executor::TokenType>(inner))
      nests = true;
  });
  return nests;
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
