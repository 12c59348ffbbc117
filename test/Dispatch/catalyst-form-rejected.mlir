// RUN: rm -rf %t && mkdir -p %t
// RUN: executor-opt %s -split-input-file -verify-diagnostics --allow-unregistered-dialect \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects})'
// RUN: not ls %t/objects

// executor-dispatch does not take Catalyst's dispatch form: each of its ops is
// an error naming the pass that does, and nothing is compiled or changed.

module {
  func.func @f() {
    // expected-error @+1 {{executor-dispatch does not take Catalyst's dispatch form: this catalyst.launch_kernel of a kernel of a module marked catalyst.dispatch is for dispatch-executor-targets}}
    "catalyst.launch_kernel"() <{callee = @m::@k}> : () -> ()
    return
  }
  // expected-error @+1 {{executor-dispatch does not take Catalyst's dispatch form: this module marked catalyst.dispatch is for dispatch-executor-targets}}
  module @m attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "/objects/k.o"} {
    func.func public @k() {
      return
    }
  }
}

// -----

module {
  func.func @f() {
    // expected-error @+1 {{executor-dispatch does not take Catalyst's dispatch form: this catalyst.custom_call with a dispatch entry in its backend_config is for dispatch-executor-targets}}
    "catalyst.custom_call"() <{call_target_name = "foo", backend_config = {dispatch = "local"}}> : () -> ()
    return
  }
}

// -----

// Beside this project's own form too: the whole module is left unchanged.
module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k() {
      return
    }
  }
  func.func private @k() attributes {executor.kernel = @kernels::@k}
  func.func @f() {
    call @k() : () -> ()
    // expected-error @+1 {{executor-dispatch does not take Catalyst's dispatch form}}
    "catalyst.custom_call"() <{call_target_name = "foo", backend_config = {dispatch = ""}}> : () -> ()
    return
  }
}

// -----

// A launch_kernel of a module not marked catalyst.dispatch is not this form.
module {
  func.func @f() {
    "catalyst.launch_kernel"() <{callee = @other::@k}> : () -> ()
    return
  }
  module @other {
    func.func public @k() {
      return
    }
  }
}
