// Upstream mlir-opt with the dialect plugin parses, verifies and prints every op
// of test/Dialect/ops.mlir exactly as executor-opt does, in custom, generic and
// bytecode form.

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin %S/../Dialect/ops.mlir > %t.plugin.mlir
// RUN: executor-opt %S/../Dialect/ops.mlir > %t.driver.mlir
// RUN: diff %t.driver.mlir %t.plugin.mlir
// RUN: FileCheck %S/../Dialect/ops.mlir < %t.plugin.mlir

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin %S/../Dialect/ops.mlir --mlir-print-op-generic \
// RUN:   | mlir-opt --load-dialect-plugin=%executor_plugin > %t.generic.mlir
// RUN: diff %t.driver.mlir %t.generic.mlir

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin %S/../Dialect/ops.mlir --emit-bytecode \
// RUN:   | mlir-opt --load-dialect-plugin=%executor_plugin > %t.bytecode.mlir
// RUN: diff %t.driver.mlir %t.bytecode.mlir

// The verifier comes with the dialect: every invalid case is rejected the same way.
// RUN: mlir-opt --load-dialect-plugin=%executor_plugin %S/../Dialect/invalid.mlir -split-input-file -verify-diagnostics > /dev/null
