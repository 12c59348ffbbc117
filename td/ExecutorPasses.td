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
    dialect, MLIR translates it to LLVM IR and LLVM's target machine for the
    host's default triple (generic CPU, position-independent code, codegen at
    -O2, as `llc -relocation-model=pic`) writes the object. A failure is an
    error at the module, after the diagnostics of the step that failed.

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
    anything but `func.call`; a `setup-function` that names no function.

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

#endif // EXECUTOR_PASSES_TD
