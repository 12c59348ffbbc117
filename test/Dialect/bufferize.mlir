// RUN: executor-opt %s -split-input-file \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   | FileCheck %s

// An output operand is filled in place: the result is its buffer.

// CHECK-LABEL: func.func @call_output_filled_in_place
// CHECK-SAME:    (%[[S:.*]]: !executor.session, %[[IN:.*]]: memref<4xf32>)
// CHECK:         %[[OUT:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NEXT:    executor.call %[[S]]("fill") (%[[IN]], %[[OUT]]) {num_input_args = 1 : i32} : !executor.session, (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    return %[[OUT]] : memref<4xf32>
func.func @call_output_filled_in_place(%s: !executor.session, %in: tensor<4xf32>) -> tensor<4xf32> {
  %empty = tensor.empty() : tensor<4xf32>
  %r = executor.call %s("fill")(%in, %empty) {num_input_args = 1 : i32}
      : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The original output tensor is still read after the call, so the call writes
// into a copy of it.

// CHECK-LABEL: func.func @call_output_read_afterwards_is_copied
// CHECK-SAME:    (%[[S:.*]]: !executor.session, %[[IN:.*]]: memref<4xf32>, %[[O:.*]]: memref<4xf32>)
// CHECK:         %[[COPY:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NEXT:    memref.copy %[[O]], %[[COPY]]
// CHECK-NEXT:    executor.call %[[S]]("fill") (%[[IN]], %[[COPY]]) {num_input_args = 1 : i32}
// CHECK-NEXT:    return %[[COPY]], %[[O]]
func.func @call_output_read_afterwards_is_copied(%s: !executor.session, %in: tensor<4xf32>, %o: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = executor.call %s("fill")(%in, %o) {num_input_args = 1 : i32}
      : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// Without output operands the results become statically shaped memref results.

// CHECK-LABEL: func.func @call_results_without_outputs
// CHECK-SAME:    (%[[S:.*]]: !executor.session, %[[IN:.*]]: memref<2x3xf64>) -> (memref<6xf64>, memref<i1>)
// CHECK-NEXT:    %[[R:.*]]:2 = executor.call %[[S]]("split") (%[[IN]]) : !executor.session, (memref<2x3xf64>) -> (memref<6xf64>, memref<i1>)
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1
func.func @call_results_without_outputs(%s: !executor.session, %in: tensor<2x3xf64>) -> (tensor<6xf64>, tensor<i1>) {
  %r:2 = executor.call %s("split")(%in) : !executor.session, (tensor<2x3xf64>) -> (tensor<6xf64>, tensor<i1>)
  return %r#0, %r#1 : tensor<6xf64>, tensor<i1>
}

// -----

// Two outputs map to two results, in order.

// CHECK-LABEL: func.func @call_two_outputs
// CHECK:         %[[A:.*]] = memref.alloc() {{.*}} : memref<2xi32>
// CHECK:         %[[B:.*]] = memref.alloc() {{.*}} : memref<3xi64>
// CHECK:         executor.call %{{.*}}("pair") (%{{.*}}, %[[A]], %[[B]]) {num_input_args = 1 : i32}
// CHECK-NEXT:    return %[[A]], %[[B]] : memref<2xi32>, memref<3xi64>
func.func @call_two_outputs(%s: !executor.session, %in: tensor<f32>) -> (tensor<2xi32>, tensor<3xi64>) {
  %a = tensor.empty() : tensor<2xi32>
  %b = tensor.empty() : tensor<3xi64>
  %r:2 = executor.call %s("pair")(%in, %a, %b) {num_input_args = 1 : i32}
      : !executor.session, (tensor<f32>, tensor<2xi32>, tensor<3xi64>) -> (tensor<2xi32>, tensor<3xi64>)
  return %r#0, %r#1 : tensor<2xi32>, tensor<3xi64>
}
