// RUN: executor-opt %s | executor-opt | FileCheck %s
// RUN: executor-opt %s --mlir-print-op-generic | executor-opt | FileCheck %s
// RUN: executor-opt %s --emit-bytecode | executor-opt | FileCheck %s

// The two types of the executor dialect, !executor.session and
// !executor.token, anywhere a type may appear: function signatures, block
// arguments, region iteration arguments, call results, type attributes and
// container element types.

// CHECK-LABEL: func.func private @session_argument(!executor.session){{$}}
func.func private @session_argument(!executor.session)

// CHECK-LABEL: func.func private @token_argument(!executor.token){{$}}
func.func private @token_argument(!executor.token)

// CHECK-LABEL: func.func private @make_handles() -> (!executor.session, !executor.token){{$}}
func.func private @make_handles() -> (!executor.session, !executor.token)

// CHECK-LABEL: func.func @identity_session(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session) -> !executor.session {
//  CHECK-NEXT:   return %[[S]] : !executor.session
func.func @identity_session(%s: !executor.session) -> !executor.session {
  return %s : !executor.session
}

// CHECK-LABEL: func.func @identity_token(
//  CHECK-SAME:     %[[T:arg[0-9]+]]: !executor.token) -> !executor.token {
//  CHECK-NEXT:   return %[[T]] : !executor.token
func.func @identity_token(%t: !executor.token) -> !executor.token {
  return %t : !executor.token
}

// Both types in one signature, in both positions, with other types around.
// CHECK-LABEL: func.func @mixed_signature(
//  CHECK-SAME:     %{{.*}}: i32, %{{.*}}: !executor.token, %{{.*}}: !executor.session, %{{.*}}: memref<4xf32>)
//  CHECK-SAME:     -> (!executor.token, i32, !executor.session)
func.func @mixed_signature(%i: i32, %t: !executor.token, %s: !executor.session, %m: memref<4xf32>) -> (!executor.token, i32, !executor.session) {
  return %t, %i, %s : !executor.token, i32, !executor.session
}

// func.call results of executor types.
// CHECK-LABEL: func.func @call_results()
//       CHECK:   %[[H:[0-9]+]]:2 = call @make_handles() : () -> (!executor.session, !executor.token)
//  CHECK-NEXT:   executor.await %[[H]]#1 : !executor.token
//  CHECK-NEXT:   executor.close %[[H]]#0 : !executor.session
func.func @call_results() {
  %s, %t = func.call @make_handles() : () -> (!executor.session, !executor.token)
  executor.await %t : !executor.token
  executor.close %s : !executor.session
  return
}

// func.call operands of executor types.
// CHECK-LABEL: func.func @call_operands(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[T:arg[0-9]+]]: !executor.token)
//       CHECK:   call @session_argument(%[[S]]) : (!executor.session) -> ()
//  CHECK-NEXT:   call @token_argument(%[[T]]) : (!executor.token) -> ()
func.func @call_operands(%s: !executor.session, %t: !executor.token) {
  func.call @session_argument(%s) : (!executor.session) -> ()
  func.call @token_argument(%t) : (!executor.token) -> ()
  return
}

// Block arguments of both types, passed along branches.
// CHECK-LABEL: func.func @block_arguments(
//  CHECK-SAME:     %[[C:arg[0-9]+]]: i1, %[[A:arg[0-9]+]]: !executor.session, %[[B:arg[0-9]+]]: !executor.session, %[[T:arg[0-9]+]]: !executor.token)
//       CHECK:   cf.cond_br %[[C]], ^[[BB:bb[0-9]+]](%[[A]], %[[T]] : !executor.session, !executor.token), ^[[BB]](%[[B]], %[[T]] : !executor.session, !executor.token)
//       CHECK: ^[[BB]](%[[X:[0-9]+]]: !executor.session, %[[Y:[0-9]+]]: !executor.token):
//  CHECK-NEXT:   executor.await %[[Y]] : !executor.token
//  CHECK-NEXT:   executor.close %[[X]] : !executor.session
func.func @block_arguments(%c: i1, %a: !executor.session, %b: !executor.session, %t: !executor.token) {
  cf.cond_br %c, ^bb1(%a, %t : !executor.session, !executor.token), ^bb1(%b, %t : !executor.session, !executor.token)
^bb1(%x: !executor.session, %y: !executor.token):
  executor.await %y : !executor.token
  executor.close %x : !executor.session
  return
}

// A session carried through scf.for iter_args, a token yielded per iteration.
// CHECK-LABEL: func.func @scf_for_iter_args(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: !executor.session, %[[N:arg[0-9]+]]: index) -> !executor.session
//       CHECK:   %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[IT:arg[0-9]+]] = %[[S]]) -> (!executor.session) {
//  CHECK-NEXT:     %[[T:.*]] = executor.launch_async %[[IT]]("step", "kernels.o") : !executor.session -> !executor.token
//  CHECK-NEXT:     executor.await %[[T]] : !executor.token
//  CHECK-NEXT:     scf.yield %[[IT]] : !executor.session
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[R]] : !executor.session
func.func @scf_for_iter_args(%s: !executor.session, %n: index) -> !executor.session {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %s) -> (!executor.session) {
    %t = executor.launch_async %it("step", "kernels.o") : !executor.session -> !executor.token
    executor.await %t : !executor.token
    scf.yield %it : !executor.session
  }
  return %r : !executor.session
}

// Both types as scf.for iter_args; the last token is awaited after the loop.
// CHECK-LABEL: func.func @scf_for_token_iter_arg(
//       CHECK:   %[[R:[0-9]+]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:arg[0-9]+]] = %arg{{[0-9]+}}, %[[T:arg[0-9]+]] = %arg{{[0-9]+}}) -> (!executor.session, !executor.token) {
//       CHECK:     executor.await %[[T]] : !executor.token
//       CHECK:     %[[T2:.*]] = executor.launch_async %[[S]]("step", "kernels.o") : !executor.session -> !executor.token
//  CHECK-NEXT:     scf.yield %[[S]], %[[T2]] : !executor.session, !executor.token
//       CHECK:   executor.await %[[R]]#1 : !executor.token
//  CHECK-NEXT:   return %[[R]]#0 : !executor.session
func.func @scf_for_token_iter_arg(%s: !executor.session, %t0: !executor.token, %n: index) -> !executor.session {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%si = %s, %ti = %t0) -> (!executor.session, !executor.token) {
    executor.await %ti : !executor.token
    %t = executor.launch_async %si("step", "kernels.o") : !executor.session -> !executor.token
    scf.yield %si, %t : !executor.session, !executor.token
  }
  executor.await %r#1 : !executor.token
  return %r#0 : !executor.session
}

// scf.if yielding a session opened on either branch.
// CHECK-LABEL: func.func @scf_if_result(
//       CHECK:   %[[S:.*]] = scf.if %{{.*}} -> (!executor.session) {
//       CHECK:     executor.open("a") : !executor.session
//       CHECK:   } else {
//       CHECK:     executor.open("b") : !executor.session
//       CHECK:   return %[[S]] : !executor.session
func.func @scf_if_result(%c: i1) -> !executor.session {
  %s = scf.if %c -> (!executor.session) {
    %a = executor.open("a") : !executor.session
    scf.yield %a : !executor.session
  } else {
    %b = executor.open("b") : !executor.session
    scf.yield %b : !executor.session
  }
  return %s : !executor.session
}

// The types in a generic value-forwarding op (arith.select takes any type).
// CHECK-LABEL: func.func @select_token(
//       CHECK:   %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : !executor.token
//       CHECK:   return %[[R]] : !executor.token
func.func @select_token(%c: i1, %a: !executor.token, %b: !executor.token) -> !executor.token {
  %r = arith.select %c, %a, %b : !executor.token
  return %r : !executor.token
}

// The types as type attributes and as tensor element types.
// CHECK-LABEL: func.func private @type_attributes()
//  CHECK-SAME:     attributes {handles = [!executor.session, !executor.token], nested = tensor<2x!executor.token>}
func.func private @type_attributes() attributes {nested = tensor<2x!executor.token>, handles = [!executor.session, !executor.token]}

// CHECK-LABEL: func.func private @tensor_of_sessions(tensor<?x!executor.session>) -> tuple<!executor.session, !executor.token>{{$}}
func.func private @tensor_of_sessions(tensor<?x!executor.session>) -> tuple<!executor.session, !executor.token>

// Function types mentioning the executor types, as an attribute value.
// CHECK-LABEL: func.func private @function_type_attribute()
//  CHECK-SAME:     attributes {sig = (!executor.session) -> !executor.token}
func.func private @function_type_attribute() attributes {sig = (!executor.session) -> !executor.token}
