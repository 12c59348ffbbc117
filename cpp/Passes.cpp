//===- Passes.cpp - C++ shells of the Rust passes ---------------*- C++ -*-===//
//
// mlir-tblgen generates each pass's base class from td/ExecutorPasses.td:
// name, options, dependent dialects, registration. The shells below only hand
// the operation and the parsed options to the pass's Rust implementation, whose
// entry point Rust supplies at registration (executorRegisterPasses).
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <mutex>

extern "C" {
/// The Rust implementations of the passes. Each returns false after reporting
/// its errors as diagnostics.
typedef struct ExecutorPassImplementations {
  bool (*convertExecutorToLLVM)(MlirOperation module,
                                MlirStringRef entryConvention);
} ExecutorPassImplementations;

/// Registers every pass of td/ExecutorPasses.td with MLIR's pass registry,
/// once per process, running the given implementations.
void executorRegisterPasses(ExecutorPassImplementations implementations);
}

namespace catalyst::executor {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_CONVERTEXECUTORTOLLVMPASS
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
            mlirStringRefCreate(entryConvention.data(), entryConvention.size())))
      signalPassFailure();
  }
};
} // namespace
} // namespace catalyst::executor

void executorRegisterPasses(ExecutorPassImplementations implementations) {
  static std::once_flag once;
  std::call_once(once, [&] {
    catalyst::executor::rustPasses = implementations;
    catalyst::executor::registerExecutorPasses();
  });
}
