// A program that ends with a session still open and a launch_async not
// awaited: at exit the runtime closes the session as Catalyst's does,
// waiting for the launch, so the sleeper still runs to its end. With a
// shorter exit timeout than the launch takes, one line says so. An exit
// timeout that is not one fails the first open, not the exit.

// RUN: mlir-translate --mlir-to-llvmir %S/Inputs/sleeper.mlir | llc -filetype=obj -relocation-model=pic -o %t.sleeper.o
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@SLEEPER@|%t.sleeper.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.local.mlir
// RUN: %run_host %t.local.mlir 2>&1 | FileCheck %s
// RUN: env EXECUTOR_EXIT_TIMEOUT_MS=20 %run_host %t.local.mlir 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: env EXECUTOR_EXIT_TIMEOUT_MS=soon not %run_host %t.local.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: env WITH_SERVER_LOG=%t.server.log %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@SLEEPER@|%t.sleeper.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" \
// RUN:   | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s < %t.server.log

// CHECK: sleeper {{[0-9]+}} {{[0-9]+}}

// TIMEOUT: executor runtime: at exit, the session with local still had launches running after 20 ms (EXECUTOR_EXIT_TIMEOUT_MS); exiting without them
// TIMEOUT-NOT: sleeper

// INVALID: executor runtime: __catalyst__executor__open(address local): invalid EXECUTOR_EXIT_TIMEOUT_MS 'soon': expected a positive number of milliseconds{{$}}
// INVALID-NOT: sleeper

// HOST: returned
// HOST-NOT: executor runtime

func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @returned("returned\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@SLEEPER@") : !executor.session
  %t = executor.launch_async %s("sleep_200ms", "@SLEEPER@") : !executor.session -> !executor.token
  %message = llvm.mlir.addressof @returned : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}
