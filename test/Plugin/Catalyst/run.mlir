// REQUIRES: catalyst
// A host program lowered to the LLVM dialect by Catalyst's CLI with the
// plugin's executor-llvm-lowering-stage runs: mlir-runner with the executor
// runtime, the kernels compiled with upstream tools (test/Plugin/run.mlir
// does the same with mlir-opt).

// RUN: mlir-opt %S/../../Runtime/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %s > %t.host.mlir
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t.host.mlir \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host | FileCheck %s

// CHECK:      rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [3,  5,  7,  9]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
memref.global "private" constant @a : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @b : memref<4xf32> = dense<[2.0, 3.0, 4.0, 5.0]>

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %ma = memref.get_global @a : memref<4xf32>
  %mb = memref.get_global @b : memref<4xf32>
  %r = executor.launch %s("add", "@KERNELS@")(%ma, %mb) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  %u = memref.cast %r : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %r : memref<4xf32>
  executor.close %s : !executor.session
  return
}
