// RUN: executor-opt %s -split-input-file --executor-optimize | FileCheck %s
// RUN: executor-opt %s -split-input-file --executor-optimize=entry-convention=catalyst-pyface | FileCheck %s --check-prefix=PYFACE

// executor-optimize's default rules (td/ExecutorPasses.td), each where it
// fires and where its precondition keeps it from firing.

//===----------------------------------------------------------------------===//
// 1. Reuse an open: a dominating open of the same address, still open
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reuse_open
// CHECK:         %[[S:.*]] = executor.open("local")
// CHECK-NOT:     executor.open
// CHECK:         executor.launch %[[S]]("step", "kernels.o")
// CHECK-NEXT:    executor.close %[[S]]
func.func @reuse_open() {
  %a = executor.open("local") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  // `local:` is `local`.
  %b = executor.open("local:") : !executor.session
  executor.launch %b("step", "kernels.o")() : !executor.session, () -> ()
  executor.close %a : !executor.session
  return
}

// -----

// A close between, another address, an open that does not dominate, a
// session given to unknown code: each open stays.
// CHECK-LABEL: func.func @keep_open
// CHECK-COUNT-2: executor.open("local")
// CHECK:         executor.open("127.0.0.1:9000")
// CHECK:         scf.if
// CHECK-NEXT:      executor.open("127.0.0.1:9001")
// CHECK:         executor.open("127.0.0.1:9001")
// CHECK:         call @keep
// CHECK-NEXT:    executor.open("127.0.0.1:9000")
func.func private @keep(!executor.session)

func.func @keep_open(%c: i1) {
  %a = executor.open("local") : !executor.session
  executor.close %a : !executor.session
  %b = executor.open("local") : !executor.session
  %c9000 = executor.open("127.0.0.1:9000") : !executor.session
  scf.if %c {
    %d = executor.open("127.0.0.1:9001") : !executor.session
  }
  %e = executor.open("127.0.0.1:9001") : !executor.session
  func.call @keep(%c9000) : (!executor.session) -> ()
  %f = executor.open("127.0.0.1:9000") : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// 2. Drop a send of a path sent on the session on every path
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @drop_redundant_sends
// CHECK:         executor.send_binary %{{.*}}("kernels.o")
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      executor.send_binary %{{.*}}("lib.so") {format = 1 : i32} : !executor.session
// CHECK-NEXT:    } else {
// CHECK-NEXT:      executor.send_binary %{{.*}}("lib.so") {format = 1 : i32} : !executor.session
// CHECK-NEXT:    }
// CHECK-NEXT:    executor.launch
// CHECK-NEXT:    executor.close
func.func @drop_redundant_sends(%c: i1) {
  %a = executor.open("local") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  scf.if %c {
    executor.send_binary %a("lib.so") {format = 1 : i32} : !executor.session
  } else {
    executor.send_binary %a("lib.so") {format = 1 : i32} : !executor.session
  }
  %b = executor.open("local") : !executor.session
  executor.send_binary %b("lib.so") {format = 1 : i32} : !executor.session
  executor.launch %b("step", "kernels.o")() : !executor.session, () -> ()
  executor.close %a : !executor.session
  return
}

// -----

// A kernel object sent under two sessions, on one branch only, or after
// the session was closed and opened again: every send stays.
// CHECK-LABEL: func.func @keep_sends
// CHECK-COUNT-2: executor.send_binary %{{.*}}("kernels.o")
// CHECK:         scf.if
// CHECK-NEXT:      executor.send_binary %{{.*}}("lib.so")
// CHECK:         executor.send_binary %{{.*}}("lib.so")
// CHECK:         executor.close
// CHECK:         executor.send_binary %{{.*}}("kernels.o")
func.func @keep_sends(%c: i1) {
  %a = executor.open("127.0.0.1:9000") : !executor.session
  %b = executor.open("127.0.0.1:9001") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  executor.send_binary %b("kernels.o") : !executor.session
  scf.if %c {
    executor.send_binary %a("lib.so") {format = 1 : i32} : !executor.session
  }
  executor.send_binary %a("lib.so") {format = 1 : i32} : !executor.session
  executor.close %a : !executor.session
  %again = executor.open("127.0.0.1:9000") : !executor.session
  executor.send_binary %again("kernels.o") : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// 3. Hoist a loop-invariant open or send out of a loop that runs at least
//    once and does not close its session
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @hoist_from_for
// CHECK:         %[[OUTER:.*]] = executor.open("local")
// CHECK:         %[[INNER:.*]] = executor.open("127.0.0.1:9000")
// CHECK-NEXT:    executor.send_binary %[[OUTER]]("kernels.o")
// CHECK-NEXT:    executor.send_binary %[[INNER]]("kernels.o")
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      executor.launch %[[INNER]]
// CHECK-NEXT:    }
func.func @hoist_from_for(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %s = executor.open("local") : !executor.session
  scf.for %i = %c0 to %c10 step %c1 {
    %zero = arith.constant 0.0 : f32
    %t = executor.open("127.0.0.1:9000") : !executor.session
    executor.send_binary %s("kernels.o") : !executor.session
    executor.send_binary %t("kernels.o") : !executor.session
    executor.launch %t("step", "kernels.o")() : !executor.session, () -> ()
  }
  executor.close %s : !executor.session
  return
}

// -----

// From 0 to -1: no iteration when compared as signed numbers (the body is
// never analysed), 2^64 - 1 as unsigned ones (`unsigned`).
// CHECK-LABEL: func.func @signed_and_unsigned_bounds
// CHECK:         scf.for %{{.*}} = %[[ZERO:.*]] to %[[MINUS_ONE:.*]] step
// CHECK-NEXT:      executor.open("local:signed")
// CHECK:         executor.open("local:unsigned")
// CHECK-NEXT:    scf.for unsigned
// CHECK-NEXT:    }
func.func @signed_and_unsigned_bounds() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %minus_one = arith.constant -1 : index
  scf.for %i = %c0 to %minus_one step %c1 {
    %s = executor.open("local:signed") : !executor.session
  }
  scf.for unsigned %i = %c0 to %minus_one step %c1 {
    %s = executor.open("local:unsigned") : !executor.session
  }
  return
}

// -----

// Out of both loops, one round per loop.
// CHECK-LABEL: func.func @hoist_from_nested_loops
// CHECK:         executor.open("local")
// CHECK-NEXT:    executor.send_binary
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        executor.launch
func.func @hoist_from_nested_loops() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %s = executor.open("local") : !executor.session
      executor.send_binary %s("kernels.o") : !executor.session
      executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
    }
  }
  return
}

// -----

// The `before` region of scf.while runs at least once.
// CHECK-LABEL: func.func @hoist_from_while
// CHECK:         %[[S:.*]] = executor.open("local")
// CHECK-NEXT:    executor.send_binary %[[S]]
// CHECK-NEXT:    scf.while
// CHECK-NEXT:      executor.launch %[[S]]
func.func @hoist_from_while(%c: i1) {
  scf.while : () -> () {
    %s = executor.open("local") : !executor.session
    executor.send_binary %s("kernels.o") : !executor.session
    executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
    scf.condition(%c)
  } do {
    scf.yield
  }
  return
}

// -----

// A loop that may run zero times would contact no executor; a loop that
// closes the session would need it again; a send after a launch would load
// the object before that launch: nothing moves.
// CHECK-LABEL: func.func @keep_in_loops
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N:.*]] step
// CHECK-NEXT:      executor.open("local")
// CHECK-NEXT:      executor.send_binary
// CHECK:         scf.for
// CHECK-NEXT:      executor.open("127.0.0.1:9000")
// CHECK-NEXT:      executor.send_binary
// CHECK-NEXT:      executor.launch
// CHECK-NEXT:      executor.close
// CHECK:         scf.for
// CHECK-NEXT:      executor.launch
// CHECK-NEXT:      executor.send_binary
func.func @keep_in_loops(%n: index, %s: !executor.session) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = executor.open("local") : !executor.session
    executor.send_binary %t("kernels.o") : !executor.session
  }
  scf.for %i = %c0 to %c10 step %c1 {
    %t = executor.open("127.0.0.1:9000") : !executor.session
    executor.send_binary %t("kernels.o") : !executor.session
    executor.launch %t("step", "kernels.o")() : !executor.session, () -> ()
    executor.close %t : !executor.session
  }
  %u = executor.open("127.0.0.1:9001") : !executor.session
  scf.for %i = %c0 to %c10 step %c1 {
    executor.launch %u("step", "kernels.o")() : !executor.session, () -> ()
    executor.send_binary %u("kernels.o") : !executor.session
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// 4. A launch_async awaited at once becomes a launch (mlir-ciface only)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @await_at_once
// CHECK-NEXT:    executor.launch %{{.*}}("warm_up", "kernels.o") () : !executor.session, () -> ()
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    return
// PYFACE-LABEL: func.func @await_at_once
// PYFACE-NEXT:    executor.launch_async %{{.*}}("_mlir_ciface_warm_up", "kernels.o")
// PYFACE-NEXT:    arith.constant
// PYFACE-NEXT:    executor.await
func.func @await_at_once(%s: !executor.session) -> i32 {
  %t = executor.launch_async %s("_mlir_ciface_warm_up", "kernels.o") : !executor.session -> !executor.token
  %c = arith.constant 7 : i32
  executor.await %t : !executor.token
  return %c : i32
}

// -----

// Several launches rewritten in one function, of kernels in turn: each keeps
// its own kernel and object.
// CHECK-LABEL: func.func @await_at_once_several
// CHECK-NEXT:    executor.launch %{{.*}}("first", "a.o") () : !executor.session, () -> ()
// CHECK-NEXT:    executor.launch %{{.*}}("second", "a.o") () : !executor.session, () -> ()
// CHECK-NEXT:    executor.launch %{{.*}}("first", "b.o") () : !executor.session, () -> ()
// CHECK-NEXT:    return
func.func @await_at_once_several(%s: !executor.session) {
  %t0 = executor.launch_async %s("_mlir_ciface_first", "a.o") : !executor.session -> !executor.token
  executor.await %t0 : !executor.token
  %t1 = executor.launch_async %s("_mlir_ciface_second", "a.o") : !executor.session -> !executor.token
  executor.await %t1 : !executor.token
  %t2 = executor.launch_async %s("_mlir_ciface_first", "b.o") : !executor.session -> !executor.token
  executor.await %t2 : !executor.token
  return
}

// -----

// A launch between, a kernel name launch would prefix differently, a token
// used twice: each launch_async stays.
// CHECK-LABEL: func.func @keep_async
// CHECK-NEXT:    executor.launch_async %{{.*}}("_mlir_ciface_first"
// CHECK-NEXT:    executor.launch %{{.*}}("step"
// CHECK-NEXT:    executor.await
// CHECK-NEXT:    executor.launch_async %{{.*}}("warm_up"
// CHECK-NEXT:    executor.await
// CHECK-NEXT:    executor.launch_async %{{.*}}("_mlir_ciface_returned"
// CHECK-NEXT:    executor.await
// CHECK-NEXT:    return
func.func @keep_async(%s: !executor.session) -> !executor.token {
  %a = executor.launch_async %s("_mlir_ciface_first", "kernels.o") : !executor.session -> !executor.token
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  executor.await %a : !executor.token
  %b = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  executor.await %b : !executor.token
  %c = executor.launch_async %s("_mlir_ciface_returned", "kernels.o") : !executor.session -> !executor.token
  executor.await %c : !executor.token
  return %c : !executor.token
}
