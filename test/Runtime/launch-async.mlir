// Four launch_async of a 200 ms sleeper, then four awaits: the sleepers run at
// the same time, as their own start and end times show (every start comes
// before every end), and close waits for a launch that was never awaited.

// RUN: mlir-translate --mlir-to-llvmir %S/Inputs/sleeper.mlir | llc -filetype=obj -relocation-model=pic -o %t.sleeper.o
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@SLEEPER@|%t.sleeper.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | %python %S/Inputs/check-overlap.py | FileCheck %s
// RUN: env WITH_SERVER_LOG=%t.server.log %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@SLEEPER@|%t.sleeper.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" \
// RUN:   | FileCheck %s --check-prefix=REMOTE
// RUN: %python %S/Inputs/check-overlap.py < %t.server.log | FileCheck %s

// The fifth sleeper is not awaited: close waits for it, so it still prints.
// CHECK: sleepers: 5
// CHECK-NEXT: all overlapped: yes
// CHECK-NEXT: each slept at least 200 ms: yes

// On a server the sleepers print into the server's output, which the second
// check reads; the host only prints that it is done.
// REMOTE: done

func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @done("done\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@SLEEPER@") : !executor.session
  %t0 = executor.launch_async %s("sleep_200ms", "@SLEEPER@") : !executor.session -> !executor.token
  %t1 = executor.launch_async %s("sleep_200ms", "@SLEEPER@") : !executor.session -> !executor.token
  %t2 = executor.launch_async %s("sleep_200ms", "@SLEEPER@") : !executor.session -> !executor.token
  %t3 = executor.launch_async %s("sleep_200ms", "@SLEEPER@") : !executor.session -> !executor.token
  %t4 = executor.launch_async %s("sleep_200ms", "@SLEEPER@") : !executor.session -> !executor.token
  executor.await %t0 : !executor.token
  executor.await %t1 : !executor.token
  executor.await %t2 : !executor.token
  executor.await %t3 : !executor.token
  executor.close %s : !executor.session
  %done = llvm.mlir.addressof @done : !llvm.ptr
  %0 = func.call @puts(%done) : (!llvm.ptr) -> i32
  return
}
