// The named pipeline executor-llvm-lowering-stage (Catalyst's LLVM-dialect
// stage) lowers a host module of func, scf, arith, memref and executor ops to
// the LLVM dialect in one --pass-pipeline, in mlir-opt with the plugin as in
// executor-opt, and on to LLVM IR.

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.plugin.mlir
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.driver.mlir
// RUN: diff %t.driver.mlir %t.plugin.mlir
// RUN: FileCheck %s < %t.plugin.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.plugin.mlir | FileCheck %s --check-prefix=IR

// With Catalyst's use-generic-functions, allocations go through
// _mlir_memref_to_llvm_alloc/_free, which the host then provides.
// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage{use-generic-functions=true})' \
// RUN:   | FileCheck %s --check-prefix=GENERIC

// CHECK-NOT: executor.
// CHECK-NOT: unrealized_conversion_cast
// CHECK-LABEL: llvm.func @scale_all
// CHECK:         llvm.call @malloc
// CHECK:         llvm.call @__executor__launch_at_site
// CHECK:         llvm.call @free
// CHECK-NOT: executor.
// CHECK-NOT: unrealized_conversion_cast

// IR-LABEL: define void @scale_all(i64 %0)
// IR:         call void @__executor__launch_at_site(ptr @__executor_site_scale,

// GENERIC-DAG: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// GENERIC-DAG: llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// GENERIC-LABEL: llvm.func @scale_all
// GENERIC:         llvm.call @_mlir_memref_to_llvm_alloc
// GENERIC:         llvm.call @__executor__launch_at_site
// GENERIC:         llvm.call @_mlir_memref_to_llvm_free
func.func @scale_all(%n: index) {
  %s = executor.open("local") : !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buffer = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    executor.launch %s("scale", "kernels.o")(%buffer) : !executor.session, (memref<?xf32>) -> ()
  }
  memref.dealloc %buffer : memref<?xf32>
  executor.close %s : !executor.session
  return
}
