// RUN: executor-opt %s -split-input-file --allow-unregistered-dialect \
// RUN:   --pass-pipeline='builtin.module(dispatch-executor-targets)' | FileCheck %s

// dispatch-executor-targets on Catalyst's dispatch form, in generic form:
// executor-opt has no catalyst dialect, so its ops are read unregistered.
// Without --allow-unregistered-dialect they do not parse.
// RUN: not executor-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(dispatch-executor-targets)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNREGISTERED
// UNREGISTERED: error: operation being parsed with an unregistered dialect

// A function opens the module's address once at its start and sends its
// object once, then each launch_kernel becomes an executor.launch on that
// session, its results used where the launch's were. The module is erased.
// CHECK-LABEL: func.func @two_launches(
//  CHECK-SAME:     %[[A:.*]]: memref<4xf64>)
//  CHECK-NEXT:   %[[S:.*]] = executor.open("127.0.0.1:9000") : !executor.session
//  CHECK-NEXT:   executor.send_binary %[[S]]("/objects/kernels.o") : !executor.session
//  CHECK-NEXT:   executor.launch %[[S]]("warm_up", "/objects/kernels.o") () : !executor.session, () -> ()
//  CHECK-NEXT:   %[[R:.*]] = executor.launch %[[S]]("scale", "/objects/kernels.o") (%[[A]]) : !executor.session, (memref<4xf64>) -> memref<4xf64>
//  CHECK-NEXT:   return %[[R]] : memref<4xf64>
//   CHECK-NOT: module @kernels
//   CHECK-NOT: catalyst.launch_kernel
module {
  func.func @two_launches(%a: memref<4xf64>) -> memref<4xf64> {
    "catalyst.launch_kernel"() <{callee = @kernels::@warm_up}> : () -> ()
    %r = "catalyst.launch_kernel"(%a) <{callee = @kernels::@scale}> : (memref<4xf64>) -> memref<4xf64>
    return %r : memref<4xf64>
  }
  module @kernels attributes {catalyst.dispatch = {address = "127.0.0.1:9000"}, catalyst.object_file = "/objects/kernels.o"} {
    func.func public @warm_up() {
      return
    }
    func.func public @scale(%a: memref<4xf64>) -> memref<4xf64> {
      return %a : memref<4xf64>
    }
  }
}

// -----

// Each function opens and sends for itself; sessions are not closed (the
// runtime closes them at exit).
// CHECK-LABEL: func.func @first()
//  CHECK-NEXT:   %[[S1:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S1]]("/objects/k.o")
//  CHECK-NEXT:   executor.launch %[[S1]]("k", "/objects/k.o")
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func @second()
//  CHECK-NEXT:   %[[S2:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S2]]("/objects/k.o")
//  CHECK-NEXT:   executor.launch %[[S2]]("k", "/objects/k.o")
//  CHECK-NEXT:   return
module {
  func.func @first() {
    "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    return
  }
  func.func @second() {
    "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k() {
      return
    }
  }
}

// -----

// Two modules at one address share its session; each object is sent once,
// in the order of the first launch.
// CHECK-LABEL: func.func @shared_address()
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S]]("/objects/b.o")
//  CHECK-NEXT:   executor.send_binary %[[S]]("/objects/a.o")
//  CHECK-NEXT:   executor.launch %[[S]]("kb", "/objects/b.o")
//  CHECK-NEXT:   executor.launch %[[S]]("ka", "/objects/a.o")
//  CHECK-NEXT:   executor.launch %[[S]]("kb", "/objects/b.o")
//  CHECK-NEXT:   return
module {
  func.func @shared_address() {
    "catalyst.launch_kernel"() <{callee = @b::@kb}> : () -> ()
    "catalyst.launch_kernel"() <{callee = @a::@ka}> : () -> ()
    "catalyst.launch_kernel"() <{callee = @b::@kb}> : () -> ()
    return
  }
  module @a attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/a.o"} {
    func.func public @ka() {
      return
    }
  }
  module @b attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/b.o"} {
    func.func public @kb() {
      return
    }
  }
}

// -----

// A launch inside a region of the function uses the session opened at the
// function's start.
// CHECK-LABEL: func.func @in_a_region(
//  CHECK-SAME:     %[[COND:.*]]: i1
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S]]("/objects/k.o")
//  CHECK-NEXT:   scf.if %[[COND]] {
//  CHECK-NEXT:     executor.launch %[[S]]("k", "/objects/k.o")
module {
  func.func @in_a_region(%cond: i1) {
    scf.if %cond {
      "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    }
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k() {
      return
    }
  }
}

// -----

// catalyst.nonblocking: an executor.launch_async, awaited before each return
// of the function, in the order of the launches.
// CHECK-LABEL: func.func @nonblocking(
//  CHECK-SAME:     %[[COND:.*]]: i1)
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S]]("/objects/k.o")
//  CHECK-NEXT:   %[[T1:.*]] = executor.launch_async %[[S]]("serve", "/objects/k.o") : !executor.session -> !executor.token
//  CHECK-NEXT:   %[[T2:.*]] = executor.launch_async %[[S]]("serve", "/objects/k.o") : !executor.session -> !executor.token
//  CHECK-NEXT:   cf.cond_br %[[COND]], ^[[EARLY:.*]], ^[[LATE:.*]]
//  CHECK-NEXT: ^[[EARLY]]:
//  CHECK-NEXT:   executor.await %[[T1]] : !executor.token
//  CHECK-NEXT:   executor.await %[[T2]] : !executor.token
//  CHECK-NEXT:   return
//  CHECK-NEXT: ^[[LATE]]:
//  CHECK-NEXT:   executor.await %[[T1]] : !executor.token
//  CHECK-NEXT:   executor.await %[[T2]] : !executor.token
//  CHECK-NEXT:   return
module {
  func.func @nonblocking(%cond: i1) {
    "catalyst.launch_kernel"() <{callee = @m::@serve}> {catalyst.nonblocking} : () -> ()
    "catalyst.launch_kernel"() <{callee = @m::@serve}> {catalyst.nonblocking} : () -> ()
    cf.cond_br %cond, ^early, ^late
  ^early:
    return
  ^late:
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @serve() {
      return
    }
  }
}

// -----

// With a function marked catalyst.backline_bringup, only the bring-up
// functions send objects; the others expect them loaded.
// CHECK-LABEL: func.func @run()
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.launch %[[S]]("k", "/objects/k.o")
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func @bring_up()
//  CHECK-SAME:     attributes {catalyst.backline_bringup}
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S]]("/objects/k.o")
//  CHECK-NEXT:   executor.launch %[[S]]("setup", "/objects/k.o")
//  CHECK-NEXT:   return
module {
  func.func @run() {
    "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    return
  }
  func.func @bring_up() attributes {catalyst.backline_bringup} {
    "catalyst.launch_kernel"() <{callee = @m::@setup}> : () -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k() {
      return
    }
    func.func public @setup() {
      return
    }
  }
}

// -----

// A custom_call whose backend_config names an executor becomes an
// executor.call there: its call_target_name is the symbol,
// number_original_arg its num_input_args.
// CHECK-LABEL: func.func @named_executor(
//  CHECK-SAME:     %[[IN:.*]]: memref<8xi8>, %[[OUT:.*]]: memref<4xf32>)
//  CHECK-NEXT:   %[[S:.*]] = executor.open("10.0.0.2:9000")
//  CHECK-NEXT:   executor.call %[[S]]("fill") (%[[IN]], %[[OUT]]) {num_input_args = 1 : i32} : !executor.session, (memref<8xi8>, memref<4xf32>) -> ()
//  CHECK-NEXT:   return
module {
  func.func @named_executor(%in: memref<8xi8>, %out: memref<4xf32>) {
    "catalyst.custom_call"(%in, %out) <{call_target_name = "fill", number_original_arg = 1 : i32, backend_config = {dispatch = "10.0.0.2:9000"}}> : (memref<8xi8>, memref<4xf32>) -> ()
    return
  }
}

// -----

// An empty dispatch takes the address of the dispatch modules, and shares the
// session of the function's launches; the call's results replace the
// custom_call's.
// CHECK-LABEL: func.func @inherited(
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local")
//  CHECK-NEXT:   executor.send_binary %[[S]]("/objects/k.o")
//  CHECK-NEXT:   executor.launch %[[S]]("k", "/objects/k.o")
//  CHECK-NEXT:   %[[R:.*]] = executor.call %[[S]]("norm") () : !executor.session, () -> memref<2xf32>
//  CHECK-NEXT:   return %[[R]]
module {
  func.func @inherited() -> memref<2xf32> {
    "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    %r = "catalyst.custom_call"() <{call_target_name = "norm", backend_config = {dispatch = ""}}> : () -> memref<2xf32>
    return %r : memref<2xf32>
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k() {
      return
    }
  }
}

// -----

// Catalyst's other ops are left as they are: a launch_kernel of a module not
// marked catalyst.dispatch, a custom_call without a dispatch entry.
// CHECK-LABEL: func.func @not_dispatched(
//  CHECK-NEXT:   "catalyst.launch_kernel"() <{callee = @gpu_kernels::@k}>
//  CHECK-NEXT:   "catalyst.custom_call"() <{backend_config = {}, call_target_name = "lapack_dgesdd"}>
//  CHECK-NEXT:   return
//       CHECK: module @gpu_kernels
//   CHECK-NOT: executor.
module {
  func.func @not_dispatched() {
    "catalyst.launch_kernel"() <{callee = @gpu_kernels::@k}> : () -> ()
    "catalyst.custom_call"() <{call_target_name = "lapack_dgesdd", backend_config = {}}> : () -> ()
    return
  }
  module @gpu_kernels {
    func.func public @k() {
      return
    }
  }
}

// -----

// A dispatch module no function launches is erased all the same.
// CHECK-LABEL: module {
//  CHECK-NEXT:   func.func @nothing_launched()
//  CHECK-NEXT:     return
//  CHECK-NEXT:   }
//  CHECK-NEXT: }
module {
  func.func @nothing_launched() {
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k() {
      return
    }
  }
}
