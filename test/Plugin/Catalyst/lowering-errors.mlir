// REQUIRES: catalyst
// How the Catalyst plugin's passes fail. What executor-opt reports about the
// module comes back as Catalyst's own diagnostics, at the ops (the child sees
// every op under a location of its own, mapped back here), with the messages
// executor-opt gives (test/Conversion/ExecutorToLLVM/invalid.mlir). A child
// that is missing, crashes, fails without saying why or prints something else
// than a module is one error at the module. Catalyst's CLI does not split
// input files, so split-file makes one input per case.

// RUN: split-file %s %t

// RUN: not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t/unlowerable.mlir \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=UNLOWERABLE
// UNLOWERABLE:      catalyst_module:2:3: error: cannot lower value #0 of executor.call: memref<4xf32, 1> is not in the default memory space
// UNLOWERABLE-NEXT:   executor.call %s("fill")(%x) : !executor.session, (memref<4xf32, 1>) -> ()
// UNLOWERABLE-NEXT:   ^
// UNLOWERABLE-NEXT: catalyst_module:6:3: error: cannot lower value #0 of executor.launch: the element type memref<2xf32> of memref<4xmemref<2xf32>> has no known size in memory
// UNLOWERABLE-NOT:  error:

// The same through the lowering stage, whose later passes do not run.
// RUN: not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t/unlowerable.mlir \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' 2>&1 | FileCheck %s --check-prefix=UNLOWERABLE

// An error at a function comes back there, as executor-opt reports it.
// RUN: not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t/nested-handle.mlir \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not executor-opt %t/nested-handle.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED
// NESTED:      {{catalyst_module|nested-handle.mlir}}:1:1: error: cannot lower tuple<!executor.session>: a session or token inside another type has no LLVM lowering; pass each handle as a value of its own
// NESTED-NEXT: func.func @session_in_a_tuple(%t: tuple<!executor.session>) {

// No executor-opt: EXECUTOR_OPT names none, or it is unset and the plugin has
// none next to it.
// RUN: not env EXECUTOR_OPT=%t/no-such-executor-opt %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin \
// RUN:   %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=MISSING -DDIR=%t
// MISSING:     catalyst_module:0:0: error: convert-executor-to-llvm: EXECUTOR_OPT=[[DIR]]/no-such-executor-opt is not an executable file (No such file or directory)
// MISSING-NOT: error:
// RUN: rm -rf %t/lonely && mkdir %t/lonely && cp %catalyst_plugin %t/lonely/
// RUN: not env -u EXECUTOR_OPT %catalyst_opt --load-dialect-plugin=%t/lonely/libexecutor_plugin.so --load-pass-plugin=%t/lonely/libexecutor_plugin.so \
// RUN:   %t/fine.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' 2>&1 | FileCheck %s --check-prefix=NOT-NEXT -DDIR=%t
// NOT-NEXT: error: executor-llvm-lowering-stage: EXECUTOR_OPT is not set and there is no executor-opt next to the plugin ([[DIR]]/lonely/executor-opt: No such file or directory)

// A child that misbehaves.
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=crash %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=CRASH
// CRASH:     catalyst_module:0:0: error: convert-executor-to-llvm: {{.*}}fake-executor-opt.sh was killed by signal 11 (Segmentation fault)
// CRASH-NOT: error:
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=fail %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL:      catalyst_module:0:0: error: convert-executor-to-llvm: {{.*}}fake-executor-opt.sh failed with exit status 3
// FAIL-NEXT: catalyst_module:0:0: note: its standard error:
// FAIL-NEXT: fake-executor-opt: something went wrong
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=garbage %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: executor-opt output:1:1: error: custom op 'this' is unknown
// GARBAGE: catalyst_module:0:0: error: convert-executor-to-llvm: cannot read the module executor-opt printed
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=nothing %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=NOT-A-MODULE
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=two-modules %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=NOT-A-MODULE
// NOT-A-MODULE: catalyst_module:0:0: error: convert-executor-to-llvm: executor-opt printed something else than one builtin.module

// The child's diagnostics, each at the op it names, and a note attached to the
// error before it. A location that is no op of the module is the module's;
// one in another file is kept.
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=diagnose %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=DIAGNOSE
// DIAGNOSE:      catalyst_module:2:3: error: a fake error at executor.close
// DIAGNOSE-NEXT: with a second line
// DIAGNOSE-NEXT:   executor.close %s : !executor.session
// DIAGNOSE-NEXT:   ^
// DIAGNOSE-NEXT: catalyst_module:1:1: note: a fake note at the function
// DIAGNOSE-NEXT: func.func @close(%s: !executor.session) {
// DIAGNOSE-NEXT: ^
// DIAGNOSE-NEXT: catalyst_module:0:0: warning: a fake warning at no op of the module
// DIAGNOSE-NEXT: elsewhere.mlir:7:3: remark: a fake remark at another file
// DIAGNOSE-NOT:  error:
// An error about the text the plugin printed says so.
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=unreadable %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/fine.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=UNREADABLE
// UNREADABLE: catalyst_module:0:0: error: executor-opt cannot read the module Catalyst printed, at line 3: custom op 'x' is unknown

// convert-executor-to-llvm leaves a module without executor ops or types as
// it is, so the plugin does not run the child for one: the failing child is
// not noticed there. A session type anywhere, even only in a declaration's
// type, does run it; the lowering stage always runs it.
// RUN: env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=fail %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/no-executor.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s --check-prefix=SKIPPED
// SKIPPED: func.func @no_executor(%arg0: memref<4xf32>) -> memref<4xf32> {
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=fail %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/declaration.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: not env EXECUTOR_OPT=%S/Inputs/fake-executor-opt.sh FAKE_EXECUTOR_OPT=fail %catalyst_opt --load-dialect-plugin=%catalyst_plugin \
// RUN:   --load-pass-plugin=%catalyst_plugin %t/no-executor.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STAGE-FAIL
// STAGE-FAIL: error: executor-llvm-lowering-stage: {{.*}}fake-executor-opt.sh failed with exit status 3

//--- no-executor.mlir
func.func @no_executor(%m: memref<4xf32>) -> memref<4xf32> {
  return %m : memref<4xf32>
}

//--- declaration.mlir
func.func private @takes_a_token_in_a_tuple(tuple<i32, !executor.token>)

//--- unlowerable.mlir
func.func @call_on_memref_in_memory_space_1(%s: !executor.session, %x: memref<4xf32, 1>) {
  executor.call %s("fill")(%x) : !executor.session, (memref<4xf32, 1>) -> ()
  return
}
func.func @launch_memref_of_memref_input(%s: !executor.session, %x: memref<4xmemref<2xf32>>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4xmemref<2xf32>>) -> ()
  return
}

//--- nested-handle.mlir
func.func @session_in_a_tuple(%t: tuple<!executor.session>) {
  return
}

//--- fine.mlir
func.func @close(%s: !executor.session) {
  executor.close %s : !executor.session
  return
}
