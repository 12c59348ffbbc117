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
  // The executor dialect too: the pass asks for its types, which a context
  // that has not loaded it (a module without executor ops) cannot make.
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
  let dependentDialects = ["::catalyst::executor::ExecutorDialect"];
}

def OptimizeExecutorPass : Pass<"executor-optimize", "::mlir::ModuleOp"> {
  let summary = "Reuse sessions, drop redundant sends, hoist loop-invariant opens and sends, make awaited-at-once launches synchronous";
  let description = [{
    Rewrites executor ops using the facts of the analysis of
    `executor-verify-sessions` (which it shares; it reports nothing). By
    default it only makes rewrites that change neither what the program
    computes nor which executors it contacts, each under the precondition
    stated here:

    1. Reuse an open. `%b = executor.open(A)` is replaced by an earlier
       `%a = executor.open(A)` of the same address when `%a` dominates `%b`
       and the session of `%a` is open on every path reaching `%b` (no close
       of it, or of another session of `A`, intervenes, and nothing unknown
       may have closed it), in every calling context. The runtime's open
       then returns the session of `%a` without contacting the executor.
    2. Drop a redundant send. `executor.send_binary %s(P)` is erased when `P`
       was sent on the session of `%s` on every path reaching it, in every
       calling context, and that session is open there. The runtime does not
       load a path twice, so the send does nothing.
    3. Hoist a loop-invariant open or send. An `executor.open`, or an
       `executor.send_binary` on a session defined outside the loop (or by an
       open hoisted with it), that is in the body block of an `scf.for` (or
       the `before` block of an `scf.while`) and preceded there only by ops
       that do not touch executor sessions (by their memory effects: none on
       `executor.sessions`, and none unknown, as a call's are) or by ops
       hoisted with it, moves before the loop when:
       - the loop runs at least once: an `scf.for` with constant bounds
         `lb < ub`, or the `before` region of an `scf.while`. A loop that may
         run zero times is left alone, since the hoisted op would contact an
         executor the original does not;
       - the loop does not close the session: it is open at the end of every
         iteration, in every calling context.
       The first iteration then does what the hoisted op does, and in later
       iterations the original returns the same session or loads nothing.
    4. Make an awaited-at-once launch synchronous. `%t = executor.launch_async
       %s("_mlir_ciface_K", O)` followed in the same block by
       `executor.await %t`, with only ops without memory effects between and
       no other use of `%t`, becomes `executor.launch %s("K", O)()`: with
       `entry-convention=mlir-ciface` that launch runs `_mlir_ciface_K` with
       no pointers, which is the very call launch_async makes (it runs its
       kernel name as the symbol, `void(void)`). It does not fire for other
       kernel names, whose launch would run another symbol, nor with
       `entry-convention=catalyst-pyface`, whose entries take two pointers.
       What still differs: the kernel runs on the calling thread rather than
       on a background thread (the rewrite assumes it does not depend on
       which thread runs it), and a failure names executor.launch.
       Give this pass the entry-convention that convert-executor-to-llvm
       will use.

    One rewrite changes what a program can observe and is off by default:
    `reuse-sessions=true`. An `scf.for` whose body opens an address first,
    sends binaries on it, uses it and closes it last (first and last among
    the ops that touch executor sessions, as in rule 3) keeps one session for
    the whole loop: the open and the sends move before the loop and the
    close after it. It requires that the session is used only by executor
    ops in the loop, is open at the close on every path in every calling
    context (nothing else in the loop closes it), and that no launch_async
    on it is still running at the close. A loop that may run zero times is
    wrapped in `scf.if` (lb < ub) so that it still contacts no executor then;
    one that never runs is left alone. Kernels then see the global state of
    their object carried from one iteration to the next instead of freshly
    loaded, and binaries are loaded once.

    The rewrites rely on what the analysis assumes (see
    executor-verify-sessions): a function called from outside the module
    starts with no session open, and code outside the module touches only
    the sessions and tokens passed to it; anything the analysis cannot follow
    makes the facts a rule needs unknown, and the rule does not fire. The
    pass repeats, at most 8 times, while ops are hoisted, so that an op
    hoisted out of an inner loop can leave the outer one too.
  }];
  let dependentDialects = ["::catalyst::executor::ExecutorDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
  let options = [
    Option<"reuseSessions", "reuse-sessions", "bool", /*default=*/"false",
           "Keep one session for a whole scf.for that opens, sends, launches "
           "and closes the same address in every iteration. Changes what "
           "kernels observe: their object's global state is carried from one "
           "iteration to the next instead of freshly loaded">,
    Option<"entryConvention", "entry-convention",
           "::catalyst::executor::EntryConvention",
           /*default=*/"EXECUTOR_ENTRY_CONVENTION_DEFAULT",
           "The entry convention convert-executor-to-llvm will use; a "
           "launch_async awaited at once becomes a launch only with "
           "mlir-ciface",
           "::llvm::cl::values(EXECUTOR_ENTRY_CONVENTION_VALUES)">,
  ];
}

#endif // EXECUTOR_PASSES_TD
