// EXECUTOR_LAUNCH_TIMEOUT_MS bounds how long launch, await and call wait for a
// kernel, and close for the async launches never awaited: past it the program prints the call's one line and exits with code 1,
// locally (the kernel's thread cannot be stopped) and on a server (whose worker
// is then killed, while the server goes on). Without it, or within it, nothing
// changes. `timeout 60` only keeps a regression from hanging the suite.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: split-file %s %t
// RUN: for program in launch-hang await-hang close-hang add; do \
// RUN:   sed -e 's|@ADDRESS@|local|' -e 's|@KERNELS@|%t.kernels.o|' %t/$program.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/$program.local.mlir || exit 1; \
// RUN: done

// RUN: env EXECUTOR_LAUNCH_TIMEOUT_MS=300 not timeout 60 %run_host %t/launch-hang.local.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LOCAL-LAUNCH
// LOCAL-LAUNCH: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_hang): the kernel did not finish within 300 ms (EXECUTOR_LAUNCH_TIMEOUT_MS){{$}}

// RUN: env EXECUTOR_LAUNCH_TIMEOUT_MS=300 not timeout 60 %run_host %t/await-hang.local.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LOCAL-AWAIT
// LOCAL-AWAIT: executor runtime: __catalyst__executor__await(address local, symbol hang): the kernel did not finish within 300 ms (EXECUTOR_LAUNCH_TIMEOUT_MS){{$}}

// RUN: env EXECUTOR_LAUNCH_TIMEOUT_MS=300 not timeout 60 %run_host %t/close-hang.local.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LOCAL-CLOSE
// LOCAL-CLOSE: executor runtime: __catalyst__executor__close(address local): async launches never awaited did not finish within 300 ms (EXECUTOR_LAUNCH_TIMEOUT_MS); abandoned: hang{{$}}

// A kernel that finishes in time is not affected.
// RUN: env EXECUTOR_LAUNCH_TIMEOUT_MS=60000 %run_host %t/add.local.mlir 2>&1 | FileCheck %s --check-prefix=IN-TIME
// IN-TIME: the program ran to its end

// RUN: env EXECUTOR_LAUNCH_TIMEOUT_MS=soon not %run_host %t/add.local.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: executor runtime: __catalyst__executor__open(address local): invalid EXECUTOR_LAUNCH_TIMEOUT_MS 'soon': expected a positive number of milliseconds{{$}}

// RUN: %with_server -- sh -c "for program in launch-hang await-hang close-hang add; do \
// RUN:     sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %t/\$program.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:     | EXECUTOR_LAUNCH_TIMEOUT_MS=300 timeout 60 %run_host 2>&1; \
// RUN:     echo \"exit status \$?\"; done" | FileCheck %s --check-prefix=REMOTE
// REMOTE: executor runtime: __catalyst__executor__launch(address 127.0.0.1:{{[0-9]+}}, symbol _mlir_ciface_hang): the kernel did not finish within 300 ms (EXECUTOR_LAUNCH_TIMEOUT_MS){{$}}
// REMOTE-NEXT: exit status 1
// REMOTE-NEXT: executor runtime: __catalyst__executor__await(address 127.0.0.1:{{[0-9]+}}, symbol hang): the kernel did not finish within 300 ms (EXECUTOR_LAUNCH_TIMEOUT_MS){{$}}
// REMOTE-NEXT: exit status 1
// REMOTE-NEXT: executor runtime: __catalyst__executor__close(address 127.0.0.1:{{[0-9]+}}): async launches never awaited did not finish within 300 ms (EXECUTOR_LAUNCH_TIMEOUT_MS); abandoned: hang{{$}}
// REMOTE-NEXT: exit status 1
// REMOTE-NEXT: the program ran to its end
// REMOTE-NEXT: exit status 0

//--- launch-hang.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.launch %s("hang", "@KERNELS@")() : !executor.session, () -> ()
  return
}

//--- await-hang.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %t = executor.launch_async %s("hang", "@KERNELS@") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  return
}

//--- close-hang.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %t = executor.launch_async %s("hang", "@KERNELS@") : !executor.session -> !executor.token
  executor.close %s : !executor.session
  return
}

//--- add.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @done("the program ran to its end\00") {addr_space = 0 : i32}
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @done : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}
