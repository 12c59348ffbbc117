//===- Passes.cpp - C++ shells of the Rust passes ---------------*- C++ -*-===//
//
// mlir-tblgen generates each pass's base class from td/ExecutorPasses.td:
// name, options, dependent dialects, registration. The shells below only hand
// the operation and the parsed options to the pass's Rust implementation, whose
// entry point Rust supplies at registration (executorRegisterPasses).
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

#include <mutex>

#include "EntryConventions.h.inc"

extern "C" {
/// The Rust implementations of the passes. Each returns false after reporting
/// its errors as diagnostics.
typedef struct ExecutorPassImplementations {
  bool (*convertExecutorToLLVM)(MlirOperation module,
                                uint32_t entryConvention);
  bool (*verifySessions)(MlirOperation module);
  bool (*optimizeExecutor)(MlirOperation module, bool reuseSessions,
                           uint32_t entryConvention);
  bool (*dispatchExecutorTargets)(MlirOperation module);
} ExecutorPassImplementations;

/// Registers every pass of td/ExecutorPasses.td and the named pipeline
/// `executor-llvm-lowering-stage` with MLIR's pass registry, once per process;
/// the passes run the given implementations.
void executorRegisterPasses(ExecutorPassImplementations implementations);
}

namespace catalyst::executor {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_CONVERTEXECUTORTOLLVMPASS
#define GEN_PASS_DEF_VERIFYSESSIONSPASS
#define GEN_PASS_DEF_OPTIMIZEEXECUTORPASS
#define GEN_PASS_DEF_DISPATCHEXECUTORTARGETSPASS
#define GEN_PASS_REGISTRATION
#include "ExecutorPasses.h.inc"

static ExecutorPassImplementations rustPasses;

namespace {
struct ConvertExecutorToLLVMPass
    : impl::ConvertExecutorToLLVMPassBase<ConvertExecutorToLLVMPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!rustPasses.convertExecutorToLLVM(
            wrap(getOperation().getOperation()),
            static_cast<uint32_t>(entryConvention.getValue())))
      signalPassFailure();
  }
};

struct VerifySessionsPass
    : impl::VerifySessionsPassBase<VerifySessionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!rustPasses.verifySessions(wrap(getOperation().getOperation())))
      signalPassFailure();
    // Nothing is changed.
    markAllAnalysesPreserved();
  }
};

struct OptimizeExecutorPass
    : impl::OptimizeExecutorPassBase<OptimizeExecutorPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!rustPasses.optimizeExecutor(
            wrap(getOperation().getOperation()), reuseSessions,
            static_cast<uint32_t>(entryConvention.getValue())))
      signalPassFailure();
  }
};

struct DispatchExecutorTargetsPass
    : impl::DispatchExecutorTargetsPassBase<DispatchExecutorTargetsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!rustPasses.dispatchExecutorTargets(
            wrap(getOperation().getOperation())))
      signalPassFailure();
  }
};

struct LoweringStageOptions
    : public mlir::PassPipelineOptions<LoweringStageOptions> {
  Option<bool> useGenericFunctions{
      *this, "use-generic-functions",
      llvm::cl::desc("Lower memref allocations to _mlir_memref_to_llvm_alloc "
                     "and _mlir_memref_to_llvm_free (as Catalyst does) "
                     "instead of malloc and free"),
      llvm::cl::init(false)};
  Option<EntryConvention> entryConvention{
      *this, "entry-convention",
      llvm::cl::desc("convert-executor-to-llvm's entry-convention"),
      llvm::cl::init(EXECUTOR_ENTRY_CONVENTION_DEFAULT),
      llvm::cl::values(EXECUTOR_ENTRY_CONVENTION_VALUES)};
  Option<bool> verifySessions{
      *this, "verify-sessions",
      llvm::cl::desc("Run executor-verify-sessions first: its errors stop the "
                     "lowering"),
      llvm::cl::init(true)};
};

/// The upstream part of Catalyst's LLVM-dialect stage, with
/// convert-executor-to-llvm in the slot Catalyst gives it (after
/// finalize-memref-to-llvm and convert-index-to-llvm), around the conversions a
/// host module of func, scf, cf and arith ops needs.
void buildLoweringStage(mlir::OpPassManager &pm,
                        const LoweringStageOptions &options) {
  auto parse = [&pm](const std::string &pipeline) {
    if (mlir::failed(mlir::parsePassPipeline(pipeline, pm)))
      llvm::report_fatal_error("executor-llvm-lowering-stage: cannot build '" +
                               llvm::Twine(pipeline) + "'");
  };
  if (options.verifySessions)
    pm.addPass(createVerifySessionsPass());
  // expand-strided-metadata and lower-affine (which lowers the affine.apply
  // the former makes), as in Catalyst's stage, so that memref views
  // (subview, collapse_shape, ...) and affine ops reach LLVM.
  parse(llvm::formatv("expand-strided-metadata,lower-affine,convert-scf-to-cf,"
                      "finalize-memref-to-llvm{{use-generic-functions={0}},"
                      "convert-index-to-llvm",
                      options.useGenericFunctions ? "true" : "false"));
  ConvertExecutorToLLVMPassOptions lowering;
  lowering.entryConvention = options.entryConvention;
  pm.addPass(createConvertExecutorToLLVMPass(lowering));
  // After the executor lowering, which retypes sessions to i64: arith ops
  // that carry sessions (arith.select) are lowered with the rest.
  parse("convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
        "canonicalize,reconcile-unrealized-casts");
}
} // namespace
} // namespace catalyst::executor

void executorRegisterPasses(ExecutorPassImplementations implementations) {
  static std::once_flag once;
  std::call_once(once, [&] {
    catalyst::executor::rustPasses = implementations;
    catalyst::executor::registerExecutorPasses();
    mlir::PassPipelineRegistration<catalyst::executor::LoweringStageOptions>(
        "executor-llvm-lowering-stage",
        "Lower a host module of func, scf, cf, arith, memref and executor ops "
        "to the LLVM dialect, as Catalyst's LLVM-dialect stage does, after "
        "checking its sessions with executor-verify-sessions",
        catalyst::executor::buildLoweringStage);
  });
}
