// An object compiled with function sections is linked a piece at a time
// (runtime/src/local/split_object.rs): each launch links only the sections
// its kernel reaches that are not linked yet. What a program observes is the
// same as with the object linked whole: the two kernels share their private
// helper and their private global, whichever is launched first.

// RUN: mlir-opt %S/Inputs/split-kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic --function-sections -o %t.split.o
// RUN: mlir-opt %S/Inputs/split-kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.whole.o
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@KERNELS@|%t.split.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.split.mlir
// RUN: env EXECUTOR_LOG=debug %run_host %t.split.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,PIECES
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@KERNELS@|%t.whole.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.whole.mlir
// RUN: env EXECUTOR_LOG=debug %run_host %t.whole.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,WHOLE
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.split.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" | FileCheck %s

// The first launch links `tens` with the helper and the global; `hundreds`
// then links its own section alone, and finds both by name.
// PIECES: linking a piece of the object {{.*}}symbol="_mlir_ciface_tens"
// PIECES-NOT: linking a piece
// CHECK: [10]
// PIECES: linking a piece of the object {{.*}}symbol="_mlir_ciface_hundreds"
// PIECES-NOT: linking a piece
// CHECK: [200]
// CHECK: [30]
// WHOLE-NOT: linking a piece

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%value: memref<1xf32>) {
  %unranked = memref.cast %value : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%unranked) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %first = executor.launch %s("tens", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%first) : (memref<1xf32>) -> ()
  %second = executor.launch %s("hundreds", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%second) : (memref<1xf32>) -> ()
  %third = executor.launch %s("tens", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%third) : (memref<1xf32>) -> ()
  executor.close %s : !executor.session
  return
}
