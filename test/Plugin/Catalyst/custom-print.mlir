// REQUIRES: catalyst
// Catalyst prints executor ops in their custom form, as executor-opt does. The
// op printers generated from td/ call OpAsmPrinter through its virtual table,
// and in Catalyst's LLVM (22.0.0git 8f264586) printNewline, increaseIndent and
// decreaseIndent are pure virtual functions of OpAsmPrinter, where LLVM
// 22.1.8's header has them in AsmPrinter, three entries earlier. The Catalyst
// plugin is compiled against a copy of the header with Catalyst's layout
// (build/catalyst.rs); compiled against 22.1.8's own, every call landed three
// entries off (printType on printNamedAttribute) and this crashed Catalyst
// (docs/catalyst.md).

// Every op and type, and the examples, print as in executor-opt.
// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %S/../../Dialect/ops.mlir > %t.ops.catalyst.mlir
// RUN: executor-opt %S/../../Dialect/ops.mlir > %t.ops.reference.mlir
// (Catalyst's CLI ends its output without the empty line mlir-opt adds.)
// RUN: diff --ignore-blank-lines %t.ops.reference.mlir %t.ops.catalyst.mlir
// RUN: FileCheck %S/../../Dialect/ops.mlir < %t.ops.catalyst.mlir
// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %S/../../../examples/dispatch.mlir > %t.dispatch.catalyst.mlir
// RUN: executor-opt %S/../../../examples/dispatch.mlir > %t.dispatch.reference.mlir
// RUN: diff --ignore-blank-lines %t.dispatch.reference.mlir %t.dispatch.catalyst.mlir

// What Catalyst printed, Catalyst reads back into the same module.
// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %t.ops.catalyst.mlir > %t.ops.again.mlir
// RUN: diff %t.ops.catalyst.mlir %t.ops.again.mlir

// The op of the crash, checked here as well.
// RUN: %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %s | FileCheck %s
// CHECK:      %[[S:.*]] = executor.open("127.0.0.1:9000") : !executor.session
// CHECK-NEXT: executor.close %[[S]] : !executor.session
func.func @open_close() {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.close %s : !executor.session
  return
}
