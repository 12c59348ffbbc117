// REQUIRES: catalyst
// The plugin's verifiers run inside Catalyst and reject bad ops with the
// messages executor-opt gives (test/Dialect/invalid.mlir), at the op. Catalyst's
// CLI neither splits input files nor honours --verify-diagnostics, so
// split-file makes one input per case and FileCheck reads the error. (It
// names every input buffer `catalyst_module`.)

// RUN: split-file %s %t
// RUN: not %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %t/empty-address.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY-ADDRESS
// RUN: not %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %t/reserved-format.mlir 2>&1 | FileCheck %s --check-prefix=RESERVED-FORMAT
// RUN: not %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %t/call-result-count.mlir 2>&1 | FileCheck %s --check-prefix=CALL-RESULT-COUNT
// RUN: not %catalyst_parse_print --load-dialect-plugin=%catalyst_plugin %t/wrong-operand-type.mlir 2>&1 | FileCheck %s --check-prefix=WRONG-OPERAND-TYPE

// An ODS attribute constraint.
// EMPTY-ADDRESS: catalyst_module:2:8: error: 'executor.open' op attribute 'address' failed to satisfy constraint: string attribute that is not empty

// An ODS constraint checked while parsing the custom form.
// RESERVED-FORMAT: catalyst_module:2:40: error: {{.*}}attribute 'format' failed to satisfy constraint: 32-bit signless integer attribute whose value is 0 (object file), 1 (asset) or 2 (shared library)

// The hand-written verifier of executor.call (C++).
// CALL-RESULT-COUNT: catalyst_module:2:10: error: 'executor.call' op expects one result per output operand: 1 output operand(s) (operands #2 and after, per num_input_args) but 2 result(s)

// A type constraint of the dialect's session type.
// WRONG-OPERAND-TYPE: catalyst_module:2:3: error: {{.*}}'executor.close' op operand #0 must be A handle to an open executor session., but got 'i64'

//--- empty-address.mlir
func.func @empty_address() {
  %s = executor.open("") : !executor.session
  return
}

//--- reserved-format.mlir
func.func @reserved_format(%s: !executor.session) {
  executor.send_binary %s("kernels.o") {format = 3 : i32} : !executor.session
  return
}

//--- call-result-count.mlir
func.func @call_result_count(%s: !executor.session, %in: tensor<4xf32>, %out: tensor<4xf32>) {
  %r:2 = executor.call %s("fill")(%in, %out) {num_input_args = 1 : i32}
      : !executor.session, (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

//--- wrong-operand-type.mlir
func.func @wrong_operand_type(%s: i64) {
  "executor.close"(%s) : (i64) -> ()
  return
}
