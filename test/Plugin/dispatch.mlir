// executor-dispatch in upstream mlir-opt with the plugin: the same host and
// objects with the same symbols as in executor-opt (the plugin emits objects
// through the libLLVM that mlir-opt's libMLIR.so uses).

// RUN: rm -rf %t && mkdir -p %t/plugin %t/driver
// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %S/../Dispatch/dispatch.mlir \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects})' > %t/plugin.mlir
// RUN: for object in kernels more remote; do llvm-nm %t/objects/$object.o > %t/plugin/$object.nm; done
// RUN: executor-opt %S/../Dispatch/dispatch.mlir \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects})' > %t/driver.mlir
// RUN: for object in kernels more remote; do llvm-nm %t/objects/$object.o > %t/driver/$object.nm; done
// RUN: diff %t/driver.mlir %t/plugin.mlir
// RUN: diff -r %t/driver %t/plugin
// RUN: FileCheck %s < %t/plugin.mlir
// RUN: FileCheck %s --check-prefix=NM < %t/plugin/kernels.nm

// CHECK-NOT: executor.target
// CHECK:     executor.send_binary %{{.*}}("{{/.*}}/objects/kernels.o")
// CHECK:     executor.launch
// NM:        T _mlir_ciface_add
