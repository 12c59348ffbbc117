// RUN: executor-opt %s | executor-opt | FileCheck %s
// RUN: executor-opt %s --mlir-print-op-generic | executor-opt | FileCheck %s
// RUN: executor-opt %s --emit-bytecode | executor-opt | FileCheck %s
// RUN: executor-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every executor op in its custom form. The three first RUN
// lines must print the same custom form: from the custom form, from the
// generic form re-parsed, and from bytecode re-parsed. The GENERIC RUN line
// checks the properties the custom form does not show.

// CHECK: #[[$MAP:.*]] = affine_map<(d0, d1) -> (d1, d0)>

//===----------------------------------------------------------------------===//
// executor.open / executor.close
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @open_close()
//       CHECK:   %[[S:.*]] = executor.open("127.0.0.1:9000") : !executor.session{{$}}
//  CHECK-NEXT:   executor.close %[[S]] : !executor.session{{$}}
func.func @open_close() {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.close %s : !executor.session
  return
}

// The address is an arbitrary string: escapes survive the round trip.
// CHECK-LABEL: func.func @open_address_with_escapes()
//       CHECK:   executor.open("tcp://host:1/\22q\22\0A") : !executor.session{{$}}
func.func @open_address_with_escapes() -> !executor.session {
  %s = executor.open("tcp://host:1/\"q\"\n") : !executor.session
  return %s : !executor.session
}

// CHECK-LABEL: func.func @open_returns_session()
//  CHECK-SAME:     -> !executor.session
//       CHECK:   %[[S:.*]] = executor.open("local") : !executor.session
//       CHECK:   return %[[S]] : !executor.session
func.func @open_returns_session() -> !executor.session {
  %s = executor.open("local") : !executor.session
  return %s : !executor.session
}

// CHECK-LABEL: func.func @close_session_argument(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   executor.close %[[S]] : !executor.session{{$}}
func.func @close_session_argument(%s: !executor.session) {
  executor.close %s : !executor.session
  return
}

//===----------------------------------------------------------------------===//
// executor.send_binary
//===----------------------------------------------------------------------===//

// `format` omitted: it defaults to 0 and the default is not printed.
// CHECK-LABEL: func.func @send_binary_format_omitted(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   executor.send_binary %[[S]]("kernels.o") : !executor.session{{$}}
//   CHECK-NOT:   format
//       CHECK:   return
// GENERIC-LABEL: sym_name = "send_binary_format_omitted"
//       GENERIC:   "executor.send_binary"(%{{.*}}) <{binary_path = "kernels.o", format = 0 : i32}> : (!executor.session) -> ()
func.func @send_binary_format_omitted(%s: !executor.session) {
  executor.send_binary %s("kernels.o") : !executor.session
  return
}

// `format = 0` written out is the default, and is elided in the printout.
// CHECK-LABEL: func.func @send_binary_format_zero_elided(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   executor.send_binary %[[S]]("kernels.o") : !executor.session{{$}}
//   CHECK-NOT:   format
//       CHECK:   return
func.func @send_binary_format_zero_elided(%s: !executor.session) {
  executor.send_binary %s("kernels.o") {format = 0 : i32} : !executor.session
  return
}

// `format = 2` (shared library) is not the default and is kept.
// CHECK-LABEL: func.func @send_binary_format_one_kept(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   executor.send_binary %[[S]]("libnative.so") {format = 2 : i32} : !executor.session{{$}}
// GENERIC-LABEL: sym_name = "send_binary_format_one_kept"
//       GENERIC:   "executor.send_binary"(%{{.*}}) <{binary_path = "libnative.so", format = 2 : i32}> : (!executor.session) -> ()
func.func @send_binary_format_one_kept(%s: !executor.session) {
  executor.send_binary %s("libnative.so") {format = 2 : i32} : !executor.session
  return
}

// Discardable attributes are kept next to `format`, in sorted order; with
// the default format only the discardable attribute is printed.
// CHECK-LABEL: func.func @send_binary_discardable_attrs(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   executor.send_binary %[[S]]("a.o") {tag = "first"} : !executor.session{{$}}
//  CHECK-NEXT:   executor.send_binary %[[S]]("b.so") {format = 2 : i32, tag = "second"} : !executor.session{{$}}
func.func @send_binary_discardable_attrs(%s: !executor.session) {
  executor.send_binary %s("a.o") {format = 0 : i32, tag = "first"} : !executor.session
  executor.send_binary %s("b.so") {tag = "second", format = 2 : i32} : !executor.session
  return
}

//===----------------------------------------------------------------------===//
// executor.launch
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @launch_no_inputs_no_results(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   executor.launch %[[S]]("init", "kernels.o") () : !executor.session, () -> (){{$}}
func.func @launch_no_inputs_no_results(%s: !executor.session) {
  executor.launch %s("init", "kernels.o") () : !executor.session, () -> ()
  return
}

// CHECK-LABEL: func.func @launch_one_input_no_results(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<4xf32>)
//       CHECK:   executor.launch %[[S]]("scale", "kernels.o") (%[[A]]) : !executor.session, (memref<4xf32>) -> (){{$}}
func.func @launch_one_input_no_results(%s: !executor.session, %a: memref<4xf32>) {
  executor.launch %s("scale", "kernels.o") (%a) : !executor.session, (memref<4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @launch_no_inputs_one_result(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   %[[R:.*]] = executor.launch %[[S]]("iota", "kernels.o") () : !executor.session, () -> memref<8xi32>{{$}}
//       CHECK:   return %[[R]] : memref<8xi32>
func.func @launch_no_inputs_one_result(%s: !executor.session) -> memref<8xi32> {
  %r = executor.launch %s("iota", "kernels.o") () : !executor.session, () -> memref<8xi32>
  return %r : memref<8xi32>
}

// CHECK-LABEL: func.func @launch_one_input_one_result(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<4xf32>)
//       CHECK:   %[[R:.*]] = executor.launch %[[S]]("neg", "kernels.o") (%[[A]]) : !executor.session, (memref<4xf32>) -> memref<4xf32>{{$}}
//       CHECK:   return %[[R]] : memref<4xf32>
func.func @launch_one_input_one_result(%s: !executor.session, %a: memref<4xf32>) -> memref<4xf32> {
  %r = executor.launch %s("neg", "kernels.o") (%a) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}

// CHECK-LABEL: func.func @launch_several_inputs_several_results(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<4xf32>, %[[B:arg[0-9]+]]: memref<4xf32>, %[[C:arg[0-9]+]]: memref<2x3xi8>)
//       CHECK:   %[[R:[0-9]+]]:3 = executor.launch %[[S]]("split", "kernels.o") (%[[A]], %[[B]], %[[C]]) : !executor.session, (memref<4xf32>, memref<4xf32>, memref<2x3xi8>) -> (memref<4xf32>, memref<2x3xi8>, memref<1xi64>){{$}}
//       CHECK:   return %[[R]]#0, %[[R]]#1, %[[R]]#2 : memref<4xf32>, memref<2x3xi8>, memref<1xi64>
func.func @launch_several_inputs_several_results(%s: !executor.session, %a: memref<4xf32>, %b: memref<4xf32>, %c: memref<2x3xi8>) -> (memref<4xf32>, memref<2x3xi8>, memref<1xi64>) {
  %r:3 = executor.launch %s("split", "kernels.o") (%a, %b, %c) : !executor.session, (memref<4xf32>, memref<4xf32>, memref<2x3xi8>) -> (memref<4xf32>, memref<2x3xi8>, memref<1xi64>)
  return %r#0, %r#1, %r#2 : memref<4xf32>, memref<2x3xi8>, memref<1xi64>
}

// The same value may be passed several times.
// CHECK-LABEL: func.func @launch_repeated_operand(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<4xf32>)
//       CHECK:   executor.launch %[[S]]("add", "kernels.o") (%[[A]], %[[A]]) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>{{$}}
func.func @launch_repeated_operand(%s: !executor.session, %a: memref<4xf32>) -> memref<4xf32> {
  %r = executor.launch %s("add", "kernels.o") (%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}

// Dynamic shapes are allowed on launch operands and results.
// CHECK-LABEL: func.func @launch_dynamic_shapes(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<?xf32>, %[[B:arg[0-9]+]]: memref<?x4x?xf64>)
//       CHECK:   %{{.*}} = executor.launch %[[S]]("dyn", "kernels.o") (%[[A]], %[[B]]) : !executor.session, (memref<?xf32>, memref<?x4x?xf64>) -> memref<?x?xf32>{{$}}
func.func @launch_dynamic_shapes(%s: !executor.session, %a: memref<?xf32>, %b: memref<?x4x?xf64>) -> memref<?x?xf32> {
  %r = executor.launch %s("dyn", "kernels.o") (%a, %b) : !executor.session, (memref<?xf32>, memref<?x4x?xf64>) -> memref<?x?xf32>
  return %r : memref<?x?xf32>
}

// Strided layouts (static and dynamic strides/offset), affine-map layouts and
// memory spaces are kept.
// CHECK-LABEL: func.func @launch_strided_layouts(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<4x4xf32, strided<[8, 1], offset: 2>>, %[[B:arg[0-9]+]]: memref<?x?xf32, strided<[?, 1], offset: ?>>)
//       CHECK:   executor.launch %[[S]]("strided", "kernels.o") (%[[A]], %[[B]]) : !executor.session, (memref<4x4xf32, strided<[8, 1], offset: 2>>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> memref<4xf32, strided<[2]>, 1>{{$}}
func.func @launch_strided_layouts(%s: !executor.session, %a: memref<4x4xf32, strided<[8, 1], offset: 2>>, %b: memref<?x?xf32, strided<[?, 1], offset: ?>>) -> memref<4xf32, strided<[2]>, 1> {
  %r = executor.launch %s("strided", "kernels.o") (%a, %b) : !executor.session, (memref<4x4xf32, strided<[8, 1], offset: 2>>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> memref<4xf32, strided<[2]>, 1>
  return %r : memref<4xf32, strided<[2]>, 1>
}

// The layout map is printed through its alias, defined at the top.
// CHECK-LABEL: func.func @launch_affine_map_layout(
//  CHECK-SAME:     memref<2x3xf32, #[[$MAP]]>)
//       CHECK:   executor.launch %{{.*}}("transpose", "kernels.o") (%{{.*}}) : !executor.session, (memref<2x3xf32, #[[$MAP]]>) -> (){{$}}
func.func @launch_affine_map_layout(%s: !executor.session, %a: memref<2x3xf32, affine_map<(d0, d1) -> (d1, d0)>>) {
  executor.launch %s("transpose", "kernels.o") (%a) : !executor.session, (memref<2x3xf32, affine_map<(d0, d1) -> (d1, d0)>>) -> ()
  return
}

// Rank-0 memrefs as inputs and results.
// CHECK-LABEL: func.func @launch_rank_zero(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<f32>)
//       CHECK:   %{{.*}} = executor.launch %[[S]]("sum", "kernels.o") (%[[A]]) : !executor.session, (memref<f32>) -> memref<i64>{{$}}
func.func @launch_rank_zero(%s: !executor.session, %a: memref<f32>) -> memref<i64> {
  %r = executor.launch %s("sum", "kernels.o") (%a) : !executor.session, (memref<f32>) -> memref<i64>
  return %r : memref<i64>
}

// Discardable attributes go after the operand list, before the colon.
// CHECK-LABEL: func.func @launch_discardable_attrs(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<4xf32>)
//       CHECK:   executor.launch %[[S]]("scale", "kernels.o") (%[[A]]) {grid = [4 : i32, 1 : i32], unit} : !executor.session, (memref<4xf32>) -> (){{$}}
func.func @launch_discardable_attrs(%s: !executor.session, %a: memref<4xf32>) {
  executor.launch %s("scale", "kernels.o") (%a) {unit, grid = [4 : i32, 1 : i32]} : !executor.session, (memref<4xf32>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// executor.launch_async / executor.await
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @launch_async_then_await(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   %[[T:.*]] = executor.launch_async %[[S]]("warm_up", "kernels.o") : !executor.session -> !executor.token{{$}}
//  CHECK-NEXT:   executor.await %[[T]] : !executor.token{{$}}
func.func @launch_async_then_await(%s: !executor.session) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  return
}

// Two launches in flight on one session, awaited in the opposite order.
// CHECK-LABEL: func.func @launch_async_two_in_flight(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   %[[T0:.*]] = executor.launch_async %[[S]]("a", "kernels.o") : !executor.session -> !executor.token
//  CHECK-NEXT:   %[[T1:.*]] = executor.launch_async %[[S]]("b", "kernels.o") : !executor.session -> !executor.token
//  CHECK-NEXT:   executor.await %[[T1]] : !executor.token
//  CHECK-NEXT:   executor.await %[[T0]] : !executor.token
func.func @launch_async_two_in_flight(%s: !executor.session) {
  %t0 = executor.launch_async %s("a", "kernels.o") : !executor.session -> !executor.token
  %t1 = executor.launch_async %s("b", "kernels.o") : !executor.session -> !executor.token
  executor.await %t1 : !executor.token
  executor.await %t0 : !executor.token
  return
}

// A token can be returned and awaited by the caller.
// CHECK-LABEL: func.func @launch_async_returns_token(
//  CHECK-SAME:     -> !executor.token
//       CHECK:   %[[T:.*]] = executor.launch_async
//       CHECK:   return %[[T]] : !executor.token
func.func @launch_async_returns_token(%s: !executor.session) -> !executor.token {
  %t = executor.launch_async %s("bg", "kernels.o") : !executor.session -> !executor.token
  return %t : !executor.token
}

// CHECK-LABEL: func.func @launch_async_await_discardable_attrs(
//       CHECK:   executor.launch_async %{{.*}}("bg", "kernels.o") {priority = 2 : i64} : !executor.session -> !executor.token{{$}}
//       CHECK:   executor.await %{{.*}} {timeout_ms = 100 : i64} : !executor.token{{$}}
func.func @launch_async_await_discardable_attrs(%s: !executor.session) {
  %t = executor.launch_async %s("bg", "kernels.o") {priority = 2} : !executor.session -> !executor.token
  executor.await %t {timeout_ms = 100} : !executor.token
  return
}

//===----------------------------------------------------------------------===//
// executor.call, tensor form
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @call_no_operands_no_results(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session)
//       CHECK:   executor.call %[[S]]("reset") () : !executor.session, () -> (){{$}}
func.func @call_no_operands_no_results(%s: !executor.session) {
  executor.call %s("reset") () : !executor.session, () -> ()
  return
}

// Without num_input_args the attribute is absent from the printout, all
// operands are inputs and results have a static shape.
// CHECK-LABEL: func.func @call_tensor_one_input_one_result(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[T:arg[0-9]+]]: tensor<8xf64>)
//       CHECK:   %[[R:.*]] = executor.call %[[S]]("norm") (%[[T]]) : !executor.session, (tensor<8xf64>) -> tensor<8xf64>{{$}}
//   CHECK-NOT:   num_input_args
//       CHECK:   return %[[R]]
// GENERIC-LABEL: sym_name = "call_tensor_one_input_one_result"
//       GENERIC:   "executor.call"(%{{.*}}, %{{.*}}) <{symbol = "norm"}> : (!executor.session, tensor<8xf64>) -> tensor<8xf64>
func.func @call_tensor_one_input_one_result(%s: !executor.session, %t: tensor<8xf64>) -> tensor<8xf64> {
  %r = executor.call %s("norm") (%t) : !executor.session, (tensor<8xf64>) -> tensor<8xf64>
  return %r : tensor<8xf64>
}

// CHECK-LABEL: func.func @call_tensor_no_inputs_one_result(
//       CHECK:   %{{.*}} = executor.call %{{.*}}("zeros") () : !executor.session, () -> tensor<2x2xi32>{{$}}
func.func @call_tensor_no_inputs_one_result(%s: !executor.session) -> tensor<2x2xi32> {
  %r = executor.call %s("zeros") () : !executor.session, () -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}

// CHECK-LABEL: func.func @call_tensor_several_inputs_several_results(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: tensor<4xf32>, %[[B:arg[0-9]+]]: tensor<?xf32>)
//       CHECK:   %[[R:[0-9]+]]:3 = executor.call %[[S]]("stats") (%[[A]], %[[B]]) : !executor.session, (tensor<4xf32>, tensor<?xf32>) -> (tensor<f32>, tensor<f32>, tensor<2xi64>){{$}}
//       CHECK:   return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @call_tensor_several_inputs_several_results(%s: !executor.session, %a: tensor<4xf32>, %b: tensor<?xf32>) -> (tensor<f32>, tensor<f32>, tensor<2xi64>) {
  %r:3 = executor.call %s("stats") (%a, %b) : !executor.session, (tensor<4xf32>, tensor<?xf32>) -> (tensor<f32>, tensor<f32>, tensor<2xi64>)
  return %r#0, %r#1, %r#2 : tensor<f32>, tensor<f32>, tensor<2xi64>
}

// CHECK-LABEL: func.func @call_tensor_inputs_no_results(
//       CHECK:   executor.call %{{.*}}("log") (%{{.*}}, %{{.*}}) : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> (){{$}}
func.func @call_tensor_inputs_no_results(%s: !executor.session, %a: tensor<4xf32>) {
  executor.call %s("log") (%a, %a) : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// num_input_args = 1: one input, one output operand, one result of the output
// type.
// CHECK-LABEL: func.func @call_tensor_one_output(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: tensor<8xf64>, %[[O:arg[0-9]+]]: tensor<8xf64>)
//       CHECK:   %[[R:.*]] = executor.call %[[S]]("normalize") (%[[A]], %[[O]]) {num_input_args = 1 : i32} : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>{{$}}
// GENERIC-LABEL: sym_name = "call_tensor_one_output"
//       GENERIC:   "executor.call"(%{{.*}}, %{{.*}}, %{{.*}}) <{num_input_args = 1 : i32, symbol = "normalize"}> : (!executor.session, tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
func.func @call_tensor_one_output(%s: !executor.session, %a: tensor<8xf64>, %o: tensor<8xf64>) -> tensor<8xf64> {
  %r = executor.call %s("normalize") (%a, %o) {num_input_args = 1 : i32} : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
  return %r : tensor<8xf64>
}

// Output operands may have a dynamic shape: the results take their types.
// CHECK-LABEL: func.func @call_tensor_dynamic_outputs(
//       CHECK:   %{{.*}}:2 = executor.call %{{.*}}("minmax") (%{{.*}}, %{{.*}}, %{{.*}}) {num_input_args = 1 : i32} : !executor.session, (tensor<?xf32>, tensor<?xf32>, tensor<?x?xi8>) -> (tensor<?xf32>, tensor<?x?xi8>){{$}}
func.func @call_tensor_dynamic_outputs(%s: !executor.session, %a: tensor<?xf32>, %o0: tensor<?xf32>, %o1: tensor<?x?xi8>) -> (tensor<?xf32>, tensor<?x?xi8>) {
  %r:2 = executor.call %s("minmax") (%a, %o0, %o1) {num_input_args = 1 : i32} : !executor.session, (tensor<?xf32>, tensor<?xf32>, tensor<?x?xi8>) -> (tensor<?xf32>, tensor<?x?xi8>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?x?xi8>
}

// num_input_args = 0: every operand is an output operand.
// CHECK-LABEL: func.func @call_tensor_num_input_args_zero(
//       CHECK:   %{{.*}}:2 = executor.call %{{.*}}("fill") (%{{.*}}, %{{.*}}) {num_input_args = 0 : i32} : !executor.session, (tensor<4xf32>, tensor<3xi32>) -> (tensor<4xf32>, tensor<3xi32>){{$}}
func.func @call_tensor_num_input_args_zero(%s: !executor.session, %o0: tensor<4xf32>, %o1: tensor<3xi32>) -> (tensor<4xf32>, tensor<3xi32>) {
  %r:2 = executor.call %s("fill") (%o0, %o1) {num_input_args = 0 : i32} : !executor.session, (tensor<4xf32>, tensor<3xi32>) -> (tensor<4xf32>, tensor<3xi32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<3xi32>
}

// num_input_args = 0 on a call without operands is kept.
// CHECK-LABEL: func.func @call_num_input_args_zero_no_operands(
//       CHECK:   executor.call %{{.*}}("ping") () {num_input_args = 0 : i32} : !executor.session, () -> (){{$}}
func.func @call_num_input_args_zero_no_operands(%s: !executor.session) {
  executor.call %s("ping") () {num_input_args = 0 : i32} : !executor.session, () -> ()
  return
}

// num_input_args = number of operands: no output operand, so the results are
// free (static) types.
// CHECK-LABEL: func.func @call_tensor_num_input_args_all(
//       CHECK:   %{{.*}} = executor.call %{{.*}}("dot") (%{{.*}}, %{{.*}}) {num_input_args = 2 : i32} : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>{{$}}
func.func @call_tensor_num_input_args_all(%s: !executor.session, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %r = executor.call %s("dot") (%a, %b) {num_input_args = 2 : i32} : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// Discardable attributes are printed with num_input_args, in sorted order.
// CHECK-LABEL: func.func @call_discardable_attrs(
//       CHECK:   executor.call %{{.*}}("normalize") (%{{.*}}, %{{.*}}) {a_first, num_input_args = 1 : i32, z_last = "x"} : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>{{$}}
func.func @call_discardable_attrs(%s: !executor.session, %a: tensor<8xf64>, %o: tensor<8xf64>) -> tensor<8xf64> {
  %r = executor.call %s("normalize") (%a, %o) {z_last = "x", num_input_args = 1 : i32, a_first} : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
  return %r : tensor<8xf64>
}

//===----------------------------------------------------------------------===//
// executor.call, memref form
//===----------------------------------------------------------------------===//

// Bufferized: the output buffers are written in place, no results.
// CHECK-LABEL: func.func @call_memref_outputs_no_results(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[A:arg[0-9]+]]: memref<8xf64>, %[[O:arg[0-9]+]]: memref<8xf64>)
//       CHECK:   executor.call %[[S]]("normalize") (%[[A]], %[[O]]) {num_input_args = 1 : i32} : !executor.session, (memref<8xf64>, memref<8xf64>) -> (){{$}}
func.func @call_memref_outputs_no_results(%s: !executor.session, %a: memref<8xf64>, %o: memref<8xf64>) {
  executor.call %s("normalize") (%a, %o) {num_input_args = 1 : i32} : !executor.session, (memref<8xf64>, memref<8xf64>) -> ()
  return
}

// Memref output buffers may be dynamic and strided.
// CHECK-LABEL: func.func @call_memref_dynamic_strided_outputs(
//       CHECK:   executor.call %{{.*}}("copy") (%{{.*}}, %{{.*}}, %{{.*}}) {num_input_args = 1 : i32} : !executor.session, (memref<?xf32>, memref<?xf32, strided<[2], offset: ?>>, memref<f32>) -> (){{$}}
func.func @call_memref_dynamic_strided_outputs(%s: !executor.session, %a: memref<?xf32>, %o: memref<?xf32, strided<[2], offset: ?>>, %z: memref<f32>) {
  executor.call %s("copy") (%a, %o, %z) {num_input_args = 1 : i32} : !executor.session, (memref<?xf32>, memref<?xf32, strided<[2], offset: ?>>, memref<f32>) -> ()
  return
}

// Memref inputs only, no num_input_args, no results.
// CHECK-LABEL: func.func @call_memref_inputs_only(
//       CHECK:   executor.call %{{.*}}("print") (%{{.*}}) : !executor.session, (memref<?x?xf32>) -> (){{$}}
func.func @call_memref_inputs_only(%s: !executor.session, %a: memref<?x?xf32>) {
  executor.call %s("print") (%a) : !executor.session, (memref<?x?xf32>) -> ()
  return
}

// Memref form without output operands: statically shaped memref results are
// accepted (the executor allocates them). This follows td/ExecutorOps.td
// ("operands and results are ranked tensors or, once bufferized, memrefs");
// the results table of shared/spec/executor-ops.txt lists ranked tensors only.
// CHECK-LABEL: func.func @call_memref_static_results_without_outputs(
//       CHECK:   %{{.*}}:2 = executor.call %{{.*}}("alloc2") (%{{.*}}) : !executor.session, (memref<?xf32>) -> (memref<4xf32>, memref<i8>){{$}}
func.func @call_memref_static_results_without_outputs(%s: !executor.session, %a: memref<?xf32>) -> (memref<4xf32>, memref<i8>) {
  %r:2 = executor.call %s("alloc2") (%a) : !executor.session, (memref<?xf32>) -> (memref<4xf32>, memref<i8>)
  return %r#0, %r#1 : memref<4xf32>, memref<i8>
}

//===----------------------------------------------------------------------===//
// Everything together
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @full_session(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<4xf32>, %[[T:arg[0-9]+]]: tensor<8xf64>)
//  CHECK-SAME:     -> (memref<4xf32>, tensor<8xf64>)
//       CHECK:   %[[S:.*]] = executor.open("local") : !executor.session
//  CHECK-NEXT:   executor.send_binary %[[S]]("kernels.o") : !executor.session
//  CHECK-NEXT:   executor.send_binary %[[S]]("libnative.so") {format = 2 : i32} : !executor.session
//  CHECK-NEXT:   %[[SUM:.*]] = executor.launch %[[S]]("add", "kernels.o") (%[[X]], %[[X]]) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
//  CHECK-NEXT:   %[[TOK:.*]] = executor.launch_async %[[S]]("warm_up", "kernels.o") : !executor.session -> !executor.token
//  CHECK-NEXT:   executor.await %[[TOK]] : !executor.token
//  CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<8xf64>
//  CHECK-NEXT:   %[[N:.*]] = executor.call %[[S]]("normalize") (%[[T]], %[[E]]) {num_input_args = 1 : i32} : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
//  CHECK-NEXT:   executor.close %[[S]] : !executor.session
//  CHECK-NEXT:   return %[[SUM]], %[[N]] : memref<4xf32>, tensor<8xf64>
func.func @full_session(%x: memref<4xf32>, %t: tensor<8xf64>) -> (memref<4xf32>, tensor<8xf64>) {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  executor.send_binary %s("libnative.so") {format = 2 : i32} : !executor.session
  %sum = executor.launch %s("add", "kernels.o") (%x, %x) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  %tok = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  executor.await %tok : !executor.token
  %e = tensor.empty() : tensor<8xf64>
  %n = executor.call %s("normalize") (%t, %e) {num_input_args = 1 : i32} : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
  executor.close %s : !executor.session
  return %sum, %n : memref<4xf32>, tensor<8xf64>
}
