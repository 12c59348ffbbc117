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
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
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

def VerifySessionsPass : Pass<"executor-verify-sessions", "::mlir::ModuleOp"> {
  let summary = "Check how sessions and tokens are used: ops after close, lost or twice-awaited launches, objects never sent, redundant sends";
  let description = [{
    A forward dataflow analysis of every `func.func` in the module that
    reports, at the op and with notes at the ops that explain it:

    - an op on a session that is closed on a path reaching it: an error when
      it is closed on every path, a warning when on some;
    - an `executor.await` of a token that is already awaited, or whose
      session is closed (the runtime forgets its launches): an error when on
      every path, a warning when on some;
    - an `executor.launch_async` whose token reaches a `func.return` that does
      not return it, or the `executor.close` of its session, or the
      launch_async itself again, without being awaited on some path: a
      warning (the launch is lost: nothing waits for it);
    - an `executor.launch` or `executor.launch_async` whose `object` was not
      sent on its session on some path reaching it: a warning;
    - an `executor.send_binary` of a path already sent on its session on
      every path reaching it: a remark (it is redundant; the runtime does not
      load a path twice).

    The analysis follows `scf.if`, `scf.for`, `scf.while`, `scf.index_switch`,
    `scf.execute_region` and `cf` branches, and `func.call`s to functions of
    the module, analysing a callee once per distinct state of what it can
    reach (at most 16 per function; beyond that, or through recursion, the
    call's effects become unknown). `executor.open` is idempotent per address
    in the runtime, so two opens of the same address while one is open give
    the same session, and closing one closes both: the analysis keys sessions
    by address (as the runtime parses it: `local` and `local:` are one).

    Not reported, because not knowable: sessions and tokens passed in from
    outside the module (arguments of a public function), produced by an op the
    analysis does not model, or passed to one (from then on). The analysis is
    path-insensitive: "on some path" counts every path of the control flow,
    including ones no input takes. It assumes that a function called from
    outside the module starts with no session open, and that code outside the
    module touches only the sessions and tokens passed to it.

    Errors fail the pass; warnings and remarks do not.
    `executor-llvm-lowering-stage` runs this pass first.
  }];
}

#endif // EXECUTOR_PASSES_TD
