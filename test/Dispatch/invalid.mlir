// RUN: rm -rf %t && mkdir -p %t
// RUN: executor-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects})'
// RUN: not ls %t/objects

// One case per rule executor-dispatch checks before it changes anything
// (every case fails before a module is compiled: no object is written).

module {
  module @kernels attributes {executor.target = {address = "local"}} {
  }
  func.func private @k(memref<4xf32>) attributes {executor.kernel = @nowhere::@k}
  func.func @f(%a: memref<4xf32>) {
    // expected-error @+1 {{no kernel @nowhere::@k for @k: this module has no target module @nowhere (a module marked executor.target)}}
    call @k(%a) : (memref<4xf32>) -> ()
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
  }
  func.func private @k(memref<4xf32>) attributes {executor.kernel = @kernels::@k}
  func.func @f(%a: memref<4xf32>) {
    // expected-error @+1 {{no kernel @kernels::@k for @k: the target module has no symbol @k}}
    call @k(%a) : (memref<4xf32>) -> ()
    // expected-error @+1 {{no kernel @kernels::@k for @k: the target module has no symbol @k}}
    call @k(%a) : (memref<4xf32>) -> ()
    return
  }
}

// -----

// An uncalled declaration with no kernel is an error at the declaration.
module {
  module @kernels attributes {executor.target = {address = "local"}} {
  }
  // expected-error @+1 {{no kernel @kernels::@k for @k: the target module has no symbol @k}}
  func.func private @k(memref<4xf32>) attributes {executor.kernel = @kernels::@k}
}

// -----

// Only modules marked executor.target hold kernels.
module {
  module @plain {
    func.func @k(%a: memref<4xf32>) {
      return
    }
  }
  module @kernels attributes {executor.target = {address = "local"}} {
  }
  // expected-error @+1 {{no kernel @plain::@k for @k: this module has no target module @plain (a module marked executor.target)}}
  func.func private @k(memref<4xf32>) attributes {executor.kernel = @plain::@k}
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k(%a: memref<4xf32>) {
      return
    }
  }
  func.func private @k(memref<?xf32>) attributes {executor.kernel = @kernels::@k}
  func.func @f(%a: memref<?xf32>) {
    // expected-error @+1 {{the kernel @kernels::@k has type (memref<4xf32>) -> () but its declaration @k has type (memref<?xf32>) -> ()}}
    call @k(%a) : (memref<?xf32>) -> ()
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func private @k(%a: memref<4xf32>) {
      return
    }
  }
  func.func private @k(memref<4xf32>) attributes {executor.kernel = @kernels::@k}
  func.func @f(%a: memref<4xf32>) {
    // expected-error @+1 {{the kernel @kernels::@k of @k is not public, so its object file would not export it}}
    call @k(%a) : (memref<4xf32>) -> ()
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func private @k(memref<4xf32>)
  }
  func.func private @k(memref<4xf32>) attributes {executor.kernel = @kernels::@k}
  func.func @f(%a: memref<4xf32>) {
    // expected-error @+1 {{the kernel @kernels::@k of @k is not a func.func with a body}}
    call @k(%a) : (memref<4xf32>) -> ()
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  }
  func.func private @k(tensor<4xf32>) -> tensor<4xf32> attributes {executor.kernel = @kernels::@k}
  func.func @f(%a: tensor<4xf32>) {
    // expected-error @+1 {{the kernel @kernels::@k has an operand of type tensor<4xf32>: executor.launch passes memrefs only}}
    %r = call @k(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k(%a: memref<4xf32>) -> memref<4xf32> {
      return %a : memref<4xf32>
    }
  }
  func.func private @k(memref<4xf32>) -> memref<4xf32> attributes {executor.kernel = @kernels::@k}
  func.func @f(%a: memref<4xf32>) {
    // expected-error @+1 {{an executor.async call starts a () -> () kernel without waiting for it, so it has no operands or results; this one has 1 and 1}}
    %r = call @k(%a) {executor.async} : (memref<4xf32>) -> memref<4xf32>
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k() {
      return
    }
  }
  func.func private @k() attributes {executor.kernel = @kernels::@k}
  func.func @f(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{an executor.async call is in the entry block of its function, so that its executor.await can be placed before every return}}
      func.call @k() {executor.async} : () -> ()
    }
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
  }
  func.func private @host_function()
  func.func @f() {
    // expected-error @+1 {{executor.async marks a call to a kernel declaration (executor.kernel); @host_function is not one}}
    call @host_function() {executor.async} : () -> ()
    return
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k() {
      return
    }
  }
  func.func private @k() attributes {executor.kernel = @kernels::@k}
  func.func @f() -> (() -> ()) {
    // expected-error @+1 {{func.constant uses the kernel declaration @k; only func.call runs a kernel}}
    %k = constant @k : () -> ()
    return %k : () -> ()
  }
}

// -----

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k() {
      return
    }
  }
  func.func private @k() attributes {executor.kernel = @kernels::@k}
  llvm.func @not_a_func_func() {
    // expected-error @+1 {{a kernel is called from a func.func of the module, not from 'llvm.func'}}
    func.call @k() : () -> ()
    llvm.return
  }
}


// -----

module {
  module @plain {
    // expected-error @+1 {{executor-dispatch compiles the target modules directly inside the module it runs on; this one is nested deeper}}
    module @kernels attributes {executor.target = {address = "local"}} {
    }
  }
}

// -----

module {
  // expected-error @+1 {{the object file of a target module is named after it, and @.. is not a file name}}
  module @".." attributes {executor.target = {address = "local"}} {
  }
}

// -----

// A triple is checked before anything is compiled: one LLVM cannot parse,
// and one of an architecture this LLVM has no target for.
module {
  // expected-error @+1 {{cannot compile the target module @unknown for its triple: the triple 'foo-bar-baz' names no target of this LLVM: No available targets are compatible with triple "foo-bar-baz"}}
  module @unknown attributes {executor.target = {address = "10.0.0.2:9000", triple = "foo-bar-baz"}} {
  }
  // expected-error @+1 {{cannot compile the target module @lacking for its triple: the triple 'arc-unknown-linux-gnu' names no target of this LLVM}}
  module @lacking attributes {executor.target = {address = "10.0.0.2:9000", triple = "arc-unknown-linux-gnu"}} {
  }
}

// -----

// A target module in error is the one error of its kernels' declarations and
// calls: they are not reported again as naming no target module.
module {
  // expected-error @+1 {{cannot compile the target module @lacking for its triple: the triple 'arc-unknown-linux-gnu' names no target of this LLVM}}
  module @lacking attributes {executor.target = {address = "10.0.0.2:9000", triple = "arc-unknown-linux-gnu"}} {
    func.func @k(%buffer: memref<4xf32>) {
      return
    }
  }
  func.func private @called(memref<4xf32>) attributes {executor.kernel = @lacking::@k}
  func.func private @uncalled(memref<4xf32>) attributes {executor.kernel = @lacking::@k}
  func.func @main(%buffer: memref<4xf32>) {
    func.call @called(%buffer) : (memref<4xf32>) -> ()
    return
  }
}
