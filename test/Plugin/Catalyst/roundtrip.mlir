// REQUIRES: catalyst
// Inside Catalyst's own CLI, the plugin's dialect parses every executor op and
// type of test/Dialect/ops.mlir in its custom form, verifies them and prints
// them in generic form exactly as this project's executor-opt does.

// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %S/../../Dialect/ops.mlir --mlir-print-op-generic > %t.catalyst.mlir
// RUN: executor-opt %S/../../Dialect/ops.mlir --mlir-print-op-generic > %t.reference.mlir
// (Catalyst's CLI ends its output without the empty line mlir-opt adds.)
// RUN: diff --ignore-blank-lines %t.reference.mlir %t.catalyst.mlir

// What Catalyst printed holds every op with its properties: read back by
// executor-opt, it passes ops.mlir's own checks.
// RUN: executor-opt %t.catalyst.mlir | FileCheck %S/../../Dialect/ops.mlir
