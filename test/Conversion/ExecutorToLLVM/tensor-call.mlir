// executor.call on tensors, as the op reference writes it, goes through
// Catalyst's bufferization stage (one-shot-bufferize) and then the lowering,
// down to LLVM IR with no executor op, tensor or cast left.

// RUN: executor-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},convert-executor-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | FileCheck %s --check-prefix=LLVM
// RUN: executor-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},convert-executor-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// LLVM-LABEL: llvm.func @normalize_then_split
// The output tensor becomes a buffer allocated by the host and filled in place.
// LLVM:         %[[OUT:.*]] = llvm.call @malloc
// LLVM:         llvm.call @__catalyst__executor__call_wrapper
// LLVM:         llvm.call @__catalyst__executor__free_result
// The second call has no output operand: its static result is allocated by the lowering.
// LLVM:         llvm.call @malloc
// LLVM:         llvm.call @__catalyst__executor__call_wrapper
// LLVM:         llvm.call @__catalyst__executor__free_result
// LLVM:         llvm.return
// LLVM-NOT:     executor.
// LLVM-NOT:     tensor<
// LLVM-NOT:     unrealized_conversion_cast

// IR-LABEL: define { { ptr, ptr, i64, [1 x i64], [1 x i64] }, { ptr, ptr, i64, [1 x i64], [1 x i64] } } @normalize_then_split(i64 %0
// IR-COUNT-2:  call i32 @__catalyst__executor__call_wrapper(i64 %0, ptr
// IR-NOT:      executor.
func.func @normalize_then_split(%s: !executor.session, %t: tensor<8xf64>) -> (tensor<8xf64>, tensor<2xi32>) {
  %empty = tensor.empty() : tensor<8xf64>
  %norm = executor.call %s("normalize")(%t, %empty) {num_input_args = 1 : i32}
      : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
  %split = executor.call %s("split")(%norm) : !executor.session, (tensor<8xf64>) -> tensor<2xi32>
  return %norm, %split : tensor<8xf64>, tensor<2xi32>
}
