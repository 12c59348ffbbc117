// executor.open("slurm:0"): the address that the [slurm:0] section of
// EXECUTOR_CONFIG names, with the settings of that address's own section
// (here its token, without which the server refuses the session). The
// session is slurm:0's; errors name both. An index without a section, or no
// EXECUTOR_CONFIG at all, is one line.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: rm -rf %t.d && mkdir -p %t.d && (umask 077; echo "the token" > %t.d/token)
// RUN: for index in 0 1; do \
// RUN:   sed -e "s|@ADDRESS@|slurm:$index|" -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.host$index.mlir || exit 1; \
// RUN: done
// RUN: %with_server --token-file %t.d/token -- sh -c " \
// RUN:   printf '[%%s]\ntoken_file = token\n\n[slurm:0]\naddress = %%s\n' \$EXECUTOR_ADDRESS \$EXECUTOR_ADDRESS > %t.d/executors.conf; \
// RUN:   export EXECUTOR_CONFIG=%t.d/executors.conf; \
// RUN:   %executor_server --check slurm:0; %run_host %t.host0.mlir; %run_host %t.host1.mlir 2>&1; echo exit status \$?" \
// RUN:   | FileCheck %s -DCONF=%t.d/executors.conf

// CHECK:      slurm:0 (127.0.0.1:{{[0-9]+}}): reachable, authenticated, protocol version {{[0-9]+}}, triple {{[^,]+}}, 0 of 256 sessions in use
// CHECK-NEXT: rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0,  2,  4,  6]
// CHECK-NEXT: executor runtime: __catalyst__executor__open(address slurm:1): [[CONF]]: no section for slurm:1: its Slurm step has fewer executors
// CHECK-NEXT: exit status 1

// RUN: env -u EXECUTOR_CONFIG not %run_host %t.host0.mlir 2>&1 | FileCheck %s --check-prefix=UNSET
// UNSET: executor runtime: __catalyst__executor__open(address slurm:0): slurm:0 is an executor of a Slurm step, and EXECUTOR_CONFIG (which names them; executor-slurm sets it) is not set

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
