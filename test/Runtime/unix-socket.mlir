// A session with an executor-server on a Unix socket of this host
// (executor.open("unix:PATH")): kernels run as over TCP. A process whose uid
// the server does not allow (--allow-uid) is refused in one line naming it.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: sed -e 's|@ADDRESS@|unix:%t.d/executor.sock|' -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.host.mlir
// RUN: %with_server --listen unix:%t.d/executor.sock -- sh -c "echo \$EXECUTOR_ADDRESS; %run_host %t.host.mlir" \
// RUN:   | FileCheck %s -DSOCKET=%t.d/executor.sock
// The server removed its socket file when it stopped.
// RUN: not test -e %t.d/executor.sock

// CHECK:      unix:[[SOCKET]]
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0,  2,  4,  6]

// RUN: %with_server --listen unix:%t.d/executor.sock --allow-uid 4242 -- sh -c "%run_host %t.host.mlir 2>&1; echo \"exit status \$?\"" \
// RUN:   | FileCheck %s --check-prefix=REFUSED -DSOCKET=%t.d/executor.sock
// REFUSED: executor runtime: __catalyst__executor__open(address unix:[[SOCKET]]): the executor reported: the executor at unix:[[SOCKET]] refused the session: uid {{[0-9]+}} is not allowed on this server's socket (executor-server --allow-uid)
// REFUSED-NEXT: exit status 1

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %n = arith.index_cast %i : index to i32
    %x = arith.sitofp %n : i32 to f32
    memref.store %x, %a[%i] : memref<4xf32>
  }
  %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  %u = memref.cast %r : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  executor.close %s : !executor.session
  return
}
