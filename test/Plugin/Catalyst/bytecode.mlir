// REQUIRES: catalyst
// Bytecode written by Catalyst with the plugin's dialect is read by executor-opt
// into the same module as the source.

// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %S/../../Dialect/ops.mlir --emit-bytecode > %t.mlirbc
// RUN: executor-opt %t.mlirbc > %t.from-catalyst.mlir
// RUN: executor-opt %S/../../Dialect/ops.mlir > %t.reference.mlir
// (Catalyst's CLI ends its output without the empty line mlir-opt adds.)
// RUN: diff --ignore-blank-lines %t.reference.mlir %t.from-catalyst.mlir
