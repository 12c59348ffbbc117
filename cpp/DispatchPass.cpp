//===- DispatchPass.cpp - The C++ shell of executor-dispatch ----*- C++ -*-===//
//
// executor-dispatch is written in Rust (passes/executor_dispatch.rs). Its
// shell does the three things only a C++ pass can: it parses the
// `kernel-lowering` pipeline once, declares that pipeline's dialects and the
// LLVM IR translations as dependent dialects (so nothing is loaded while
// passes run), and runs the pipeline on a nested target module as a dynamic
// pipeline of this pass (`Pass::runPipeline`), so that it shares the pass
// manager's instrumentation, timing and verification. Rust calls back for the
// last through ExecutorDispatchRun::lowerKernels.
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/raw_ostream.h"

extern "C" {
/// One run of executor-dispatch as its Rust implementation sees it: the
/// options, and the callback that lowers one target module with
/// `kernel-lowering` (false after its diagnostics have been reported).
typedef struct ExecutorDispatchRun {
  MlirStringRef objectDir;
  MlirStringRef kernelLowering;
  MlirStringRef setupFunction;
  void *pass;
  bool (*lowerKernels)(void *pass, MlirOperation module);
} ExecutorDispatchRun;

/// The Rust implementation: false after its errors have been reported.
typedef bool (*ExecutorDispatchImplementation)(MlirOperation module,
                                               const ExecutorDispatchRun *run);

/// Sets the implementation executor-dispatch runs (once per process, before
/// the pass runs; registration in Passes.cpp makes the pass known).
void executorSetDispatchImplementation(
    ExecutorDispatchImplementation implementation);
}

namespace catalyst::executor {
#define GEN_PASS_DECL_EXECUTORDISPATCHPASS
#define GEN_PASS_DEF_EXECUTORDISPATCHPASS
#include "ExecutorPasses.h.inc"

static ExecutorDispatchImplementation rustDispatch;

namespace {
struct ExecutorDispatchPass
    : impl::ExecutorDispatchPassBase<ExecutorDispatchPass> {
  using Base::Base;

  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    mlir::OpPassManager pipeline(mlir::ModuleOp::getOperationName());
    // A pipeline that does not parse is reported by initialize().
    if (mlir::succeeded(parseKernelLowering(pipeline, llvm::nulls())))
      pipeline.getDependentDialects(registry);
  }

  mlir::LogicalResult initialize(mlir::MLIRContext *context) override {
    std::string message;
    llvm::raw_string_ostream errors(message);
    kernelPipeline = mlir::OpPassManager(mlir::ModuleOp::getOperationName());
    if (mlir::failed(parseKernelLowering(kernelPipeline, errors)))
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "executor-dispatch: kernel-lowering='" << kernelLowering
             << "' is not a pass pipeline on builtin.module: " << message;
    return mlir::success();
  }

  void runOnOperation() override {
    ExecutorDispatchRun run{
        mlirStringRefCreate(objectDir.getValue().data(),
                            objectDir.getValue().size()),
        mlirStringRefCreate(kernelLowering.getValue().data(),
                            kernelLowering.getValue().size()),
        mlirStringRefCreate(setupFunction.getValue().data(),
                            setupFunction.getValue().size()),
        this,
        [](void *pass, MlirOperation module) {
          return static_cast<ExecutorDispatchPass *>(pass)->lowerKernels(
              unwrap(module));
        },
    };
    if (!rustDispatch) {
      getOperation().emitError(
          "executor-dispatch has no implementation (executor_mlir's "
          "register_passes sets it)");
      return signalPassFailure();
    }
    if (!rustDispatch(wrap(getOperation().getOperation()), &run))
      signalPassFailure();
  }

private:
  /// `kernel-lowering` as a pass list (`a,b`) or anchored
  /// (`builtin.module(a,b)`).
  mlir::LogicalResult parseKernelLowering(mlir::OpPassManager &pipeline,
                                          llvm::raw_ostream &errors) const {
    llvm::StringRef text = llvm::StringRef(kernelLowering).trim();
    if (!text.starts_with(mlir::ModuleOp::getOperationName().str() + "("))
      return mlir::parsePassPipeline(text, pipeline, errors);
    mlir::FailureOr<mlir::OpPassManager> anchored =
        mlir::parsePassPipeline(text, errors);
    if (mlir::failed(anchored))
      return mlir::failure();
    pipeline = std::move(*anchored);
    return mlir::success();
  }

  bool lowerKernels(mlir::Operation *module) {
    return mlir::succeeded(runPipeline(kernelPipeline, module));
  }

  mlir::OpPassManager kernelPipeline{mlir::ModuleOp::getOperationName()};
};
} // namespace
} // namespace catalyst::executor

void executorSetDispatchImplementation(
    ExecutorDispatchImplementation implementation) {
  catalyst::executor::rustDispatch = implementation;
}
