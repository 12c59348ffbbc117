// RUN: rm -rf %t && mkdir -p %t
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t})' | FileCheck %s
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t setup-function=setup})' \
// RUN:   | FileCheck %s --check-prefix=SETUP

// Which functions close their sessions. A session is one per address in the
// process, so a function leaves an address open when another function that
// holds it may be below it on the stack: a caller holding the address,
// directly or through functions in between, itself when recursive, anyone
// when the function's symbol escapes (func.constant).

// @main holds "local" and "127.0.0.1:9000" and closes both.
// CHECK-LABEL: func.func @main(
//  CHECK-NEXT:   %[[LOCAL:.*]] = executor.open("local")
//  CHECK-NEXT:   %[[REMOTE:.*]] = executor.open("127.0.0.1:9000")
//       CHECK:   executor.close %[[LOCAL]]
//  CHECK-NEXT:   executor.close %[[REMOTE]]
//  CHECK-NEXT:   return

// @helper is called by @main, which holds "local": it opens (the same
// session) and sends, but does not close.
// CHECK-LABEL: func.func @helper(
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S]]
//  CHECK-NEXT:   executor.launch %[[S]]("step"
//   CHECK-NOT:   executor.close
//       CHECK:   return

// @leaf is reached from @main, which holds both of its addresses, through
// @middle, which holds nothing: it closes neither.
// CHECK-LABEL: func.func @middle(
//   CHECK-NOT:   executor.
//       CHECK:   return
// CHECK-LABEL: func.func @leaf(
//  CHECK-NEXT:   executor.open("local")
//  CHECK-NEXT:   executor.open("127.0.0.1:9000")
//   CHECK-NOT:   executor.close
//       CHECK:   return

// @standalone is called only by @no_sessions, which holds nothing: it closes.
// CHECK-LABEL: func.func @standalone(
//       CHECK:   %[[S:.*]] = executor.open("127.0.0.1:9000")
//       CHECK:   executor.close %[[S]]
//  CHECK-NEXT:   return

// A recursive holder never closes.
// CHECK-LABEL: func.func @recursive(
//       CHECK:   executor.open("local")
//   CHECK-NOT:   executor.close
//       CHECK:   return

// A function whose symbol escapes never closes.
// CHECK-LABEL: func.func @escapes(
//       CHECK:   executor.open("local")
//   CHECK-NOT:   executor.close
//       CHECK:   return

// With setup-function=setup: @setup opens every address and sends every
// object; the others only open what they use; nothing closes.
// SETUP-LABEL: func.func @main(
//  SETUP-NEXT:   executor.open("local")
//  SETUP-NEXT:   executor.open("127.0.0.1:9000")
//  SETUP-NEXT:   call @setup
//   SETUP-NOT:   executor.send_binary
//   SETUP-NOT:   executor.close
//       SETUP: func.func @setup(
//  SETUP-NEXT:   %[[LOCAL:.*]] = executor.open("local")
//  SETUP-NEXT:   %[[REMOTE:.*]] = executor.open("127.0.0.1:9000")
//  SETUP-NEXT:   executor.send_binary %[[LOCAL]]("{{/.*}}/kernels.o")
//  SETUP-NEXT:   executor.send_binary %[[REMOTE]]("{{/.*}}/remote.o")
//  SETUP-NEXT:   return
//   SETUP-NOT:   executor.send_binary
//   SETUP-NOT:   executor.close

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @step(%a: memref<4xf32>) {
      return
    }
  }
  module @remote attributes {executor.target = {address = "127.0.0.1:9000"}} {
    func.func @far(%a: memref<4xf32>) {
      return
    }
  }
  func.func private @step(memref<4xf32>) attributes {executor.kernel = @kernels::@step}
  func.func private @far(memref<4xf32>) attributes {executor.kernel = @remote::@far}

  func.func @main(%a: memref<4xf32>) {
    call @setup() : () -> ()
    call @step(%a) : (memref<4xf32>) -> ()
    call @far(%a) : (memref<4xf32>) -> ()
    call @helper(%a) : (memref<4xf32>) -> ()
    call @middle(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @setup() {
    return
  }

  func.func @helper(%a: memref<4xf32>) {
    call @step(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @middle(%a: memref<4xf32>) {
    call @leaf(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @leaf(%a: memref<4xf32>) {
    call @step(%a) : (memref<4xf32>) -> ()
    call @far(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @no_sessions(%a: memref<4xf32>) {
    call @standalone(%a) : (memref<4xf32>) -> ()
    call @standalone(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @standalone(%a: memref<4xf32>) {
    call @far(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @recursive(%a: memref<4xf32>, %again: i1) {
    call @step(%a) : (memref<4xf32>) -> ()
    scf.if %again {
      %false = arith.constant false
      func.call @recursive(%a, %false) : (memref<4xf32>, i1) -> ()
    }
    return
  }

  func.func @escapes(%a: memref<4xf32>) {
    call @step(%a) : (memref<4xf32>) -> ()
    return
  }

  func.func @takes_address() -> ((memref<4xf32>) -> ()) {
    %f = func.constant @escapes : (memref<4xf32>) -> ()
    return %f : (memref<4xf32>) -> ()
  }
}
