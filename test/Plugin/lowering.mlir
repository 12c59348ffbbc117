// convert-executor-to-llvm from the pass plugin in upstream mlir-opt gives the
// same module as in executor-opt.

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' > %t.plugin.mlir
// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-executor-to-llvm)' > %t.driver.mlir
// RUN: diff %t.driver.mlir %t.plugin.mlir
// RUN: FileCheck %s < %t.plugin.mlir

// Its option is parsed by the plugin's pass too.
// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface})' \
// RUN:   | FileCheck %s --check-prefix=PYFACE

// CHECK-DAG: llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
// CHECK-DAG: llvm.func @__executor__launch_at_site(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.mlir.global internal @__executor_site_add() {{.*}} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
// CHECK-DAG: llvm.func @__catalyst__executor__close(i64) -> i64
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str__mlir_ciface_add("_mlir_ciface_add\00")
// CHECK-LABEL: func.func @add_remotely
// CHECK-SAME:    (%{{.*}}: memref<4xf32>) -> memref<4xf32>
// CHECK:         %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_add : !llvm.ptr
// CHECK:         %[[S:.*]] = llvm.call @__catalyst__executor__open
// CHECK:         llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %{{.*}}, %{{.*}})
// CHECK:         llvm.call @__catalyst__executor__close(%[[S]])
// CHECK-NOT:     executor.

// PYFACE: llvm.mlir.global internal constant @__executor_str__catalyst_pyface_add("_catalyst_pyface_add\00")
func.func @add_remotely(%x: memref<4xf32>) -> memref<4xf32> {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  %r = executor.launch %s("add", "kernels.o")(%x, %x) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  executor.close %s : !executor.session
  return %r : memref<4xf32>
}
