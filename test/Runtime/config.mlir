// The client's configuration file (EXECUTOR_CONFIG) sets each address's
// deadlines and token file; what it leaves unset keeps the environment's
// defaults. A file that cannot be used ends the program at the first
// executor.open, in one line naming the file and the line.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: split-file %s %t
// RUN: for program in launch-hang add remote-open; do \
// RUN:   sed -e 's|@KERNELS@|%t.kernels.o|' %t/$program.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/$program.ll.mlir || exit 1; \
// RUN: done

// The file's launch deadline for `local` applies, and names where it was set.
// RUN: env EXECUTOR_CONFIG=%t/local.conf not timeout 60 %run_host %t/launch-hang.ll.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEADLINE -DCONF=%t/local.conf
// DEADLINE: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_hang): the kernel did not finish within 300 ms (launch_timeout_ms, [[CONF]]:3){{$}}

// A section applies to its own address only: elsewhere the environment's
// default stays.
// RUN: env EXECUTOR_CONFIG=%t/other.conf EXECUTOR_LAUNCH_TIMEOUT_MS=200 not timeout 60 %run_host %t/launch-hang.ll.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OTHER
// OTHER: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_hang): the kernel did not finish within 200 ms (EXECUTOR_LAUNCH_TIMEOUT_MS){{$}}

// RUN: env EXECUTOR_CONFIG=%t/bad.conf not %run_host %t/add.ll.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD -DCONF=%t/bad.conf
// BAD: executor runtime: __catalyst__executor__open(address local): [[CONF]]:3:3: unknown key 'launch_timeout' (expected one of: address, token_file, connect_timeout_ms, handshake_timeout_ms, dead_link_timeout_ms, launch_timeout_ms, tls_fingerprint, tls_ca, insecure_plaintext){{$}}
// BAD-NOT: {{.}}

// RUN: env EXECUTOR_CONFIG=%t/missing.conf not %run_host %t/add.ll.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING -DCONF=%t/missing.conf
// MISSING: executor runtime: __catalyst__executor__open(address local): cannot read [[CONF]]: No such file or directory (os error 2){{$}}

// A token file that cannot be read is named with the line that names it.
// RUN: env EXECUTOR_CONFIG=%t/token.conf not %run_host %t/remote-open.ll.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TOKEN -DCONF=%t/token.conf
// TOKEN: executor runtime: __catalyst__executor__open(address 127.0.0.1:1): [[CONF]]:2: cannot read the token file of 127.0.0.1:1: '{{.*}}absent.token': {{.*}}{{$}}

//--- local.conf
# the embedded executor
[local]
launch_timeout_ms = 300

//--- other.conf
[local:other]
launch_timeout_ms = 60000

//--- bad.conf
# a misspelt key
[local]
  launch_timeout = 300

//--- token.conf
[127.0.0.1:1]
token_file = absent.token

//--- remote-open.mlir
func.func @main() {
  %s = executor.open("127.0.0.1:1") : !executor.session
  return
}

//--- launch-hang.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.launch %s("hang", "@KERNELS@")() : !executor.session, () -> ()
  return
}

//--- add.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @done("the program ran to its end\00") {addr_space = 0 : i32}
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @done : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}
