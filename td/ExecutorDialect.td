//===- ExecutorDialect.td - The executor dialect -----------*- tablegen -*-===//
//
// The dialect definition and the base classes shared by its types and ops.
//
//===----------------------------------------------------------------------===//

#ifndef EXECUTOR_DIALECT_TD
#define EXECUTOR_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Executor_Dialect : Dialect {
  let name = "executor";
  let cppNamespace = "::catalyst::executor";
  let summary = "Dispatch cross-compiled kernels to an executor.";
  let description = [{
    The executor dialect describes how a host program uses an *executor*: a
    co-processor host, another machine, or a pool of threads in the same
    process. A program opens a session at an address, ships compiled objects
    over it, launches kernels synchronously or asynchronously, calls symbols of
    loaded libraries and closes the session.

    ```mlir
    %s = executor.open("127.0.0.1:9000") : !executor.session
    executor.send_binary %s("kernels.o") : !executor.session
    %r = executor.launch %s("add", "kernels.o")(%a, %b)
        : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    executor.close %s : !executor.session
    ```

    Three discardable attributes write a host and its kernels in one module,
    the form `executor-dispatch` turns into the ops above:

    - `executor.target = {address = "<address>"}` on a named `builtin.module`
      nested in the host module marks it as kernels that run on the executor
      at that address; the optional strings `triple`, `cpu` and `features`
      name the machine its kernels are compiled for (by default the host's);
    - `executor.kernel = @<module>::@<kernel>` on a private `func.func`
      declaration of the host names the kernel its calls run;
    - `executor.async` on a `func.call` to such a declaration (a `() -> ()`
      kernel) starts it without waiting for it.

    The dialect verifies where each appears and its form; an `executor.`
    attribute of any other name is an error.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attributes of the dispatch form (executor-dispatch,
    /// passes/executor_dispatch.rs, spells the same names).
    static constexpr ::llvm::StringLiteral kTargetAttrName = "executor.target";
    static constexpr ::llvm::StringLiteral kTargetAddressKey = "address";
    /// The optional keys naming the machine the kernels are compiled for.
    static constexpr ::llvm::StringLiteral kTargetMachineKeys[] = {
        "triple", "cpu", "features"};
    static constexpr ::llvm::StringLiteral kKernelAttrName = "executor.kernel";
    static constexpr ::llvm::StringLiteral kAsyncAttrName = "executor.async";
  }];
}

class Executor_Type<string name, string typeMnemonic> :
    TypeDef<Executor_Dialect, name> {
  let mnemonic = typeMnemonic;
}

class Executor_Op<string mnemonic, list<Trait> traits = []> :
    Op<Executor_Dialect, mnemonic, traits>;

#endif // EXECUTOR_DIALECT_TD
