// Loading the plugin twice, or one entry point without the other, behaves:
// no duplicate-registration abort, and without the dialect plugin mlir-opt
// reports the unknown dialect like any other.

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-dialect-plugin=%executor_plugin \
// RUN:   --load-pass-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s --check-prefix=TWICE
// RUN: mlir-opt --load-dialect-plugin=%executor_plugin %s | FileCheck %s --check-prefix=DIALECT-ONLY
// RUN: not mlir-opt --load-dialect-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s --check-prefix=NO-PASS
// RUN: not mlir-opt --load-pass-plugin=%executor_plugin %s 2>&1 | FileCheck %s --check-prefix=PASS-ONLY

// TWICE: llvm.call @__catalyst__executor__close
// DIALECT-ONLY: executor.close %{{.*}} : !executor.session
// NO-PASS: 'convert-executor-to-llvm' does not refer to a registered pass or pass pipeline
// PASS-ONLY: error: `!"executor"<"session">` type created with unregistered dialect
func.func @close_session(%s: !executor.session) {
  executor.close %s : !executor.session
  return
}
