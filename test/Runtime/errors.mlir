// Each failure prints one line naming the runtime function, the address and the
// symbol, and ends the program with exit code 1 (`not` fails the test on a
// signal or a hang's timeout... and on a zero exit).

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: split-file %s %t

// RUN: executor-opt %t/bad-address.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/bad-address.ll.mlir
// RUN: not %run_host %t/bad-address.ll.mlir 2>&1 | FileCheck %s --check-prefix=BAD-ADDRESS
// BAD-ADDRESS: executor runtime: __catalyst__executor__open(address localhost): invalid executor address 'localhost': expected 'local', 'local:<name>', '<host>:<port>', 'unix:<absolute path>' or 'slurm:<index>'

// RUN: executor-opt %t/unreachable.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/unreachable.ll.mlir
// RUN: not %run_host %t/unreachable.ll.mlir 2>&1 | FileCheck %s --check-prefix=UNREACHABLE
// UNREACHABLE: executor runtime: __catalyst__executor__open(address 127.0.0.1:1): cannot reach executor at 127.0.0.1:1:

// RUN: executor-opt %t/missing-object.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/missing-object.ll.mlir
// RUN: not %run_host %t/missing-object.ll.mlir 2>&1 | FileCheck %s --check-prefix=MISSING-OBJECT
// MISSING-OBJECT: executor runtime: __catalyst__executor__send_binary(address local, path /nonexistent/kernels.o): cannot read '/nonexistent/kernels.o':

// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/unknown-symbol.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/unknown-symbol.ll.mlir
// RUN: not %run_host %t/unknown-symbol.ll.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN-SYMBOL
// UNKNOWN-SYMBOL: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_no_such_kernel): no symbol '_mlir_ciface_no_such_kernel' in '{{.*}}kernels.o'{{$}}

// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/object-not-sent.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/object-not-sent.ll.mlir
// RUN: not %run_host %t/object-not-sent.ll.mlir 2>&1 | FileCheck %s --check-prefix=NOT-SENT
// NOT-SENT: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_add): object '{{.*}}kernels.o' was not sent to this session (executor.send_binary)

// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/crash.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/crash.ll.mlir
// RUN: not %run_host %t/crash.ll.mlir 2>&1 | FileCheck %s --check-prefix=CRASH
// CRASH: executor runtime: kernel '_mlir_ciface_crash' crashed with signal 11 (SIGSEGV){{$}}

// A kernel that overflows its stack is reported like any other crash, and said
// to have overflowed (the report runs on a stack of its own); one that aborts too.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' -e 's|@KERNEL@|overflow|' %t/faulty-kernel.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/overflow.ll.mlir
// RUN: not %run_host %t/overflow.ll.mlir 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: executor runtime: kernel '_mlir_ciface_overflow' crashed with signal 11 (SIGSEGV): stack overflow{{$}}
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' -e 's|@KERNEL@|aborts|' %t/faulty-kernel.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/aborts.ll.mlir
// RUN: not %run_host %t/aborts.ll.mlir 2>&1 | FileCheck %s --check-prefix=ABORTS
// ABORTS: executor runtime: kernel '_mlir_ciface_aborts' crashed with signal 6 (SIGABRT){{$}}
// A kernel that writes past a buffer on its stack, over the frames of the
// runtime that called it, is still named: what a thread runs is recorded
// away from its stack.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' -e 's|@KERNEL@|smash_stack|' %t/faulty-kernel.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/smash-stack.ll.mlir
// RUN: not %run_host %t/smash-stack.ll.mlir 2>&1 | FileCheck %s --check-prefix=SMASH-STACK
// SMASH-STACK: executor runtime: kernel '_mlir_ciface_smash_stack' crashed with signal 11 (SIGSEGV){{$}}
// The same on a thread of the runtime's own (an async launch's), which has no
// alternate signal stack until its first kernel starts.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/async-overflow.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/async-overflow.ll.mlir
// RUN: not %run_host %t/async-overflow.ll.mlir 2>&1 | FileCheck %s --check-prefix=ASYNC-OVERFLOW
// ASYNC-OVERFLOW: executor runtime: kernel 'overflow' crashed with signal 11 (SIGSEGV): stack overflow{{$}}

// The lowering stage's executor-verify-sessions rejects this one at compile
// time; without it, the runtime reports it.
// RUN: not executor-opt %t/closed-twice.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' 2>&1 | FileCheck %s --check-prefix=CLOSED-TWICE-COMPILE
// CLOSED-TWICE-COMPILE: error: executor.close of a session that is already closed on every path reaching it
// RUN: executor-opt %t/closed-twice.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage{verify-sessions=false})' > %t/closed-twice.ll.mlir
// RUN: not %run_host %t/closed-twice.ll.mlir 2>&1 | FileCheck %s --check-prefix=CLOSED-TWICE
// CLOSED-TWICE: executor runtime: __catalyst__executor__close(): no open session with handle 1

//--- bad-address.mlir
func.func @main() {
  %s = executor.open("localhost") : !executor.session
  return
}

//--- unreachable.mlir
func.func @main() {
  %s = executor.open("127.0.0.1:1") : !executor.session
  return
}

//--- missing-object.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("/nonexistent/kernels.o") : !executor.session
  return
}

//--- unknown-symbol.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.launch %s("no_such_kernel", "@KERNELS@")() : !executor.session, () -> ()
  return
}

//--- object-not-sent.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  return
}

//--- crash.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.launch %s("crash", "@KERNELS@")() : !executor.session, () -> ()
  return
}

//--- faulty-kernel.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.launch %s("@KERNEL@", "@KERNELS@")() : !executor.session, () -> ()
  return
}

//--- async-overflow.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %t = executor.launch_async %s("overflow", "@KERNELS@") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  return
}

//--- closed-twice.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.close %s : !executor.session
  executor.close %s : !executor.session
  return
}
