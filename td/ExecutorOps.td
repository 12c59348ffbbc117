//===- ExecutorOps.td - Operations of the executor dialect -*- tablegen -*-===//
//
// The summaries, descriptions and assembly formats follow the op reference
// (shared/spec/executor-ops.txt) to the letter; each description then lists
// the rules the verifier adds on top of the operand and result types.
//
//===----------------------------------------------------------------------===//

#ifndef EXECUTOR_OPS_TD
#define EXECUTOR_OPS_TD

include "ExecutorDialect.td"
include "ExecutorTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Memory effects
//===----------------------------------------------------------------------===//

// The executors and the runtime's process-wide tables of sessions and launches
// in flight: what executor ops change beyond memrefs. Every executor op reads
// and writes it, so that upstream passes neither erase, merge, reorder nor
// hoist one (an unused open still contacts its executor, two identical
// launches run twice); which of them may be reused, dropped or hoisted is
// executor-optimize's to decide (td/ExecutorPasses.td).
def Executor_SessionResource
    : Resource<"::catalyst::executor::SessionResource">;
defvar Executor_SessionEffects = MemoryEffects<[
    MemRead<Executor_SessionResource>, MemWrite<Executor_SessionResource>]>;

//===----------------------------------------------------------------------===//
// Attribute constraints
//===----------------------------------------------------------------------===//

// The ops' attributes are strings and integers, never symbol references: the
// session analysis does not search them for functions called other than by
// func.call (executorNonCallSymbolReferences in cpp/Bridge.cpp). An attribute
// that may hold a symbol reference must be searched there.

// Names of addresses, files and symbols, which the runtime receives as C
// strings: an empty one can never be resolved, and one with a NUL byte would
// name what comes before the NUL, so both are rejected when the IR is
// verified.
def Executor_NonEmptyStrAttr : ConfinedAttr<StrAttr, [AttrConstraint<
    CPred<"!::llvm::cast<::mlir::StringAttr>($_self).getValue().empty() && "
          "!::llvm::cast<::mlir::StringAttr>($_self).getValue().contains('\\0')">,
    "that is not empty and holds no NUL byte">]>;

// The formats of executor.send_binary (executor_abi::BinaryFormat, whose
// tests check this list).
def Executor_BinaryFormatAttr : ConfinedAttr<I32Attr, [AttrConstraint<
    CPred<"::llvm::is_contained({0, 1, 2}, "
          "::llvm::cast<::mlir::IntegerAttr>($_self).getInt())">,
    "whose value is 0 (object file), 1 (asset) or 2 (shared library); "
    "other values are reserved for future encodings">]>;

def Executor_ShapedValue : AnyTypeOf<[AnyRankedTensor, AnyMemRef]>;

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

def Executor_OpenOp : Executor_Op<"open", [Executor_SessionEffects]> {
  let summary = "Open a session with an executor.";
  let description = [{
    Establish a connection to the executor reachable at address and return an
    !executor.session handle identifying it. Subsequent executor operations
    consume the handle to target this session.

    Verification:
    - `address` is not empty.

    Memory effects: allocates the session handle and reads and writes the
    executor sessions (it connects, or returns the session already open at
    `address`).
  }];
  let arguments = (ins Executor_NonEmptyStrAttr:$address);
  let results = (outs Res<Executor_SessionType, "",
                          [MemAlloc<Executor_SessionResource>]>:$session);
  let assemblyFormat = "`(` $address `)` attr-dict `:` type($session)";
}

def Executor_SendBinaryOp : Executor_Op<"send_binary", [Executor_SessionEffects]> {
  let summary = "Ship a compiled kernel object file to the executor.";
  let description = [{
    Transfer the compiled binary at binary_path over the session to the
    executor. The executor loads the file and exposes all of its symbols.
    format selects the wire encoding for the transfer, which is handled by the
    runtime. Defaults to 0 (the raw object file); other values are reserved for
    future encodings.

    This project's runtime knows three formats: 0, a relocatable object file,
    JIT-linked into a namespace of its own (launches name it as their
    `object`); 1, an asset, as in Catalyst: stored on the executor under its
    base name and not loaded (on an executor-server, in the session's asset
    directory, the working directory of its kernels; on `local`, where the
    host has it); 2, a shared library opened with `dlopen`, whose symbols
    serve `executor.call`.

    Verification:
    - `binary_path` is not empty.
    - `format` is 0 (object file), 1 (asset) or 2 (shared library); other
      values are reserved.

    Memory effects: reads and writes the executor sessions (the executor
    loads the file; a path the session has loaded already is not loaded
    again).
  }];
  let arguments = (ins Executor_SessionType:$session,
                       Executor_NonEmptyStrAttr:$binary_path,
                       DefaultValuedAttr<Executor_BinaryFormatAttr, "0">:$format);
  let assemblyFormat = "$session `(` $binary_path `)` attr-dict `:` type($session)";
}

def Executor_CloseOp : Executor_Op<"close", [Executor_SessionEffects]> {
  let summary = "Release a session handle with an executor.";
  let description = [{
    Release the session previously established via executor.open, marking the
    end of its use in the IR.

    Memory effects: frees the session handle, and reads and writes the
    executor sessions (it waits for the session's launches in flight).
  }];
  let arguments = (ins Arg<Executor_SessionType, "",
                           [MemFree<Executor_SessionResource>]>:$session);
  let assemblyFormat = "$session attr-dict `:` type($session)";
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

def Executor_LaunchOp : Executor_Op<"launch", [Executor_SessionEffects]> {
  let summary = "Dispatch a cross-compiled kernel on the executor and receive its results.";
  let description = [{
    Invoke, on the given session, the kernel previously registered via
    executor.send_binary. The inputs operand list mirrors the original host-side
    func.call to the kernel; results mirrors the kernel’s return values.

    Verification:
    - `kernel_callee` and `object` are not empty.

    Memory effects: reads and writes the executor sessions; reads and writes
    each input memref (an executor embedded in the process runs the kernel on
    the input buffers themselves); allocates each result.
  }];
  let arguments = (ins Executor_SessionType:$session,
                       Executor_NonEmptyStrAttr:$kernel_callee,
                       Executor_NonEmptyStrAttr:$object,
                       Arg<Variadic<AnyMemRef>, "", [MemRead, MemWrite]>:$inputs);
  let results = (outs Res<Variadic<AnyMemRef>, "", [MemAlloc]>:$results);
  let assemblyFormat = [{
    $session `(` $kernel_callee `,` $object `)` `(` $inputs `)` attr-dict
    `:` type($session) `,` functional-type($inputs, $results)
  }];
}

def Executor_LaunchAsyncOp : Executor_Op<"launch_async", [Executor_SessionEffects]> {
  let summary = "Dispatch a ``()->()`` entry on the executor without waiting for it.";
  let description = [{
    Like executor.launch, but returns as soon as the entry has been started
    instead of waiting for it to finish; the entry runs on a background thread
    on the host. Pass the returned token to executor.await to wait for it.

    Verification:
    - `kernel_callee` and `object` are not empty.

    Memory effects: allocates the token and reads and writes the executor
    sessions. The entry takes no arguments, so it reaches no memref of the
    host program.
  }];
  let arguments = (ins Executor_SessionType:$session,
                       Executor_NonEmptyStrAttr:$kernel_callee,
                       Executor_NonEmptyStrAttr:$object);
  let results = (outs Res<Executor_TokenType, "",
                          [MemAlloc<Executor_SessionResource>]>:$token);
  let assemblyFormat = [{
    $session `(` $kernel_callee `,` $object `)` attr-dict
    `:` type($session) `->` type($token)
  }];
}

def Executor_AwaitOp : Executor_Op<"await", [Executor_SessionEffects]> {
  let summary = "Wait for one executor.launch_async to finish.";
  let description = [{
    Block until the executor.launch_async that produced token has finished.
    Waiting on the token rather than on the session means other launches on
    that session are left running.

    Memory effects: frees the token and reads and writes the executor
    sessions.
  }];
  let arguments = (ins Arg<Executor_TokenType, "",
                           [MemFree<Executor_SessionResource>]>:$token);
  let assemblyFormat = "$token attr-dict `:` type($token)";
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

def Executor_CallOp : Executor_Op<"call", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    PredOpTrait<"num_input_args is at most the number of operands after the session",
                CPred<"!getNumInputArgs() || "
                      "*getNumInputArgs() <= getInputs().size()">>]> {
  let summary = "Invoke a symbol in a previously-loaded shared library.";
  let description = [{
    Invoke symbol in a shared library already loaded on the executor session.

    The operand list packs input buffers followed by output buffers.
    num_input_args, when present, marks the boundary: operands
    [0, num_input_args) are inputs and the remainder are output buffers to be
    filled by the callee. Without num_input_args all operands are treated as
    inputs.

    Operands and results are ranked tensors (value semantics) or, once
    bufferized, memrefs.

    Verification:
    - `symbol` is not empty.
    - `num_input_args` is within [0, number of operands after the session].
    - Operands and results are either all tensors or all memrefs.
    - With output operands, the results are the filled outputs: one result per
      output operand, each of the same type as its output operand.
    - Without output operands, every result has a static shape, since nothing
      else tells the executor how large it is.

    Memory effects: reads and writes the executor sessions. On memrefs it
    reads the input buffers, writes the output buffers and allocates its
    results; tensors are values and have none.
  }];
  let arguments = (ins Executor_SessionType:$session,
                       Executor_NonEmptyStrAttr:$symbol,
                       Variadic<Executor_ShapedValue>:$inputs,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$num_input_args);
  let results = (outs Variadic<Executor_ShapedValue>:$results);
  let assemblyFormat = [{
    $session `(` $symbol `)` `(` $inputs `)` attr-dict
    `:` type($session) `,` functional-type($inputs, $results)
  }];
  let extraClassDeclaration = [{
    /// The operands the callee reads: all of them without num_input_args.
    ::mlir::OperandRange getInputBuffers();
    /// The buffers the callee fills: empty without num_input_args.
    ::mlir::OperandRange getOutputBuffers();
  }];
  let hasVerifier = 1;
}

#endif // EXECUTOR_OPS_TD
