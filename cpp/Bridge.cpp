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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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

/// Emits an error (severity 0), a warning (1) or a remark (2) at `location`
/// with `noteCount` notes attached, the i-th at `noteLocations[i]`. The C API
/// has mlirEmitError only, and no way to attach notes.
void executorEmitDiagnostic(MlirLocation location, int severity,
                            const char *message, intptr_t noteCount,
                            const MlirLocation *noteLocations,
                            const char *const *noteMessages);

/// MLIR's dominance information for the regions under `root`, computed on
/// demand; free it with executorDominanceDestroy.
void *executorDominanceCreate(MlirOperation root);
void executorDominanceDestroy(void *dominance);

/// Whether `a` properly dominates `b` (both under the root the dominance
/// information was made for): every path to `b` passes `a` first, and `a`'s
/// results are visible at `b`.
bool executorDominanceProperlyDominates(void *dominance, MlirOperation a,
                                        MlirOperation b);

/// Whether `op` has no memory effects, its regions' ops included
/// (mlir::isMemoryEffectFree).
bool executorIsMemoryEffectFree(MlirOperation op);

/// Whether `op` (its regions' ops included) may read or change executor
/// sessions: it has an effect on the executor.sessions resource, or effects
/// MLIR does not know (a call, an op without the memory effect interface).
bool executorMayUseSessions(MlirOperation op);

/// The operands `op` forwards to its successor #`successor` as block
/// arguments, as [*start, *start + *count) of its operands; false when `op`
/// is not a BranchOpInterface op or produces some of them itself.
bool executorSuccessorOperands(MlirOperation op, intptr_t successor,
                               intptr_t *start, intptr_t *count);

/// Calls `callback` with the leaf name of every symbol reference in the
/// attributes of `op` (not of ops nested in it) other than a func.call's
/// callee (func.constant's, other dialects', nested in any attribute): the
/// functions whose calls may be hidden from an analysis that follows
/// func.call. Called on each op by a walk the caller makes anyway.
void executorNonCallSymbolReferences(MlirOperation op,
                                     void (*callback)(MlirStringRef name,
                                                      void *userData),
                                     void *userData);

/// The path attribute of an executor op that names one (`address` of open,
/// `binary_path` of send_binary, `object` of launch and launch_async), null
/// for other ops. Read from the op's properties: the C API's by-name lookup
/// (getInherentAttr(name)) first asks the op for its context, which the op
/// finds through its location, a cold read of memory of its own for every
/// op read so.
MlirAttribute executorPathAttr(MlirOperation op);

/// Creates `executor.launch %session(kernel, object)()`, with no inputs and
/// no results, before `before` and at its location. The C API's
/// mlirOperationCreate gathers the attributes in a dictionary and converts
/// it to the op's properties; the op's own builder sets the properties.
MlirOperation executorCreateLaunchBefore(MlirOperation before,
                                         MlirValue session,
                                         MlirAttribute kernel,
                                         MlirAttribute object);

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

void executorEmitDiagnostic(MlirLocation location, int severity,
                            const char *message, intptr_t noteCount,
                            const MlirLocation *noteLocations,
                            const char *const *noteMessages) {
  mlir::Location at = unwrap(location);
  mlir::InFlightDiagnostic diagnostic =
      severity == 0   ? mlir::emitError(at)
      : severity == 1 ? mlir::emitWarning(at)
                      : mlir::emitRemark(at);
  diagnostic << message;
  for (intptr_t index = 0; index < noteCount; ++index)
    diagnostic.attachNote(unwrap(noteLocations[index]))
        << noteMessages[index];
}

void *executorDominanceCreate(MlirOperation root) {
  return new mlir::DominanceInfo(unwrap(root));
}

void executorDominanceDestroy(void *dominance) {
  delete static_cast<mlir::DominanceInfo *>(dominance);
}

bool executorDominanceProperlyDominates(void *dominance, MlirOperation a,
                                        MlirOperation b) {
  return static_cast<mlir::DominanceInfo *>(dominance)->properlyDominates(
      unwrap(a), unwrap(b));
}

bool executorIsMemoryEffectFree(MlirOperation op) {
  return mlir::isMemoryEffectFree(unwrap(op));
}

bool executorMayUseSessions(MlirOperation op) {
  std::optional<llvm::SmallVector<mlir::MemoryEffects::EffectInstance>>
      effects = mlir::getEffectsRecursively(unwrap(op));
  if (!effects)
    return true;
  return llvm::any_of(*effects, [](const auto &effect) {
    return llvm::isa<catalyst::executor::SessionResource>(
        effect.getResource());
  });
}

bool executorSuccessorOperands(MlirOperation op, intptr_t successor,
                               intptr_t *start, intptr_t *count) {
  auto branch = llvm::dyn_cast<mlir::BranchOpInterface>(unwrap(op));
  if (!branch)
    return false;
  mlir::SuccessorOperands operands =
      branch.getSuccessorOperands(static_cast<unsigned>(successor));
  if (operands.getProducedOperandCount() != 0)
    return false;
  mlir::OperandRange forwarded = operands.getForwardedOperands();
  *start = forwarded.empty() ? 0 : forwarded.getBeginOperandIndex();
  *count = static_cast<intptr_t>(forwarded.size());
  return true;
}

void executorNonCallSymbolReferences(MlirOperation op,
                                     void (*callback)(MlirStringRef name,
                                                      void *userData),
                                     void *userData) {
  auto report = [&](mlir::SymbolRefAttr reference) {
    callback(wrap(reference.getLeafReference().getValue()), userData);
  };
  auto visit = [&](mlir::Attribute attribute) {
    if (!attribute)
      return;
    if (auto reference = llvm::dyn_cast<mlir::SymbolRefAttr>(attribute))
      return report(reference);
    // Most attributes hold no other attribute: not worth a walk.
    if (llvm::isa<mlir::IntegerAttr, mlir::FloatAttr, mlir::StringAttr,
                  mlir::UnitAttr, mlir::TypeAttr, mlir::DenseElementsAttr,
                  mlir::DenseArrayAttr>(attribute))
      return;
    attribute.walk([&](mlir::SymbolRefAttr reference) { report(reference); });
  };
  mlir::Operation *operation = unwrap(op);
  auto call = llvm::dyn_cast<mlir::func::CallOp>(operation);
  // Inherent attributes are read from the op's properties one by one:
  // getAttrDictionary() would build a dictionary. The executor ops' own are
  // strings and integers (td/ExecutorOps.td), and most ops of a host module
  // are executor ops: they are not read at all.
  std::optional<mlir::RegisteredOperationName> info =
      operation->getRegisteredInfo();
  if (info && !llvm::isa<catalyst::executor::ExecutorDialect>(
                  info->getDialect())) {
    for (mlir::StringAttr name : info->getAttributeNames()) {
      std::optional<mlir::Attribute> inherent =
          operation->getInherentAttr(name);
      if (inherent && !(call && *inherent == call.getCalleeAttr()))
        visit(*inherent);
    }
  }
  for (mlir::NamedAttribute named : operation->getDiscardableAttrs())
    visit(named.getValue());
}

MlirAttribute executorPathAttr(MlirOperation op) {
  mlir::Operation *operation = unwrap(op);
  mlir::Attribute path;
  if (auto open = llvm::dyn_cast<catalyst::executor::OpenOp>(operation))
    path = open.getAddressAttr();
  else if (auto send =
               llvm::dyn_cast<catalyst::executor::SendBinaryOp>(operation))
    path = send.getBinaryPathAttr();
  else if (auto launch =
               llvm::dyn_cast<catalyst::executor::LaunchOp>(operation))
    path = launch.getObjectAttr();
  else if (auto launch =
               llvm::dyn_cast<catalyst::executor::LaunchAsyncOp>(operation))
    path = launch.getObjectAttr();
  return wrap(path);
}

MlirOperation executorCreateLaunchBefore(MlirOperation before,
                                         MlirValue session,
                                         MlirAttribute kernel,
                                         MlirAttribute object) {
  mlir::Operation *anchor = unwrap(before);
  mlir::OpBuilder builder(anchor);
  auto launch = catalyst::executor::LaunchOp::create(
      builder, anchor->getLoc(), mlir::TypeRange(), unwrap(session),
      llvm::cast<mlir::StringAttr>(unwrap(kernel)),
      llvm::cast<mlir::StringAttr>(unwrap(object)), mlir::ValueRange());
  return wrap(launch.getOperation());
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
