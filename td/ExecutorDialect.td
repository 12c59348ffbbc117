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
  }];
  let useDefaultTypePrinterParser = 1;
}

class Executor_Type<string name, string typeMnemonic> :
    TypeDef<Executor_Dialect, name> {
  let mnemonic = typeMnemonic;
}

class Executor_Op<string mnemonic, list<Trait> traits = []> :
    Op<Executor_Dialect, mnemonic, traits>;

#endif // EXECUTOR_DIALECT_TD
