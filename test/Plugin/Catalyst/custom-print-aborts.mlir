// REQUIRES: catalyst
// Known not to work (docs/catalyst.md): printing an executor op in its custom
// form inside Catalyst 0.15.0. The op printers generated from td/ against
// LLVM 22.1.8's headers call OpAsmPrinter through its virtual table, and in
// Catalyst's LLVM (22.0.0git 8f264586) that table lacks three entries 22.1.8
// has before them (printNewline, increaseIndent, decreaseIndent): each call
// lands three entries further on, printType on printNamedAttribute, which
// reads the type as a named attribute and crashes (an assertion or a segfault,
// depending on the printer). This test shows the failure as it is today, so
// that a Catalyst whose LLVM matches the headers turns it red and the
// workaround (--mlir-print-op-generic, which the other tests use) can go.

// `not --crash` turns symbolization off; the checks need the frames' names.
// RUN: not --crash env -u LLVM_DISABLE_SYMBOLIZATION %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %s 2>&1 | FileCheck %s

// CHECK:      Stack dump:
// CHECK:      ::printNamedAttribute(mlir::NamedAttribute)
// CHECK-NEXT: catalyst::executor::OpenOp::print(mlir::OpAsmPrinter&)
func.func @open_close() {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.close %s : !executor.session
  return
}
