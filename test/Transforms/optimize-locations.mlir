// RUN: executor-opt %s --executor-optimize -mlir-print-debuginfo | FileCheck %s

// The launch that replaces a launch_async awaited at once keeps the
// launch_async's location: diagnostics and debug info still point at the
// line the user wrote.

// CHECK-LABEL: func.func @await_at_once
// CHECK-NEXT:    executor.launch %{{.*}}("warm_up", "kernels.o") () : !executor.session, () -> () loc(#[[LAUNCH:.*]])
// CHECK-NEXT:    return
// CHECK:       #[[LAUNCH]] = loc("launch_async.mlir":7:3)
func.func @await_at_once(%s: !executor.session) {
  %t = executor.launch_async %s("_mlir_ciface_warm_up", "kernels.o") : !executor.session -> !executor.token loc("launch_async.mlir":7:3)
  executor.await %t : !executor.token loc("await.mlir":8:3)
  return
}
