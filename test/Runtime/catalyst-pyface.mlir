// With entry-convention=catalyst-pyface, executor.launch runs Catalyst's
// `_catalyst_pyface_<kernel>(results *, args *)`; here it is defined in one
// object and calls into another object of the same session.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: mlir-translate --mlir-to-llvmir %S/Inputs/pyface.mlir | llc -filetype=obj -relocation-model=pic -o %t.pyface.o
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@KERNELS@|%t.kernels.o|' -e 's|@PYFACE@|%t.pyface.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage{entry-convention=catalyst-pyface})' \
// RUN:   | %run_host | FileCheck %s
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' -e 's|@PYFACE@|%t.pyface.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage{entry-convention=catalyst-pyface})' \
// RUN:   | %run_host" | FileCheck %s

// CHECK:      rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [11,  22,  33,  44]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
memref.global "private" constant @a : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @b : memref<4xf32> = dense<[10.0, 20.0, 30.0, 40.0]>

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.send_binary %s("@PYFACE@") : !executor.session
  %a = memref.get_global @a : memref<4xf32>
  %b = memref.get_global @b : memref<4xf32>
  %r = executor.launch %s("add", "@PYFACE@")(%a, %b) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  %u = memref.cast %r : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %r : memref<4xf32>
  executor.close %s : !executor.session
  return
}
