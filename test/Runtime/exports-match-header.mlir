// libexecutor_runtime.so exports exactly the functions include/executor_runtime.h
// declares: no more, no fewer. The header declares exactly the functions of
// executor_abi::functions::RUNTIME (abi/tests/documents.rs), so no count is
// spelled out here. (test/Conversion/ExecutorToLLVM/abi-matches-header.mlir
// checks their types against what the lowering calls.)

// RUN: llvm-nm -D --defined-only %runtime_lib | awk '{ print $3 }' | sort > %t.exported
// RUN: grep -o '__[a-z_]*executor__[a-z_]*(' %project_include/executor_runtime.h | tr -d '(' | sort -u > %t.declared
// RUN: FileCheck %s < %t.declared
// RUN: diff %t.declared %t.exported

// The list was read at all: the first function a program calls is in it.
// CHECK: {{^}}__catalyst__executor__open{{$}}
