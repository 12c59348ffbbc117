// REQUIRES: catalyst
// Catalyst reads the executor ops in generic form and in bytecode, both
// written by executor-opt, and prints back the same generic form.

// RUN: executor-opt %S/../../Dialect/ops.mlir --mlir-print-op-generic > %t.generic.mlir
// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %t.generic.mlir --mlir-print-op-generic > %t.from-generic.mlir
// (Catalyst's CLI ends its output without the empty line mlir-opt adds.)
// RUN: diff --ignore-blank-lines %t.generic.mlir %t.from-generic.mlir

// RUN: executor-opt %S/../../Dialect/ops.mlir --emit-bytecode > %t.mlirbc
// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %t.mlirbc --mlir-print-op-generic > %t.from-bytecode.mlir
// RUN: diff --ignore-blank-lines %t.generic.mlir %t.from-bytecode.mlir
