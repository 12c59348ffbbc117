// REQUIRES: catalyst
// dispatch-executor-targets inside Catalyst's CLI, on Catalyst's dispatch form
// in its custom form (catalyst 0.15.0's dialect has launch_kernel and
// custom_call): the plugin's pass runs executor-opt's in a child process, and
// Catalyst reads the executor ops back. Errors come back at the ops. Catalyst's
// CLI does not split input files, so split-file makes one input per case.

// RUN: split-file %s %t
// RUN: for case in launches bringup libcalls; do \
// RUN:   %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t/$case.mlir \
// RUN:     --pass-pipeline='builtin.module(dispatch-executor-targets)' > %t/$case.out || exit 1; \
// RUN: done
// RUN: FileCheck %s --check-prefix=LAUNCHES < %t/launches.out
// RUN: FileCheck %s --check-prefix=BRINGUP < %t/bringup.out
// RUN: FileCheck %s --check-prefix=LIBCALLS < %t/libcalls.out

// The same as executor-opt gives on the generic form.
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin %t/launches.mlir --mlir-print-op-generic \
// RUN:   --pass-pipeline='builtin.module(strip-debuginfo)' \
// RUN:   | executor-opt --allow-unregistered-dialect --pass-pipeline='builtin.module(dispatch-executor-targets)' > %t/launches.reference
// RUN: diff --ignore-blank-lines %t/launches.reference %t/launches.out

// RUN: not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t/nonblocking-operand.mlir \
// RUN:   --pass-pipeline='builtin.module(dispatch-executor-targets)' 2>&1 | FileCheck %s --check-prefix=OPERAND
// RUN: not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t/nonblocking-nested.mlir \
// RUN:   --pass-pipeline='builtin.module(dispatch-executor-targets)' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %t/ambiguous.mlir \
// RUN:   --pass-pipeline='builtin.module(dispatch-executor-targets)' 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS

// A module without the form runs no child: a missing executor-opt goes unnoticed.
// RUN: env EXECUTOR_OPT=/nonexistent %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin \
// RUN:   %t/no-dispatch.mlir --pass-pipeline='builtin.module(dispatch-executor-targets)' | FileCheck %s --check-prefix=NONE
// RUN: env EXECUTOR_OPT=/nonexistent not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin \
// RUN:   %t/launches.mlir --pass-pipeline='builtin.module(dispatch-executor-targets)' 2>&1 | FileCheck %s --check-prefix=CHILD
// NONE: catalyst.launch_kernel @gpu::@k() : () -> ()
// CHILD: error: dispatch-executor-targets: EXECUTOR_OPT=/nonexistent is not an executable file

// LAUNCHES-LABEL: func.func public @main(
//  LAUNCHES-SAME:     %[[A:.*]]: memref<4xf64>)
//  LAUNCHES-NEXT:   %[[S:.*]] = executor.open("ADDR:PORT") : !executor.session
//  LAUNCHES-NEXT:   executor.send_binary %[[S]]("/objects/target.o") : !executor.session
//  LAUNCHES-NEXT:   executor.launch %[[S]]("noop", "/objects/target.o") () : !executor.session, () -> ()
//  LAUNCHES-NEXT:   %[[R:.*]] = executor.launch %[[S]]("compute", "/objects/target.o") (%[[A]]) : !executor.session, (memref<4xf64>) -> memref<4xf64>
//  LAUNCHES-NEXT:   return %[[R]]
//   LAUNCHES-NOT: catalyst.launch_kernel
//   LAUNCHES-NOT: module @target
//--- launches.mlir
module @jit {
  func.func public @main(%a: memref<4xf64>) -> memref<4xf64> {
    catalyst.launch_kernel @target::@noop() : () -> ()
    %r = catalyst.launch_kernel @target::@compute(%a) : (memref<4xf64>) -> memref<4xf64>
    return %r : memref<4xf64>
  }
  module @target attributes {catalyst.object_file = "/objects/target.o", catalyst.dispatch = {address = "ADDR:PORT"}} {
    func.func public @noop() {
      return
    }
    func.func public @compute(%a: memref<4xf64>) -> memref<4xf64> {
      return %a : memref<4xf64>
    }
  }
}

// BRINGUP-LABEL: func.func public @run()
//  BRINGUP-NEXT:   %[[S:.*]] = executor.open("127.0.0.1:9000")
//  BRINGUP-NEXT:   executor.launch %[[S]]("circuit", "/objects/circuit.o") ()
//  BRINGUP-NEXT:   return
// BRINGUP-LABEL: func.func @bring_up()
//  BRINGUP-NEXT:   %[[CTRL:.*]] = executor.open("127.0.0.1:9000")
//  BRINGUP-NEXT:   %[[COP:.*]] = executor.open("127.0.0.1:9001")
//  BRINGUP-NEXT:   executor.send_binary %[[CTRL]]("/objects/circuit.o")
//  BRINGUP-NEXT:   executor.send_binary %[[COP]]("/objects/coproc.o")
//  BRINGUP-NEXT:   executor.launch %[[CTRL]]("setup_transport", "/objects/circuit.o") ()
//  BRINGUP-NEXT:   %[[T:.*]] = executor.launch_async %[[COP]]("serve", "/objects/coproc.o") : !executor.session -> !executor.token
//  BRINGUP-NEXT:   executor.await %[[T]] : !executor.token
//  BRINGUP-NEXT:   return
//--- bringup.mlir
module @jit {
  func.func public @run() {
    catalyst.launch_kernel @circuit::@circuit() : () -> ()
    return
  }
  func.func @bring_up() attributes {catalyst.backline_bringup} {
    catalyst.launch_kernel @circuit::@setup_transport() : () -> ()
    catalyst.launch_kernel @coproc::@serve() {catalyst.nonblocking} : () -> ()
    return
  }
  module @circuit attributes {catalyst.object_file = "/objects/circuit.o", catalyst.dispatch = {address = "127.0.0.1:9000"}} {
    func.func public @circuit() {
      return
    }
    func.func public @setup_transport() {
      return
    }
  }
  module @coproc attributes {catalyst.object_file = "/objects/coproc.o", catalyst.dispatch = {address = "127.0.0.1:9001"}} {
    func.func public @serve() {
      return
    }
  }
}

// LIBCALLS-LABEL: func.func @named(
//  LIBCALLS-SAME:     %[[B:.*]]: memref<256xi8>)
//  LIBCALLS-NEXT:   %[[S1:.*]] = executor.open("10.0.0.2:9000")
//  LIBCALLS-NEXT:   executor.call %[[S1]]("foo") (%[[B]]) {num_input_args = 1 : i32} : !executor.session, (memref<256xi8>) -> ()
// LIBCALLS-LABEL: func.func @inherited()
//  LIBCALLS-NEXT:   %[[S2:.*]] = executor.open("ADDR:PORT")
//  LIBCALLS-NEXT:   executor.send_binary %[[S2]]("/objects/target.o")
//  LIBCALLS-NEXT:   executor.launch %[[S2]]("compute", "/objects/target.o") ()
//  LIBCALLS-NEXT:   executor.call %[[S2]]("foo") () : !executor.session, () -> ()
//   LIBCALLS-NOT: catalyst.custom_call
//--- libcalls.mlir
module @jit {
  func.func @named(%b: memref<256xi8>) {
    catalyst.custom_call fn("foo") (%b) {backend_config = {dispatch = "10.0.0.2:9000"}, number_original_arg = 1 : i32} : (memref<256xi8>) -> ()
    return
  }
  func.func @inherited() {
    catalyst.launch_kernel @target::@compute() : () -> ()
    catalyst.custom_call fn("foo") () {backend_config = {dispatch = ""}} : () -> ()
    return
  }
  module @target attributes {catalyst.object_file = "/objects/target.o", catalyst.dispatch = {address = "ADDR:PORT"}} {
    func.func public @compute() {
      return
    }
  }
}

// OPERAND: catalyst_module:3:5: error: a catalyst.nonblocking launch starts a () -> () kernel without waiting for it, so it has no operands or results; this one has 1 and 0
// OPERAND-NEXT: catalyst.launch_kernel @bad::@takes_arg(%a) {catalyst.nonblocking}
//--- nonblocking-operand.mlir
module @jit {
  func.func @f(%a: memref<4xf64>) {
    catalyst.launch_kernel @bad::@takes_arg(%a) {catalyst.nonblocking} : (memref<4xf64>) -> ()
    return
  }
  module @bad attributes {catalyst.object_file = "/objects/bad.o", catalyst.dispatch = {address = "127.0.0.1:9001"}} {
    func.func public @takes_arg(%a: memref<4xf64>) {
      return
    }
  }
}

// NESTED: catalyst_module:2:3: error: a catalyst.nonblocking launch is in the entry block of its function, so that its executor.await can be placed before every return
// NESTED: catalyst_module:4:7: note: this launch is not
//--- nonblocking-nested.mlir
module @jit {
  func.func @f(%cond: i1) {
    scf.if %cond {
      catalyst.launch_kernel @bad::@serve() {catalyst.nonblocking} : () -> ()
    }
    return
  }
  module @bad attributes {catalyst.object_file = "/objects/bad.o", catalyst.dispatch = {address = "127.0.0.1:9001"}} {
    func.func public @serve() {
      return
    }
  }
}

// AMBIGUOUS: catalyst_module:5:5: error: ambiguous executor: this custom_call's dispatch is empty, which means the program's only executor, but its modules marked catalyst.dispatch name 2 addresses (host:1, host:2); name one
//--- ambiguous.mlir
module @jit {
  func.func @f() {
    catalyst.launch_kernel @t1::@c1() : () -> ()
    catalyst.launch_kernel @t2::@c2() : () -> ()
    catalyst.custom_call fn("foo") () {backend_config = {dispatch = ""}} : () -> ()
    return
  }
  module @t1 attributes {catalyst.object_file = "/objects/t1.o", catalyst.dispatch = {address = "host:1"}} {
    func.func public @c1() {
      return
    }
  }
  module @t2 attributes {catalyst.object_file = "/objects/t2.o", catalyst.dispatch = {address = "host:2"}} {
    func.func public @c2() {
      return
    }
  }
}

//--- no-dispatch.mlir
module @jit {
  func.func @f() {
    catalyst.launch_kernel @gpu::@k() : () -> ()
    return
  }
  module @gpu {
    func.func public @k() {
      return
    }
  }
}
