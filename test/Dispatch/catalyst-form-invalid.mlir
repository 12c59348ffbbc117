// RUN: executor-opt %s -split-input-file -verify-diagnostics --allow-unregistered-dialect \
// RUN:   --pass-pipeline='builtin.module(dispatch-executor-targets)'

// One case per rule dispatch-executor-targets checks before it changes
// anything, on Catalyst's dispatch form in generic form.

module {
  // expected-error @+1 {{a module marked catalyst.dispatch needs catalyst.object_file = "<path>", the object its kernels were compiled to}}
  module @m attributes {catalyst.dispatch = {address = "local"}} {
  }
}

// -----

module {
  // expected-error @+1 {{catalyst.dispatch needs {address = "..."}, a non-empty address}}
  module @m attributes {catalyst.dispatch = {address = ""}, catalyst.object_file = "/objects/k.o"} {
  }
}

// -----

module {
  // expected-error @+1 {{a module marked catalyst.dispatch needs a name}}
  module attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
  }
}

// -----

module {
  module @outer {
    // expected-error @+1 {{dispatch-executor-targets takes the modules marked catalyst.dispatch directly inside the module it runs on; this one is nested deeper}}
    module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    }
  }
}

// -----

module {
  func.func @f() {
    // expected-error @+1 {{no kernel @m::@missing: the module has no public func.func of that name}}
    "catalyst.launch_kernel"() <{callee = @m::@missing}> : () -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
  }
}

// -----

module {
  func.func @f() {
    // expected-error @+1 {{no kernel @m::@k: the module has no public func.func of that name}}
    "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func private @k() {
      return
    }
  }
}

// -----

module {
  func.func @f() {
    // expected-error @+1 {{a launch of a kernel of @m, which is marked catalyst.dispatch, names it as @m::@kernel}}
    "catalyst.launch_kernel"() <{callee = @m}> : () -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
  }
}

// -----

module {
  func.func @f(%a: tensor<4xf64>) {
    // expected-error @+1 {{the launch of @m::@k has an operand of type tensor<4xf64>: executor.launch passes memrefs only}}
    "catalyst.launch_kernel"(%a) <{callee = @m::@k}> : (tensor<4xf64>) -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k(%a: tensor<4xf64>) {
      return
    }
  }
}

// -----

module {
  func.func @f(%a: memref<4xf64>) {
    // expected-error @+1 {{a catalyst.nonblocking launch starts a () -> () kernel without waiting for it, so it has no operands or results; this one has 1 and 0}}
    "catalyst.launch_kernel"(%a) <{callee = @m::@k}> {catalyst.nonblocking} : (memref<4xf64>) -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k(%a: memref<4xf64>) {
      return
    }
  }
}

// -----

// The error is at the function, whose returns are where the await would go.
module {
  // expected-error @+1 {{a catalyst.nonblocking launch is in the entry block of its function, so that its executor.await can be placed before every return}}
  func.func @f(%cond: i1) {
    scf.if %cond {
      // expected-note @+1 {{this launch is not}}
      "catalyst.launch_kernel"() <{callee = @m::@serve}> {catalyst.nonblocking} : () -> ()
    }
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @serve() {
      return
    }
  }
}

// -----

module {
  llvm.func @f() {
    // expected-error @+1 {{'catalyst.launch_kernel' runs on an executor through a session opened at the start of its func.func; this one is inside 'llvm.func', which is isolated from above}}
    "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    llvm.return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k() {
      return
    }
  }
}

// -----

module {
  func.func @f() {
    "catalyst.launch_kernel"() <{callee = @a::@k}> : () -> ()
    "catalyst.launch_kernel"() <{callee = @b::@k}> : () -> ()
    // expected-error @+1 {{ambiguous executor: this custom_call's dispatch is empty, which means the program's only executor, but its modules marked catalyst.dispatch name 2 addresses (host:1, host:2); name one}}
    "catalyst.custom_call"() <{call_target_name = "foo", backend_config = {dispatch = ""}}> : () -> ()
    return
  }
  module @a attributes {catalyst.dispatch = {address = "host:1"}, catalyst.object_file = "/objects/a.o"} {
    func.func public @k() {
      return
    }
  }
  module @b attributes {catalyst.dispatch = {address = "host:2"}, catalyst.object_file = "/objects/b.o"} {
    func.func public @k() {
      return
    }
  }
}

// -----

module {
  func.func @f() {
    // expected-error @+1 {{this custom_call names no executor: its dispatch is empty, which means the address of the module's only module marked catalyst.dispatch, and there is none}}
    "catalyst.custom_call"() <{call_target_name = "foo", backend_config = {dispatch = ""}}> : () -> ()
    return
  }
}

// -----

module {
  func.func @f() {
    // expected-error @+1 {{the dispatch entry of a custom_call's backend_config is an executor's address, a string; this one is 1 : i64}}
    "catalyst.custom_call"() <{call_target_name = "foo", backend_config = {dispatch = 1}}> : () -> ()
    return
  }
}

// -----

module {
  func.func @f() {
    // expected-error @+1 {{a custom_call names the symbol it calls in a non-empty 'call_target_name'}}
    "catalyst.custom_call"() <{call_target_name = "", backend_config = {dispatch = "local"}}> : () -> ()
    return
  }
}

// -----

// The executor.call it would become does not verify: the verifier's error,
// then the pass's.
module {
  func.func @f(%a: tensor<4xf32>) {
    // expected-error @+2 {{'executor.call' op mixes tensors and memrefs}}
    // expected-error @+1 {{this custom_call cannot become an executor.call (the error above says why)}}
    "catalyst.custom_call"(%a) <{call_target_name = "foo", backend_config = {dispatch = "local"}}> : (tensor<4xf32>) -> memref<4xf32>
    return
  }
}

// -----

module {
  func.func @f(%a: memref<4xf32>) {
    // expected-error @+1 {{a custom_call's 'number_original_arg' is an i32; this one is "one"}}
    "catalyst.custom_call"(%a) <{call_target_name = "foo", number_original_arg = "one", backend_config = {dispatch = "local"}}> : (memref<4xf32>) -> ()
    return
  }
}

// -----

// This project's own form is executor-dispatch's.
module {
  // expected-error @+1 {{dispatch-executor-targets takes Catalyst's dispatch form; a module marked executor.target is this project's, which executor-dispatch takes}}
  module @kernels attributes {executor.target = {address = "local"}} {
  }
}

// -----

// Every broken rule is reported, and nothing changes.
module {
  func.func @f(%a: tensor<4xf64>) {
    // expected-error @+1 {{no kernel @m::@missing}}
    "catalyst.launch_kernel"() <{callee = @m::@missing}> : () -> ()
    // expected-error @+1 {{executor.launch passes memrefs only}}
    "catalyst.launch_kernel"(%a) <{callee = @m::@k}> : (tensor<4xf64>) -> ()
    return
  }
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k(%a: tensor<4xf64>) {
      return
    }
  }
}
