// libexecutor_runtime.so exports exactly the functions include/executor_runtime.h
// declares: no more, no fewer. (test/Conversion/ExecutorToLLVM/abi-matches-header.mlir
// checks their types against what the lowering calls.)

// RUN: llvm-nm -D --defined-only %runtime_lib | awk '{ print $3 }' | sort > %t.exported
// RUN: grep -o '__[a-z_]*executor__[a-z_]*(' %project_include/executor_runtime.h | tr -d '(' | sort -u > %t.declared
// RUN: wc -l < %t.declared | FileCheck %s
// RUN: diff %t.declared %t.exported

// CHECK: 9
