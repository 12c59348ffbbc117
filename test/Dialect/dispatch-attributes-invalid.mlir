// RUN: executor-opt %s -split-input-file -verify-diagnostics

// One case per rule the executor dialect checks on the attributes of the
// dispatch form (ExecutorDialect::verifyOperationAttribute).

//===----------------------------------------------------------------------===//
// executor.target
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'executor.target' marks a builtin.module of kernels, not 'func.func'}}
func.func @not_a_module() attributes {executor.target = {address = "local"}} {
  return
}

// -----

module {
  // expected-error @+1 {{a target module needs a name (`module @name attributes {executor.target = ...}`): kernel declarations refer to it and its object file is named after it}}
  module attributes {executor.target = {address = "local"}} {
  }
}

// -----

module {
  func.func @f() {
    scf.execute_region {
      // expected-error @+1 {{a target module is nested directly in a builtin.module, not in 'scf.execute_region'}}
      builtin.module @kernels attributes {executor.target = {address = "local"}} {
      }
      scf.yield
    }
    return
  }
}

// -----

module {
  module @outer attributes {executor.target = {address = "local"}} {
    // expected-error @+1 {{a target module cannot be nested in another target module}}
    module @inner attributes {executor.target = {address = "local"}} {
    }
  }
}

// -----

module {
  // expected-error @+1 {{'executor.target' expects a dictionary {address = "..."}, got "local"}}
  module @kernels attributes {executor.target = "local"} {
  }
}

// -----

module {
  // expected-error @+1 {{'executor.target' needs a non-empty string 'address', the executor's address (as executor.open takes it), got {}}}
  module @kernels attributes {executor.target = {}} {
  }
}

// -----

module {
  // expected-error @+1 {{'executor.target' needs a non-empty string 'address', the executor's address (as executor.open takes it), got {address = ""}}}
  module @kernels attributes {executor.target = {address = ""}} {
  }
}

// -----

module {
  // expected-error @+1 {{'executor.target' needs a non-empty string 'address', the executor's address (as executor.open takes it), got {address = 9000 : i64}}}
  module @kernels attributes {executor.target = {address = 9000}} {
  }
}

// -----

module {
  // expected-error @+1 {{'executor.target' has no key 'port' (its keys are 'address', 'triple', 'cpu' and 'features')}}
  module @kernels attributes {executor.target = {address = "local", port = 9000}} {
  }
}

// -----

module {
  // expected-error @+1 {{'executor.target' takes a string 'triple' (LLVM's spelling), got 64 : i64}}
  module @kernels attributes {executor.target = {address = "local", triple = 64}} {
  }
}

// -----

//===----------------------------------------------------------------------===//
// executor.kernel
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'executor.kernel' marks a func.func declaration, not 'builtin.module'}}
module @m attributes {executor.kernel = @kernels::@k} {
}

// -----

// expected-error @+1 {{'executor.kernel' marks a declaration, but this function has a body: the kernel's code lives in its target module}}
func.func @k() attributes {executor.kernel = @kernels::@k} {
  return
}

// -----

// expected-error @+1 {{'executor.kernel' expects a reference @module::@kernel to a kernel of a target module, got @k}}
func.func private @k() attributes {executor.kernel = @k}

// -----

// expected-error @+1 {{'executor.kernel' expects a reference @module::@kernel to a kernel of a target module, got @a::@b::@k}}
func.func private @k() attributes {executor.kernel = @a::@b::@k}

// -----

// expected-error @+1 {{'executor.kernel' expects a reference @module::@kernel to a kernel of a target module, got "kernels::k"}}
func.func private @k() attributes {executor.kernel = "kernels::k"}

// -----

//===----------------------------------------------------------------------===//
// executor.async
//===----------------------------------------------------------------------===//

func.func private @k()
func.func @f() {
  // expected-error @+1 {{'executor.async' marks a func.call to a kernel, not 'func.return'}}
  return {executor.async}
}

// -----

func.func private @k()
func.func @f() {
  // expected-error @+1 {{'executor.async' is a unit attribute (no value), got true}}
  call @k() {executor.async = true} : () -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// Other names
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown attribute 'executor.targte' of the executor dialect (it has 'executor.target', 'executor.kernel' and 'executor.async')}}
module @kernels attributes {executor.targte = {address = "local"}} {
}
