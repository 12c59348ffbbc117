// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | FileCheck %s --check-prefix=STAGE

// A module without any executor op or type passes through unchanged: the
// pipelines that run the lowering run it on every program.

// CHECK-LABEL: func.func @main() {
//  CHECK-NEXT:   return
// STAGE-LABEL: llvm.func @main() {
//  STAGE-NEXT:   llvm.return
func.func @main() {
  return
}
