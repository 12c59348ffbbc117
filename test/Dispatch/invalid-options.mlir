// RUN: rm -rf %t && split-file %s %t
// RUN: executor-opt %t/setup.mlir -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects setup-function=setup})'
// RUN: executor-opt %t/target-root.mlir -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects})'
// RUN: not executor-opt %t/target-root.mlir \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects kernel-lowering=no-such-pass})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE
// RUN: not ls %t/objects

// What executor-dispatch rejects in its options and in the module it runs on.

// PIPELINE: error: executor-dispatch: kernel-lowering='no-such-pass' is not a pass pipeline on builtin.module: {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline

//--- setup.mlir
// expected-error @+1 {{executor-dispatch: setup-function=setup names no function with a body in this module}}
module {
  module @kernels attributes {executor.target = {address = "local"}} {
  }
  func.func private @setup()
}

//--- target-root.mlir
// expected-error @+1 {{executor-dispatch runs on the host module, which holds the target modules; this module is itself marked executor.target}}
module @kernels attributes {executor.target = {address = "local"}} {
}
