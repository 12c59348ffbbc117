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

    Under the default entry convention each `executor.launch` gets a launch
    site, an internal writable global holding what the launch passes unchanged
    (entry, object, counts, ranks and element sizes) and a cache that the
    runtime fills on its first run, and calls `__executor__launch_at_site`
    with the site, the session and the descriptor arrays (this project's own
    function, which then calls the resolved kernel directly); under
    `entry-convention=catalyst-pyface` it calls Catalyst's
    `__catalyst__executor__launch`.

    String attributes become internal constant NUL-terminated globals shared by
    content. Stack slots, constants and global addresses are made once, in a
    prologue at the top of the enclosing function (or other allocation scope,
    such as `scf.parallel`), and shared by its ops. Memref operands become descriptors through
    `builtin.unrealized_conversion_cast`, so the pass runs before or after
    `finalize-memref-to-llvm`; `reconcile-unrealized-casts` removes the casts.
    `executor.call` on tensors must be bufferized first (`one-shot-bufferize`).

    An op that cannot be lowered (an element type without a size, a memref
    outside the default memory space, a launch result whose static layout a
    dense copy does not satisfy, a token awaited twice) fails the pass with an
    error at the op, before anything is changed.
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

def ExecutorDispatchPass : Pass<"executor-dispatch", "::mlir::ModuleOp"> {
  let summary = "Compile nested kernel modules to object files and run the host's calls to their kernels on executors";
  let description = [{
    Turns a host module with its kernels in nested modules (the dispatch form)
    into executor ops. The input:

    ```mlir
    module @kernels attributes {executor.target = {address = "local"}} {
      func.func @saxpy(%a: memref<f32>, %x: memref<?xf32>, %y: memref<?xf32>)
          -> memref<?xf32> { ... }
      func.func @warm_up() { return }
    }
    func.func private @saxpy(memref<f32>, memref<?xf32>, memref<?xf32>)
        -> memref<?xf32> attributes {executor.kernel = @kernels::@saxpy}
    func.func private @warm_up() attributes {executor.kernel = @kernels::@warm_up}
    func.func @main() {
      call @warm_up() {executor.async} : () -> ()
      %z = call @saxpy(%a, %x, %y) : (memref<f32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>
      ...
      return
    }
    ```

    Each module marked `executor.target` (directly inside the module the pass
    runs on) is compiled in process to the object file
    `<object-dir>/<module name>.o`: its public functions get C interfaces
    (`llvm.emit_c_interface`), `kernel-lowering` takes it to the LLVM
    dialect, MLIR translates it to LLVM IR and LLVM's target machine writes
    the object: for the module's `triple`, `cpu` and `features` (keys of
    `executor.target`, as `llc -mtriple -mcpu -mattr` take them; by default
    the host's default triple, generic CPU), position-independent code,
    codegen at -O2, as `llc -relocation-model=pic`. A failure is an error at
    the module, after the diagnostics of the step that failed.

    Then every `func.call` to a declaration marked `executor.kernel` becomes
    an `executor.launch` of that kernel in its module's object, or, marked
    `executor.async`, an `executor.launch_async` whose `executor.await` is
    placed before each `func.return` of the calling function. Each function
    that calls kernels opens one session per address at its start
    (`executor.open` is idempotent per address) and sends each object it uses
    once, right after the opens, and closes its sessions before each return,
    after the awaits. A function does not close a session that another
    function may hold while it runs: one that holds the same address and calls
    it, directly or through other functions, or any function when its symbol
    is used other than by `func.call` (the outermost holder closes it, or the
    runtime at exit). With `setup-function`, that function opens every address
    and sends every object at its start, the others only open the addresses
    they use, and nothing is closed: the runtime closes the sessions at exit.
    Finally the target modules and kernel declarations are erased.

    Errors, at the op, before anything is changed: a declaration whose kernel
    does not exist, is not a public function with a body, or has another type;
    kernel operands or results that are not memrefs (`executor.launch` passes
    memrefs); an `executor.async` call with operands or results, outside the
    entry block of its function, or to a function that is not a kernel
    declaration; a kernel call outside a `func.func` of the
    module or inside an op isolated from above; a kernel declaration used by
    anything but `func.call`; a `triple` that names no target of this LLVM
    (every target of the installation is available); a `setup-function` that
    names no function; an
    op of Catalyst's dispatch form (a module marked `catalyst.dispatch`, a
    `catalyst.launch_kernel` of its kernels, a `catalyst.custom_call` with a
    `dispatch` entry), which is `dispatch-executor-targets`'.

    The objects are built for this project's default entry convention
    (`_mlir_ciface_<kernel>` for `executor.launch`, the kernel itself for
    `executor.launch_async`); `send_binary` names each by its absolute path.
  }];
  let dependentDialects = ["::catalyst::executor::ExecutorDialect"];
  let options = [
    Option<"objectDir", "object-dir", "std::string", /*default=*/"\".\"",
           "The directory the object files are written to, created if "
           "missing (default: the current directory)">,
    Option<"kernelLowering", "kernel-lowering", "std::string",
           /*default=*/"\"convert-scf-to-cf,convert-cf-to-llvm,"
           "convert-arith-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,"
           "reconcile-unrealized-casts\"",
           "The pass pipeline that takes a target module to the LLVM dialect, "
           "as a pass list or builtin.module(...)">,
    Option<"setupFunction", "setup-function", "std::string", /*default=*/"",
           "A function of the module that opens every session and sends "
           "every object at its start; the others then only open sessions">,
  ];
}

def DispatchExecutorTargetsPass : Pass<"dispatch-executor-targets", "::mlir::ModuleOp"> {
  let summary = "Catalyst's dispatch form to executor ops: launch_kernel and dispatch custom_call ops of modules marked catalyst.dispatch";
  let description = [{
    Takes the dispatch form of Catalyst's own pass of this name, in which the
    kernels are compiled already. The input (generic form, as `executor-opt
    --allow-unregistered-dialect` reads it; Catalyst prints the custom form
    `catalyst.launch_kernel @target::@compute(%a) : ...`):

    ```mlir
    module @target attributes {catalyst.dispatch = {address = "127.0.0.1:9000"},
                               catalyst.object_file = "/tmp/target.o"} {
      func.func public @compute(%a: memref<4xf64>) -> memref<4xf64> { ... }
    }
    func.func @main(%a: memref<4xf64>) -> memref<4xf64> {
      %r = "catalyst.launch_kernel"(%a) <{callee = @target::@compute}>
          : (memref<4xf64>) -> memref<4xf64>
      "catalyst.custom_call"() <{call_target_name = "reset",
          backend_config = {dispatch = ""}}> : () -> ()
      return %r : memref<4xf64>
    }
    ```

    Each module marked `catalyst.dispatch = {address = "..."}`, directly
    inside the module the pass runs on, names the object its kernels were
    compiled to in `catalyst.object_file`; the pass uses it as it is. Each
    `catalyst.launch_kernel @module::@kernel` of such a module becomes an
    `executor.launch` of the kernel in that object, or, marked
    `catalyst.nonblocking`, an `executor.launch_async` whose `executor.await`
    is placed before each `func.return` of its function. Each
    `catalyst.custom_call` whose `backend_config` has a `dispatch` entry
    becomes an `executor.call` of its `call_target_name` (with
    `number_original_arg` as `num_input_args`) at that address; an empty one
    means the address of the module's dispatch modules, which must all have
    the same.

    A function that launches or calls opens one session per address at its
    start, then sends the object of each module it launches once. When a
    function is marked `catalyst.backline_bringup`, only the functions so
    marked send objects; the others expect them loaded. Nothing is closed:
    the runtime closes the sessions at exit. The dispatch modules are erased.
    A `launch_kernel` of a module not marked `catalyst.dispatch` is left to
    Catalyst.

    Errors, at the op, before anything is changed: a dispatch module without
    a name, an address or an object file, or nested deeper; a launch of a
    kernel the module does not define as a public func.func, with an operand
    or result that is not a memref, or, nonblocking, with any (and, at the
    function, one outside its entry block); a dispatch custom_call with no
    address to take (no dispatch module) or several (ambiguous), or that
    does not make a valid `executor.call`; either outside a func.func or in
    an op isolated from above within it; a module marked `executor.target`
    (this project's form, for `executor-dispatch`).
  }];
  let dependentDialects = ["::catalyst::executor::ExecutorDialect"];
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
