// RUN: executor-opt %s -split-input-file --executor-optimize=reuse-sessions=true | FileCheck %s
// RUN: executor-opt %s -split-input-file --executor-optimize | FileCheck %s --check-prefix=DEFAULT

// executor-optimize{reuse-sessions=true}: an scf.for that opens, sends,
// launches and closes the same address in every iteration keeps one session
// for the whole loop. Off by default: kernels then see their object's global
// state carried across iterations. Where its precondition does not hold,
// nothing changes.

// A loop that runs: open and sends before it, close after it.
// CHECK-LABEL: func.func @session_per_iteration
// CHECK:         %[[S:.*]] = executor.open("127.0.0.1:9000")
// CHECK-NEXT:    executor.send_binary %[[S]]("kernels.o")
// CHECK-NEXT:    executor.send_binary %[[S]]("lib.so")
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      executor.launch %[[S]]("step", "kernels.o")
// CHECK-NEXT:      executor.call %[[S]]("ping")
// CHECK-NEXT:    }
// CHECK-NEXT:    executor.close %[[S]]
// The close in the loop keeps the session per iteration without the option.
// DEFAULT-LABEL: func.func @session_per_iteration
// DEFAULT:         scf.for
// DEFAULT-NEXT:      executor.open
// DEFAULT-NEXT:      executor.send_binary
// DEFAULT-NEXT:      executor.send_binary
// DEFAULT-NEXT:      executor.launch
// DEFAULT-NEXT:      executor.call
// DEFAULT-NEXT:      executor.close
// DEFAULT-NEXT:    }
func.func @session_per_iteration() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c1000 step %c1 {
    %s = executor.open("127.0.0.1:9000") : !executor.session
    executor.send_binary %s("kernels.o") : !executor.session
    executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session
    executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
    executor.call %s("ping")() : !executor.session, () -> ()
    executor.close %s : !executor.session
  }
  return
}

// -----

// A loop that may run zero times goes into scf.if lb < ub, which yields
// the loop's initial values when it does not run.
// CHECK-LABEL: func.func @may_not_run
// CHECK-SAME:    (%[[N:.*]]: index, %[[X:.*]]: memref<4xf32>, %[[INIT:.*]]: f32)
// CHECK:         %[[RUNS:.*]] = arith.cmpi slt, %[[C0:.*]], %[[N]] : index
// CHECK-NEXT:    %[[RESULT:.*]] = scf.if %[[RUNS]] -> (f32) {
// CHECK-NEXT:      %[[S:.*]] = executor.open("local")
// CHECK-NEXT:      executor.send_binary %[[S]]("kernels.o")
// CHECK-NEXT:      %[[LOOP:.*]] = scf.for %{{.*}} = %[[C0]] to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        executor.launch %[[S]]("scale", "kernels.o") (%[[X]])
// CHECK:           }
// CHECK-NEXT:      executor.close %[[S]]
// CHECK-NEXT:      scf.yield %[[LOOP]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[INIT]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[RESULT]] : f32
func.func @may_not_run(%n: index, %x: memref<4xf32>, %init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> f32 {
    %s = executor.open("local") : !executor.session
    executor.send_binary %s("kernels.o") : !executor.session
    executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
    executor.close %s : !executor.session
    %v = memref.load %x[%c0] : memref<4xf32>
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }
  return %sum : f32
}

// -----

// A loop that never runs, a launch still running at the close (the close
// waits for it in every iteration), a session given to a call: each loop
// keeps its session per iteration.
// CHECK-LABEL: func.func @keep_per_iteration
// CHECK:         scf.for
// CHECK-NEXT:      executor.open
// CHECK:         scf.for
// CHECK-NEXT:      executor.open
// CHECK-NEXT:      executor.launch_async
// CHECK-NEXT:      executor.close
// CHECK:         scf.for
// CHECK-NEXT:      executor.open
// CHECK-NEXT:      func.call @use
// CHECK-NEXT:      executor.close
func.func private @use(!executor.session)

func.func @keep_per_iteration() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c10 to %c0 step %c1 {
    %s = executor.open("local") : !executor.session
    executor.close %s : !executor.session
  }
  scf.for %i = %c0 to %c10 step %c1 {
    %s = executor.open("local") : !executor.session
    %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
    executor.close %s : !executor.session
  }
  scf.for %i = %c0 to %c10 step %c1 {
    %s = executor.open("local") : !executor.session
    func.call @use(%s) : (!executor.session) -> ()
    executor.close %s : !executor.session
  }
  return
}
