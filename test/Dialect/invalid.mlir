// RUN: executor-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the executor dialect: attribute constraints,
// operand/result type constraints and the executor.call verifier.

//===----------------------------------------------------------------------===//
// Empty names
//===----------------------------------------------------------------------===//

func.func @open_empty_address() {
  // expected-error @+1 {{'executor.open' op attribute 'address' failed to satisfy constraint: string attribute that is not empty}}
  %s = executor.open("") : !executor.session
  return
}

// -----

func.func @send_binary_empty_binary_path(%s: !executor.session) {
  // expected-error @+1 {{'executor.send_binary' op attribute 'binary_path' failed to satisfy constraint: string attribute that is not empty}}
  executor.send_binary %s("") : !executor.session
  return
}

// -----

func.func @launch_empty_kernel_callee(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch' op attribute 'kernel_callee' failed to satisfy constraint: string attribute that is not empty}}
  executor.launch %s("", "kernels.o") () : !executor.session, () -> ()
  return
}

// -----

func.func @launch_empty_object(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch' op attribute 'object' failed to satisfy constraint: string attribute that is not empty}}
  executor.launch %s("kernel", "") () : !executor.session, () -> ()
  return
}

// -----

func.func @launch_async_empty_kernel_callee(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch_async' op attribute 'kernel_callee' failed to satisfy constraint: string attribute that is not empty}}
  %t = executor.launch_async %s("", "kernels.o") : !executor.session -> !executor.token
  return
}

// -----

func.func @launch_async_empty_object(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch_async' op attribute 'object' failed to satisfy constraint: string attribute that is not empty}}
  %t = executor.launch_async %s("kernel", "") : !executor.session -> !executor.token
  return
}

// -----

func.func @call_empty_symbol(%s: !executor.session) {
  // expected-error @+1 {{'executor.call' op attribute 'symbol' failed to satisfy constraint: string attribute that is not empty}}
  executor.call %s("") () : !executor.session, () -> ()
  return
}

// -----

// The generic form reaches the same rule through the verifier.
func.func @call_empty_symbol_generic(%s: !executor.session) {
  // expected-error @+1 {{'executor.call' op attribute 'symbol' failed to satisfy constraint: string attribute that is not empty}}
  "executor.call"(%s) <{symbol = ""}> : (!executor.session) -> ()
  return
}

// -----

func.func @call_missing_symbol_generic(%s: !executor.session) {
  // expected-error @+1 {{'executor.call' op requires attribute 'symbol'}}
  "executor.call"(%s) <{num_input_args = 0 : i32}> : (!executor.session) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// Names with a NUL byte: the runtime would get the part before it
//===----------------------------------------------------------------------===//

func.func @open_address_with_nul() {
  // expected-error @+1 {{'executor.open' op attribute 'address' failed to satisfy constraint: string attribute that is not empty and holds no NUL byte}}
  %s = executor.open("local\00x") : !executor.session
  return
}

// -----

func.func @send_binary_path_with_nul(%s: !executor.session) {
  // expected-error @+1 {{'executor.send_binary' op attribute 'binary_path' failed to satisfy constraint: string attribute that is not empty and holds no NUL byte}}
  executor.send_binary %s("k.o\00x") : !executor.session
  return
}

// -----

func.func @launch_kernel_callee_with_nul(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch' op attribute 'kernel_callee' failed to satisfy constraint: string attribute that is not empty and holds no NUL byte}}
  executor.launch %s("kernel\00other", "kernels.o") () : !executor.session, () -> ()
  return
}

// -----

func.func @launch_object_with_nul(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch' op attribute 'object' failed to satisfy constraint: string attribute that is not empty and holds no NUL byte}}
  executor.launch %s("kernel", "kernels.o\00x") () : !executor.session, () -> ()
  return
}

// -----

func.func @launch_async_kernel_callee_with_nul(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch_async' op attribute 'kernel_callee' failed to satisfy constraint: string attribute that is not empty and holds no NUL byte}}
  %t = executor.launch_async %s("kernel\00other", "kernels.o") : !executor.session -> !executor.token
  return
}

// -----

func.func @launch_async_object_with_nul(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch_async' op attribute 'object' failed to satisfy constraint: string attribute that is not empty and holds no NUL byte}}
  %t = executor.launch_async %s("kernel", "kernels.o\00x") : !executor.session -> !executor.token
  return
}

// -----

func.func @call_symbol_with_nul(%s: !executor.session) {
  // expected-error @+1 {{'executor.call' op attribute 'symbol' failed to satisfy constraint: string attribute that is not empty and holds no NUL byte}}
  executor.call %s("fill\00other") () : !executor.session, () -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// send_binary format
//===----------------------------------------------------------------------===//

func.func @send_binary_format_three_reserved(%s: !executor.session) {
  // expected-error @+1 {{'executor.send_binary' op attribute 'format' failed to satisfy constraint: 32-bit signless integer attribute whose value is 0 (object file), 1 (asset) or 2 (shared library); other values are reserved for future encodings}}
  executor.send_binary %s("kernels.o") {format = 3 : i32} : !executor.session
  return
}

// -----

func.func @send_binary_format_negative_reserved(%s: !executor.session) {
  // expected-error @+1 {{attribute 'format' failed to satisfy constraint: 32-bit signless integer attribute whose value is 0 (object file), 1 (asset) or 2 (shared library); other values are reserved}}
  executor.send_binary %s("kernels.o") {format = -1 : i32} : !executor.session
  return
}

// -----

// Same rule on the generic form, checked by the verifier after parsing.
func.func @send_binary_format_reserved_generic(%s: !executor.session) {
  // expected-error @+1 {{'executor.send_binary' op attribute 'format' failed to satisfy constraint: 32-bit signless integer attribute whose value is 0 (object file), 1 (asset) or 2 (shared library)}}
  "executor.send_binary"(%s) <{binary_path = "kernels.o", format = 7 : i32}> : (!executor.session) -> ()
  return
}

// -----

// The format is a 32-bit integer: 1 : i64 is not accepted.
func.func @send_binary_format_wrong_width(%s: !executor.session) {
  // expected-error @+1 {{attribute 'format' failed to satisfy constraint: 32-bit signless integer attribute}}
  executor.send_binary %s("kernels.o") {format = 1 : i64} : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// call num_input_args
//===----------------------------------------------------------------------===//

func.func @call_num_input_args_negative(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op attribute 'num_input_args' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  executor.call %s("f") (%m) {num_input_args = -1 : i32} : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

// -1 is also rejected in the generic form (not read as 4294967295).
func.func @call_num_input_args_negative_generic(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op attribute 'num_input_args' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  "executor.call"(%s, %m) <{num_input_args = -1 : i32, symbol = "f"}> : (!executor.session, memref<4xf32>) -> ()
  return
}

// -----

func.func @call_num_input_args_exceeds_operands(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op failed to verify that num_input_args is at most the number of operands after the session}}
  executor.call %s("f") (%m, %m) {num_input_args = 3 : i32} : !executor.session, (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// The session is not counted: one buffer operand allows num_input_args <= 1.
func.func @call_num_input_args_does_not_count_session(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op failed to verify that num_input_args is at most the number of operands after the session}}
  executor.call %s("f") (%m) {num_input_args = 2 : i32} : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

func.func @call_num_input_args_wrong_width(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{attribute 'num_input_args' failed to satisfy constraint: 32-bit signless integer attribute}}
  executor.call %s("f") (%m) {num_input_args = 1 : i64} : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// call: tensors or memrefs
//===----------------------------------------------------------------------===//

func.func @call_mixes_tensor_and_memref_operands(%s: !executor.session, %m: memref<4xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{'executor.call' op mixes tensors and memrefs: operands and results are either all ranked tensors or, once bufferized, all memrefs}}
  executor.call %s("f") (%m, %t) : !executor.session, (memref<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @call_mixes_tensor_operand_and_memref_result(%s: !executor.session, %t: tensor<4xf32>) {
  // expected-error @+1 {{'executor.call' op mixes tensors and memrefs}}
  %r = executor.call %s("f") (%t) : !executor.session, (tensor<4xf32>) -> memref<4xf32>
  return
}

// -----

func.func @call_mixes_memref_operand_and_tensor_result(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op mixes tensors and memrefs}}
  %r = executor.call %s("f") (%m) : !executor.session, (memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Without operands, the results alone must not mix either.
func.func @call_mixes_tensor_and_memref_results(%s: !executor.session) {
  // expected-error @+1 {{'executor.call' op mixes tensors and memrefs}}
  %r:2 = executor.call %s("f") () : !executor.session, () -> (tensor<4xf32>, memref<4xf32>)
  return
}

// -----

// Output operands mixing with inputs is caught before the output rules.
func.func @call_mixes_tensor_input_and_memref_output(%s: !executor.session, %t: tensor<4xf32>, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op mixes tensors and memrefs}}
  executor.call %s("f") (%t, %m) {num_input_args = 1 : i32} : !executor.session, (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// call: tensor form with output operands
//===----------------------------------------------------------------------===//

func.func @call_tensor_outputs_too_many_results(%s: !executor.session, %t: tensor<4xf32>) {
  // expected-error @+1 {{'executor.call' op expects one result per output operand: 1 output operand(s) (operands #2 and after, per num_input_args) but 2 result(s)}}
  %r:2 = executor.call %s("f") (%t, %t) {num_input_args = 1 : i32} : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @call_tensor_outputs_no_results(%s: !executor.session, %t: tensor<4xf32>) {
  // expected-error @+1 {{'executor.call' op expects one result per output operand: 2 output operand(s)}}
  executor.call %s("f") (%t, %t, %t) {num_input_args = 1 : i32} : !executor.session, (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @call_tensor_result_type_differs_from_output(%s: !executor.session, %t: tensor<4xf32>) {
  // expected-error @+1 {{'executor.call' op result #0 has type 'tensor<8xf32>' but the output operand it fills (operand #2) has type 'tensor<4xf32>'}}
  %r = executor.call %s("f") (%t, %t) {num_input_args = 1 : i32} : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

// The second result is paired with the second output operand.
func.func @call_tensor_second_result_type_differs(%s: !executor.session, %a: tensor<4xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'executor.call' op result #1 has type 'tensor<4xf32>' but the output operand it fills (operand #3) has type 'tensor<2xf32>'}}
  %r:2 = executor.call %s("f") (%a, %a, %b) {num_input_args = 1 : i32} : !executor.session, (tensor<4xf32>, tensor<4xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// A static result does not fill a dynamic output operand: types must be equal.
func.func @call_tensor_result_more_static_than_output(%s: !executor.session, %t: tensor<?xf32>) {
  // expected-error @+1 {{'executor.call' op result #0 has type 'tensor<4xf32>' but the output operand it fills (operand #1) has type 'tensor<?xf32>'}}
  %r = executor.call %s("f") (%t) {num_input_args = 0 : i32} : !executor.session, (tensor<?xf32>) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// call: memref form with output operands
//===----------------------------------------------------------------------===//

func.func @call_memref_outputs_with_results(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op writes its 1 memref output operand(s) in place and so has no results, but has 1}}
  %r = executor.call %s("f") (%m, %m) {num_input_args = 1 : i32} : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// call: results without output operands
//===----------------------------------------------------------------------===//

func.func @call_no_outputs_dynamic_tensor_result(%s: !executor.session, %t: tensor<4xf32>) {
  // expected-error @+1 {{'executor.call' op result #0 has type 'tensor<?xf32>' with a dynamic shape; without output operands (num_input_args) every result needs a static shape}}
  %r = executor.call %s("f") (%t) : !executor.session, (tensor<4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @call_no_outputs_dynamic_memref_result(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op result #0 has type 'memref<?x4xf32>' with a dynamic shape}}
  %r = executor.call %s("f") (%m) : !executor.session, (memref<4xf32>) -> memref<?x4xf32>
  return
}

// -----

// num_input_args equal to the operand count leaves no output operand.
func.func @call_all_inputs_dynamic_result(%s: !executor.session, %t: tensor<?xf32>) {
  // expected-error @+1 {{'executor.call' op result #1 has type 'tensor<?xf32>' with a dynamic shape}}
  %r:2 = executor.call %s("f") (%t) {num_input_args = 1 : i32} : !executor.session, (tensor<?xf32>) -> (tensor<4xf32>, tensor<?xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// call: operand and result type constraints
//===----------------------------------------------------------------------===//

func.func @call_unranked_tensor_operand(%s: !executor.session, %t: tensor<*xf32>) {
  // expected-error @+1 {{'executor.call' op operand #1 must be variadic of ranked tensor of any type values or memref of any type values, but got 'tensor<*xf32>'}}
  executor.call %s("f") (%t) : !executor.session, (tensor<*xf32>) -> ()
  return
}

// -----

func.func @call_scalar_operand(%s: !executor.session, %x: f32) {
  // expected-error @+1 {{'executor.call' op operand #1 must be variadic of ranked tensor of any type values or memref of any type values, but got 'f32'}}
  executor.call %s("f") (%x) : !executor.session, (f32) -> ()
  return
}

// -----

func.func @call_scalar_result(%s: !executor.session) {
  // expected-error @+1 {{'executor.call' op result #0 must be variadic of ranked tensor of any type values or memref of any type values, but got 'i32'}}
  %r = executor.call %s("f") () : !executor.session, () -> i32
  return
}

// -----

func.func @call_session_operand_not_session_generic(%m: memref<4xf32>) {
  // expected-error @+1 {{'executor.call' op operand #0 must be A handle to an open executor session., but got 'memref<4xf32>'}}
  "executor.call"(%m) <{symbol = "f"}> : (memref<4xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// launch: memrefs only
//===----------------------------------------------------------------------===//

func.func @launch_tensor_operand(%s: !executor.session, %t: tensor<4xf32>) {
  // expected-error @+1 {{'executor.launch' op operand #1 must be variadic of memref of any type values, but got 'tensor<4xf32>'}}
  executor.launch %s("k", "kernels.o") (%t) : !executor.session, (tensor<4xf32>) -> ()
  return
}

// -----

func.func @launch_tensor_result(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{'executor.launch' op result #0 must be variadic of memref of any type values, but got 'tensor<4xf32>'}}
  %r = executor.launch %s("k", "kernels.o") (%m) : !executor.session, (memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @launch_unranked_memref_operand(%s: !executor.session, %m: memref<*xf32>) {
  // expected-error @+1 {{'executor.launch' op operand #1 must be variadic of memref of any type values, but got 'memref<*xf32>'}}
  executor.launch %s("k", "kernels.o") (%m) : !executor.session, (memref<*xf32>) -> ()
  return
}

// -----

// The type check covers every operand, not only the first one.
func.func @launch_second_operand_scalar(%s: !executor.session, %m: memref<4xf32>, %i: index) {
  // expected-error @+1 {{'executor.launch' op operand #2 must be variadic of memref of any type values, but got 'index'}}
  executor.launch %s("k", "kernels.o") (%m, %i) : !executor.session, (memref<4xf32>, index) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// Session and token operands
//===----------------------------------------------------------------------===//

func.func @close_i64_session(%s: i64) {
  // expected-error @+1 {{custom op 'executor.close' invalid kind of type specified: expected executor.session, but found 'i64'}}
  executor.close %s : i64
  return
}

// -----

func.func @send_binary_i64_session(%s: i64) {
  // expected-error @+1 {{custom op 'executor.send_binary' invalid kind of type specified: expected executor.session, but found 'i64'}}
  executor.send_binary %s("kernels.o") : i64
  return
}

// -----

func.func @launch_token_as_session(%t: !executor.token) {
  // expected-error @+1 {{custom op 'executor.launch' invalid kind of type specified: expected executor.session, but found '!executor.token'}}
  executor.launch %t("k", "kernels.o") () : !executor.token, () -> ()
  return
}

// -----

func.func @close_i64_session_generic(%s: i64) {
  // expected-error @+1 {{'executor.close' op operand #0 must be A handle to an open executor session., but got 'i64'}}
  "executor.close"(%s) : (i64) -> ()
  return
}

// -----

func.func @await_session_value(%s: !executor.session) {
  // expected-error @+1 {{custom op 'executor.await' invalid kind of type specified: expected executor.token, but found '!executor.session'}}
  executor.await %s : !executor.session
  return
}

// -----

func.func @await_session_value_generic(%s: !executor.session) {
  // expected-error @+1 {{'executor.await' op operand #0 must be A handle to one launch that has not finished yet., but got '!executor.session'}}
  "executor.await"(%s) : (!executor.session) -> ()
  return
}

// -----

func.func @open_token_result() {
  // expected-error @+1 {{custom op 'executor.open' invalid kind of type specified: expected executor.session, but found '!executor.token'}}
  %t = executor.open("local") : !executor.token
  return
}

// -----

func.func @launch_async_session_result(%s: !executor.session) {
  // expected-error @+1 {{custom op 'executor.launch_async' invalid kind of type specified: expected executor.token, but found '!executor.session'}}
  %t = executor.launch_async %s("k", "kernels.o") : !executor.session -> !executor.session
  return
}

// -----

func.func @launch_async_session_result_generic(%s: !executor.session) {
  // expected-error @+1 {{'executor.launch_async' op result #0 must be A handle to one launch that has not finished yet., but got '!executor.session'}}
  %t = "executor.launch_async"(%s) <{kernel_callee = "k", object = "kernels.o"}> : (!executor.session) -> !executor.session
  return
}

// -----

func.func @open_two_results_generic() {
  // expected-error @+1 {{'executor.open' op requires one result}}
  %a:2 = "executor.open"() <{address = "local"}> : () -> (!executor.session, !executor.session)
  return
}
