// RUN: executor-opt %s -split-input-file -verify-diagnostics

// Parse errors of the executor dialect's custom assembly: every case must be
// reported as one diagnostic (never a crash) at the offending token.

//===----------------------------------------------------------------------===//
// Unknown ops and types
//===----------------------------------------------------------------------===//

func.func @unknown_op_frobnicate() {
  // expected-error @+1 {{custom op 'executor.frobnicate' is unknown}}
  executor.frobnicate
  return
}

// -----

func.func @unknown_op_frobnicate_generic() {
  // expected-error @+1 {{unregistered operation 'executor.frobnicate' found in dialect ('executor') that does not allow unknown operations}}
  "executor.frobnicate"() : () -> ()
  return
}

// -----

// expected-error @+1 {{unknown  type `foo` in dialect `executor`}}
func.func @unknown_type_foo(%s: !executor.foo) {
  return
}

// -----

// Type mnemonics are case sensitive.
// expected-error @+1 {{unknown  type `Session` in dialect `executor`}}
func.func @unknown_type_capitalized(%s: !executor.Session) {
  return
}

// -----

// The dialect namespace alone is not a type (it is read as an alias).
// expected-error @+1 {{undefined symbol alias id 'executor'}}
func.func @type_without_mnemonic(%s: !executor) {
  return
}

// -----

// A session is not a valid memref element type.
// expected-error @+1 {{invalid memref element type}}
func.func @session_memref_element(%m: memref<4x!executor.session>) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// Missing or wrong type lists
//===----------------------------------------------------------------------===//

func.func @open_missing_colon_type() {
  // expected-error @+1 {{expected ':'}}
  %s = executor.open("local")
  return
}

// -----

func.func @close_missing_colon_type(%s: !executor.session) {
  // expected-error @+1 {{expected ':'}}
  executor.close %s
  return
}

// -----

func.func @await_missing_type(%t: !executor.token) {
  // expected-error @+1 {{expected non-function type}}
  executor.await %t :
  return
}

// -----

func.func @open_wrong_result_type() {
  // expected-error @+1 {{custom op 'executor.open' invalid kind of type specified: expected executor.session, but found 'i32'}}
  %s = executor.open("local") : i32
  return
}

// -----

func.func @launch_missing_functional_type(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{expected ','}}
  executor.launch %s("k", "kernels.o") (%m) : !executor.session
  return
}

// -----

func.func @launch_missing_session_type(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{custom op 'executor.launch' invalid kind of type specified: expected executor.session, but found '(memref<4xf32>) -> ()'}}
  executor.launch %s("k", "kernels.o") (%m) : (memref<4xf32>) -> ()
  return
}

// -----

func.func @launch_type_list_too_long(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{custom op 'executor.launch' number of operands and types do not match: got 1 operands and 2 types}}
  executor.launch %s("k", "kernels.o") (%m) : !executor.session, (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @launch_operand_type_differs_from_definition(%s: !executor.session, %m: memref<4xf32>) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'memref<8xf32>' vs 'memref<4xf32>'}}
  executor.launch %s("k", "kernels.o") (%m) : !executor.session, (memref<8xf32>) -> ()
  return
}

// -----

func.func @await_session_typed_value(%s: !executor.session) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%s' expects different type than prior uses: '!executor.token' vs '!executor.session'}}
  executor.await %s : !executor.token
  return
}

// -----

func.func @launch_async_missing_arrow(%s: !executor.session) {
  // expected-error @+1 {{expected '->'}}
  %t = executor.launch_async %s("k", "kernels.o") : !executor.session
  return
}

// -----

func.func @call_type_list_not_functional(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{custom op 'executor.call' invalid kind of type specified: expected builtin.function, but found 'memref<4xf32>'}}
  executor.call %s("f") (%m) : !executor.session, memref<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Parentheses, commas and operands
//===----------------------------------------------------------------------===//

func.func @open_missing_parentheses() {
  // expected-error @+1 {{expected '('}}
  %s = executor.open "local" : !executor.session
  return
}

// -----

func.func @open_unclosed_parenthesis() {
  // expected-error @+1 {{expected ')'}}
  %s = executor.open("local" : !executor.session
  return
}

// -----

func.func @send_binary_missing_parentheses(%s: !executor.session) {
  // expected-error @+1 {{expected '('}}
  executor.send_binary %s "kernels.o" : !executor.session
  return
}

// -----

func.func @launch_inputs_without_parentheses(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{expected '('}}
  executor.launch %s("k", "kernels.o") %m : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

func.func @launch_missing_object(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{expected ','}}
  executor.launch %s("k") (%m) : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

func.func @call_missing_input_list(%s: !executor.session) {
  // expected-error @+1 {{expected '('}}
  executor.call %s("f") : !executor.session, () -> ()
  return
}

// -----

func.func @close_two_operands(%s: !executor.session) {
  // expected-error @+1 {{expected ':'}}
  executor.close %s, %s : !executor.session
  return
}

// -----

func.func @await_missing_operand(%t: !executor.token) {
  // expected-error @+1 {{expected SSA operand}}
  executor.await : !executor.token
  return
}

// -----

func.func @close_undefined_value() {
  // expected-error @+1 {{use of undeclared SSA value name}}
  executor.close %nope : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

func.func @open_integer_address() {
  // expected-error @+1 {{integer literal not valid for specified type}}
  %s = executor.open(1) : !executor.session
  return
}

// -----

func.func @launch_symbol_ref_callee(%s: !executor.session) {
  // expected-error @+1 {{invalid kind of attribute specified}}
  executor.launch %s(@k, "kernels.o") () : !executor.session, () -> ()
  return
}

// -----

func.func @send_binary_unquoted_path(%s: !executor.session) {
  // expected-error @+1 {{expected attribute value}}
  executor.send_binary %s(kernels.o) : !executor.session
  return
}

// -----

func.func @open_unterminated_string() {
  // expected-error @+1 {{expected '"' in string literal}}
  %s = executor.open("local) : !executor.session
  return
}

// -----

func.func @send_binary_format_as_string(%s: !executor.session) {
  // expected-error @+1 {{attribute 'format' failed to satisfy constraint: 32-bit signless integer attribute}}
  executor.send_binary %s("kernels.o") {format = "1"} : !executor.session
  return
}

// -----

func.func @send_binary_unclosed_attr_dict(%s: !executor.session) {
  // expected-error @+1 {{expected '}' in attribute dictionary}}
  executor.send_binary %s("kernels.o") {format = 1 : i32 : !executor.session
  return
}

// -----

func.func @send_binary_attr_without_braces(%s: !executor.session) {
  // expected-error @+1 {{expected ':'}}
  executor.send_binary %s("kernels.o") format = 1 : !executor.session
  return
}

// -----

func.func @call_num_input_args_as_string(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{attribute 'num_input_args' failed to satisfy constraint: 32-bit signless integer attribute}}
  executor.call %s("f") (%m) {num_input_args = "1"} : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// Result binding
//===----------------------------------------------------------------------===//

func.func @open_two_results_bound() {
  // expected-error @+1 {{operation defines 1 results but was provided 2 to bind}}
  %a, %b = executor.open("local") : !executor.session
  return
}

// -----

func.func @close_result_bound(%s: !executor.session) {
  // expected-error @+1 {{cannot name an operation with no results}}
  %r = executor.close %s : !executor.session
  return
}

// -----

func.func @launch_no_results_named(%s: !executor.session, %m: memref<4xf32>) {
  // expected-error @+1 {{cannot name an operation with no results}}
  %r = executor.launch %s("k", "kernels.o") (%m) : !executor.session, (memref<4xf32>) -> ()
  return
}
