// RUN: rm -rf %t && mkdir -p %t
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t})' | FileCheck %s

// A call marked executor.async becomes executor.launch_async where the call
// was, and its executor.await goes before every return of the function, in
// the order of the launches, ahead of the close.

// CHECK-LABEL: func.func @two_returns(
//  CHECK-SAME:     %[[COND:.*]]: i1, %[[A:.*]]: memref<4xf32>)
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S]]
//  CHECK-NEXT:   %[[FIRST:.*]] = executor.launch_async %[[S]]("warm_up", "{{/.*}}/kernels.o") : !executor.session -> !executor.token
//  CHECK-NEXT:   executor.launch %[[S]]("touch", "{{/.*}}/kernels.o") (%[[A]])
//  CHECK-NEXT:   %[[SECOND:.*]] = executor.launch_async %[[S]]("warm_up", "{{/.*}}/kernels.o") : !executor.session -> !executor.token
//  CHECK-NEXT:   cf.cond_br %[[COND]], ^[[EARLY:.*]], ^[[LATE:.*]]
//  CHECK-NEXT: ^[[EARLY]]:
//  CHECK-NEXT:   executor.await %[[FIRST]] : !executor.token
//  CHECK-NEXT:   executor.await %[[SECOND]] : !executor.token
//  CHECK-NEXT:   executor.close %[[S]] : !executor.session
//  CHECK-NEXT:   return
//  CHECK-NEXT: ^[[LATE]]:
//  CHECK-NEXT:   executor.launch %[[S]]("touch", "{{/.*}}/kernels.o") (%[[A]])
//  CHECK-NEXT:   executor.await %[[FIRST]] : !executor.token
//  CHECK-NEXT:   executor.await %[[SECOND]] : !executor.token
//  CHECK-NEXT:   executor.close %[[S]] : !executor.session
//  CHECK-NEXT:   return

// The await waits until the function returns: the host's work between the
// launch and the return overlaps the kernel.
// CHECK-LABEL: func.func @overlap(
//       CHECK:   %[[T:.*]] = executor.launch_async
//  CHECK-NEXT:   %[[X:.*]] = arith.addf
//  CHECK-NEXT:   executor.await %[[T]]
//  CHECK-NEXT:   executor.close
//  CHECK-NEXT:   return %[[X]]

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @warm_up() {
      return
    }
    func.func @touch(%a: memref<4xf32>) {
      return
    }
  }
  func.func private @warm_up() attributes {executor.kernel = @kernels::@warm_up}
  func.func private @touch(memref<4xf32>) attributes {executor.kernel = @kernels::@touch}

  func.func @two_returns(%cond: i1, %a: memref<4xf32>) {
    call @warm_up() {executor.async} : () -> ()
    call @touch(%a) : (memref<4xf32>) -> ()
    call @warm_up() {executor.async} : () -> ()
    cf.cond_br %cond, ^early, ^late
  ^early:
    return
  ^late:
    call @touch(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @overlap(%x: f32) -> f32 {
    call @warm_up() {executor.async} : () -> ()
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
}
