// A module without executor ops, in which the executor dialect is not
// loaded: the session passes, the lowering and the lowering stage (which runs
// executor-verify-sessions first) load it and have nothing to do, where they
// used to abort asking for its types.

// RUN: executor-opt %s --executor-verify-sessions | FileCheck %s
// RUN: executor-opt %s --executor-optimize=reuse-sessions=true | FileCheck %s
// RUN: executor-opt %s --convert-executor-to-llvm | FileCheck %s
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | FileCheck %s --check-prefix=STAGE

// CHECK-LABEL: func.func @scale
// CHECK:         arith.mulf
// STAGE-LABEL: llvm.func @scale
// STAGE:         llvm.fmul
func.func @scale(%x: f32) -> f32 {
  %two = arith.constant 2.0 : f32
  %y = arith.mulf %x, %two : f32
  return %y : f32
}
