// Failures against an executor-server: a kernel that crashes fails its session
// (the client names the kernel and the signal) while the server survives and
// serves the next session; a wrong or missing token is refused.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: split-file %s %t
// RUN: printf 'correct horse battery staple\n' > %t.token

// A kernel that overflows its stack dies of the fault (the server cannot tell it
// from another), one that calls abort() of SIGABRT.
// RUN: %with_server -- sh -c "for kernel in crash overflow aborts; do \
// RUN:     sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' -e \"s|@KERNEL@|\$kernel|\" %t/launch.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host 2>&1; \
// RUN:     echo \"exit status \$?\"; done; \
// RUN:   sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %t/add.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host 2>&1; \
// RUN:   echo \"exit status \$?\"" | FileCheck %s --check-prefix=CRASH
// CRASH: executor runtime: __catalyst__executor__launch(address 127.0.0.1:{{[0-9]+}}, symbol _mlir_ciface_crash): kernel '_mlir_ciface_crash' crashed with signal 11 (SIGSEGV)
// CRASH-NEXT: exit status 1
// CRASH-NEXT: executor runtime: __catalyst__executor__launch(address 127.0.0.1:{{[0-9]+}}, symbol _mlir_ciface_overflow): kernel '_mlir_ciface_overflow' crashed with signal 11 (SIGSEGV)
// CRASH-NEXT: exit status 1
// CRASH-NEXT: executor runtime: __catalyst__executor__launch(address 127.0.0.1:{{[0-9]+}}, symbol _mlir_ciface_aborts): kernel '_mlir_ciface_aborts' crashed with signal 6 (SIGABRT)
// CRASH-NEXT: exit status 1
// CRASH-NEXT: the next session works
// CRASH-NEXT: exit status 0

// RUN: %with_server --token-file %t.token -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %t/add.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.add.ll.mlir; \
// RUN:   EXECUTOR_TOKEN=wrong %run_host %t.add.ll.mlir 2>&1; echo \"exit status \$?\"; \
// RUN:   %run_host %t.add.ll.mlir 2>&1; echo \"exit status \$?\"; \
// RUN:   EXECUTOR_TOKEN='correct horse battery staple' %run_host %t.add.ll.mlir 2>&1; echo \"exit status \$?\"" \
// RUN:   | FileCheck %s --check-prefix=TOKEN
// TOKEN: executor runtime: __catalyst__executor__open(address 127.0.0.1:{{[0-9]+}}): {{.*}}
// TOKEN-NEXT: exit status 1
// TOKEN-NEXT: executor runtime: __catalyst__executor__open(address 127.0.0.1:{{[0-9]+}}): {{.*}}
// TOKEN-NEXT: exit status 1
// TOKEN-NEXT: the next session works
// TOKEN-NEXT: exit status 0

//--- launch.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.launch %s("@KERNEL@", "@KERNELS@")() : !executor.session, () -> ()
  return
}

//--- add.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @works("the next session works\00") {addr_space = 0 : i32}
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @works : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}
