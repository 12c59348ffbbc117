//===- ExecutorPasses.td - Passes of the executor dialect --*- tablegen -*-===//
//
// The passes' names, options and documentation. mlir-tblgen generates their
// C++ shells (option parsing, registration, --help); cpp/Passes.cpp hands each
// run to its Rust implementation under passes/.
//
//===----------------------------------------------------------------------===//

#ifndef EXECUTOR_PASSES_TD
#define EXECUTOR_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertExecutorToLLVMPass : Pass<"convert-executor-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower executor ops to LLVM-dialect calls into the executor runtime ABI";
  let description = [{
    Rewrites every executor op into `llvm.call`s to the functions of the
    executor runtime ABI (Catalyst's `ExecutorCAPI.h`; see docs/runtime-abi.md),
    declared once per module, and every `!executor.session` and
    `!executor.token` into `i64`: function signatures, calls, block arguments
    and region-carried values included.

    String attributes become internal constant NUL-terminated globals shared by
    content. Stack slots, constants and global addresses are made once, in a
    prologue at the top of the enclosing function (or other allocation scope,
    such as `scf.parallel`), and shared by its ops. Memref operands become descriptors through
    `builtin.unrealized_conversion_cast`, so the pass runs before or after
    `finalize-memref-to-llvm`; `reconcile-unrealized-casts` removes the casts.
    `executor.call` on tensors must be bufferized first (`one-shot-bufferize`).

    An op that cannot be lowered (an element type without a size, a memref
    outside the default memory space, a token awaited twice) fails the pass
    with an error at the op, before anything is changed.
  }];
  // The executor dialect too: the pass makes its types to find sessions and
  // tokens, also in a module without any executor op.
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::catalyst::executor::ExecutorDialect"];
  // The type, its default and its values are generated from executor_abi's
  // EntryConvention by build.rs (EntryConventions.h.inc).
  let options = [
    Option<"entryConvention", "entry-convention",
           "::catalyst::executor::EntryConvention",
           /*default=*/"EXECUTOR_ENTRY_CONVENTION_DEFAULT",
           "The symbol executor.launch and executor.launch_async run for a kernel",
           "::llvm::cl::values(EXECUTOR_ENTRY_CONVENTION_VALUES)">,
  ];
}

#endif // EXECUTOR_PASSES_TD
