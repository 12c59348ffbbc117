// RUN: executor-opt %s -split-input-file | FileCheck %s
// RUN: executor-opt %s -split-input-file --mlir-print-op-generic | executor-opt -split-input-file | FileCheck %s

// The op forms Catalyst's own executor tests write (attributes on the next
// line, absolute paths, several launches in flight), each parsed, verified
// and printed back in the reference syntax, also after a generic round trip.

// CHECK-LABEL: func.func @launch_with_space_before_operands(
//       CHECK:   executor.launch %{{.*}}("qnode_0", "/tmp/qnode.o") (%{{.*}}) : !executor.session, (memref<f64>) -> memref<f64>
func.func @launch_with_space_before_operands(%arg0: memref<f64>) -> memref<f64> {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  %0 = executor.launch %s("qnode_0", "/tmp/qnode.o") (%arg0) : !executor.session, (memref<f64>) -> memref<f64>
  return %0 : memref<f64>
}

// -----

// CHECK-LABEL: func.func @call_with_attributes_on_the_next_line(
//       CHECK:   executor.call %{{.*}}("foo") (%{{.*}}, %{{.*}}) {num_input_args = 1 : i32} : !executor.session, (memref<4xf64>, memref<4xf64>) -> ()
func.func @call_with_attributes_on_the_next_line(%arg0: memref<4xf64>, %arg1: memref<4xf64>) {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.call %s("foo") (%arg0, %arg1)
      {num_input_args = 1 : i32} : !executor.session, (memref<4xf64>, memref<4xf64>) -> ()
  return
}

// -----

// Two launches in flight, awaited in order.
// CHECK-LABEL: func.func @two_async_launches(
//       CHECK:   %[[T0:.*]] = executor.launch_async %[[S:.*]]("serve_0", "/tmp/coproc.o") : !executor.session -> !executor.token
//       CHECK:   %[[T1:.*]] = executor.launch_async %[[S]]("serve_1", "/tmp/coproc.o") : !executor.session -> !executor.token
//       CHECK:   executor.await %[[T0]] : !executor.token
//       CHECK:   executor.await %[[T1]] : !executor.token
func.func @two_async_launches() {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  %t0 = executor.launch_async %s("serve_0", "/tmp/coproc.o") : !executor.session -> !executor.token
  %t1 = executor.launch_async %s("serve_1", "/tmp/coproc.o") : !executor.session -> !executor.token
  executor.await %t0 : !executor.token
  executor.await %t1 : !executor.token
  return
}

// -----

// A whole session: open, send, launch, close.
// CHECK-LABEL: func.func @session_lifecycle(
//       CHECK:   %[[S:.*]] = executor.open("127.0.0.1:9000") : !executor.session
//  CHECK-NEXT:   executor.send_binary %[[S]]("/tmp/qnode_0.o") : !executor.session
//  CHECK-NEXT:   %[[R:.*]] = executor.launch %[[S]]("qnode_0", "/tmp/qnode_0.o") (%{{.*}}) : !executor.session, (memref<f64>) -> memref<f64>
//  CHECK-NEXT:   executor.close %[[S]] : !executor.session
//  CHECK-NEXT:   return %[[R]] : memref<f64>
func.func @session_lifecycle(%arg0: memref<f64>) -> memref<f64> {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.send_binary %s("/tmp/qnode_0.o") : !executor.session
  %0 = executor.launch %s("qnode_0", "/tmp/qnode_0.o") (%arg0) : !executor.session, (memref<f64>) -> memref<f64>
  executor.close %s : !executor.session
  return %0 : memref<f64>
}
