// REQUIRES: catalyst
// The plugin's bufferization model of executor.call runs under Catalyst's
// one-shot-bufferize: the result is the one executor-opt gives (test/Dialect/
// bufferize.mlir checks what that is). Catalyst's CLI does not split input
// files; the cases there have distinct names, so they go in as one module.

// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin %S/../../Dialect/bufferize.mlir \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})' \
// RUN:   --mlir-print-op-generic > %t.catalyst.mlir
// RUN: executor-opt %S/../../Dialect/bufferize.mlir \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})' \
// RUN:   --mlir-print-op-generic > %t.reference.mlir
// (Catalyst's CLI ends its output without the empty line mlir-opt adds.)
// RUN: diff --ignore-blank-lines %t.reference.mlir %t.catalyst.mlir
// RUN: FileCheck %s < %t.catalyst.mlir

// CHECK-LABEL: sym_name = "call_output_filled_in_place"
// CHECK:         %[[OUT:.*]] = "memref.alloc"()
// CHECK-NEXT:    "executor.call"(%{{.*}}, %{{.*}}, %[[OUT]]) <{num_input_args = 1 : i32, symbol = "fill"}> : (!executor.session, memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    "func.return"(%[[OUT]]) : (memref<4xf32>) -> ()
