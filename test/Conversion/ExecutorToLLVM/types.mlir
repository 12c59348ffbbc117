// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s
// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s --check-prefix=NOHANDLE

// !executor.session and !executor.token become i64 wherever they appear:
// function signatures (definitions and declarations), func.call, region
// arguments and results of scf ops, and block arguments of cf branches. The
// values keep flowing unchanged; only their type changes.

// Not a single session or token type is left in any of the cases below.
// NOHANDLE-NOT: !executor.session
// NOHANDLE-NOT: !executor.token

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @make_session() -> i64 {
//       CHECK:   %[[S:.*]] = llvm.call @__catalyst__executor__open(%{{.*}}) : (!llvm.ptr) -> i64
//       CHECK:   return %[[S]] : i64
// CHECK-LABEL: func.func @session_from_another_function() {
//       CHECK:   %[[S:.*]] = call @make_session() : () -> i64
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[S]]) : (i64) -> i64
func.func @make_session() -> !executor.session {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  return %s : !executor.session
}
func.func @session_from_another_function() {
  %s = func.call @make_session() : () -> !executor.session
  executor.close %s : !executor.session
  return
}

// -----

// CHECK-LABEL: func.func private @external_session() -> i64{{$}}
// CHECK-LABEL: func.func @session_from_external_declaration() {
//       CHECK:   %[[S:.*]] = call @external_session() : () -> i64
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[S]]) : (i64) -> i64
func.func private @external_session() -> !executor.session
func.func @session_from_external_declaration() {
  %s = func.call @external_session() : () -> !executor.session
  executor.close %s : !executor.session
  return
}

// -----

// CHECK-LABEL: func.func @close_session_argument(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64) {
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[S]]) : (i64) -> i64
// CHECK-LABEL: func.func @session_passed_to_function() {
//       CHECK:   %[[S:.*]] = llvm.call @__catalyst__executor__open(%{{.*}}) : (!llvm.ptr) -> i64
//  CHECK-NEXT:   call @close_session_argument(%[[S]]) : (i64) -> ()
func.func @close_session_argument(%s: !executor.session) {
  executor.close %s : !executor.session
  return
}
func.func @session_passed_to_function() {
  %s = executor.open("localhost") : !executor.session
  func.call @close_session_argument(%s) : (!executor.session) -> ()
  return
}

// -----

// Only the session of a mixed signature changes.
// CHECK-LABEL: func.func @session_among_other_results(
//  CHECK-SAME:     %{{.*}}: memref<4xf32>) -> (memref<4xf32>, i64) {
//       CHECK:   %[[S:.*]] = llvm.call @__catalyst__executor__open(
//       CHECK:   return %{{.*}}, %[[S]] : memref<4xf32>, i64
func.func @session_among_other_results(%m: memref<4xf32>) -> (memref<4xf32>, !executor.session) {
  %s = executor.open("localhost") : !executor.session
  return %m, %s : memref<4xf32>, !executor.session
}

// -----

// CHECK-LABEL: func.func @await_token_argument(
//  CHECK-SAME:     %[[T:arg[0-9]+]]: i64) {
//  CHECK-NEXT:   llvm.call @__catalyst__executor__await(%[[T]]) : (i64) -> ()
// CHECK-LABEL: func.func @token_passed_to_function(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64) {
//       CHECK:   %[[T:.*]] = llvm.call @__catalyst__executor__launch_async(%[[S]], %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr) -> i64
//  CHECK-NEXT:   call @await_token_argument(%[[T]]) : (i64) -> ()
func.func @await_token_argument(%t: !executor.token) {
  executor.await %t : !executor.token
  return
}
func.func @token_passed_to_function(%s: !executor.session) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  func.call @await_token_argument(%t) : (!executor.token) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @token_returned(
//  CHECK-SAME:     %{{.*}}: i64) -> i64 {
//       CHECK:   %[[T:.*]] = llvm.call @__catalyst__executor__launch_async(
//  CHECK-NEXT:   return %[[T]] : i64
func.func @token_returned(%s: !executor.session) -> !executor.token {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  return %t : !executor.token
}

// -----

//===----------------------------------------------------------------------===//
// Structured control flow
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @scf_for_iter_arg_session(
//       CHECK:   %[[S0:.*]] = llvm.call @__catalyst__executor__open(
//       CHECK:   %[[RES:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CUR:.*]] = %[[S0]]) -> (i64) {
//       CHECK:     llvm.call @__catalyst__executor__close(%[[CUR]]) : (i64) -> i64
//       CHECK:     %[[NEXT:.*]] = llvm.call @__catalyst__executor__open(
//       CHECK:     scf.yield %[[NEXT]] : i64
//       CHECK:   }
//       CHECK:   llvm.call @__catalyst__executor__close(%[[RES]]) : (i64) -> i64
func.func @scf_for_iter_arg_session(%lb: index, %ub: index, %step: index) {
  %s0 = executor.open("first") : !executor.session
  %s = scf.for %i = %lb to %ub step %step iter_args(%cur = %s0) -> (!executor.session) {
    executor.close %cur : !executor.session
    %next = executor.open("next") : !executor.session
    scf.yield %next : !executor.session
  }
  executor.close %s : !executor.session
  return
}

// -----

// CHECK-LABEL: func.func @scf_if_result_session(
//       CHECK:   %[[S:.*]] = scf.if %{{.*}} -> (i64) {
//       CHECK:     %[[A:.*]] = llvm.call @__catalyst__executor__open(
//       CHECK:     scf.yield %[[A]] : i64
//       CHECK:   } else {
//       CHECK:     %[[B:.*]] = llvm.call @__catalyst__executor__open(
//       CHECK:     scf.yield %[[B]] : i64
//       CHECK:   }
//       CHECK:   llvm.call @__catalyst__executor__close(%[[S]]) : (i64) -> i64
func.func @scf_if_result_session(%c: i1) {
  %s = scf.if %c -> !executor.session {
    %a = executor.open("host-a") : !executor.session
    scf.yield %a : !executor.session
  } else {
    %b = executor.open("host-b") : !executor.session
    scf.yield %b : !executor.session
  }
  executor.close %s : !executor.session
  return
}

// -----

// CHECK-LABEL: func.func @scf_while_carries_session(
//       CHECK:   %[[S0:.*]] = llvm.call @__catalyst__executor__open(
//       CHECK:   %[[RES:.*]]:2 = scf.while (%[[B:.*]] = %[[S0]], %{{.*}} = %{{.*}}) : (i64, i64) -> (i64, i64) {
//       CHECK:     scf.condition(%{{.*}}) %[[B]], %{{.*}} : i64, i64
//       CHECK:   } do {
//       CHECK:   ^bb0(%[[A:.*]]: i64, %{{.*}}: i64):
//       CHECK:     scf.yield %[[A]], %{{.*}} : i64, i64
//       CHECK:   }
//       CHECK:   llvm.call @__catalyst__executor__close(%[[RES]]#0) : (i64) -> i64
func.func @scf_while_carries_session(%n: i64) {
  %s0 = executor.open("localhost") : !executor.session
  %c0 = arith.constant 0 : i64
  %r:2 = scf.while (%s = %s0, %i = %c0) : (!executor.session, i64) -> (!executor.session, i64) {
    %cond = arith.cmpi slt, %i, %n : i64
    scf.condition(%cond) %s, %i : !executor.session, i64
  } do {
  ^bb0(%s: !executor.session, %i: i64):
    %c1 = arith.constant 1 : i64
    %j = arith.addi %i, %c1 : i64
    scf.yield %s, %j : !executor.session, i64
  }
  executor.close %r#0 : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// Unstructured control flow
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cf_br_block_argument_session(
//       CHECK:   %[[S:.*]] = llvm.call @__catalyst__executor__open(
//  CHECK-NEXT:   cf.br ^[[BB:.*]](%[[S]] : i64)
//       CHECK: ^[[BB]](%[[ARG:.*]]: i64):
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[ARG]]) : (i64) -> i64
func.func @cf_br_block_argument_session() {
  %a = executor.open("localhost") : !executor.session
  cf.br ^bb1(%a : !executor.session)
^bb1(%s: !executor.session):
  executor.close %s : !executor.session
  return
}

// -----

// CHECK-LABEL: func.func @cf_cond_br_block_argument_session(
//  CHECK-SAME:     %[[C:arg[0-9]+]]: i1, %[[A:arg[0-9]+]]: i64, %[[B:arg[0-9]+]]: i64) {
//  CHECK-NEXT:   cf.cond_br %[[C]], ^[[BB:.*]](%[[A]] : i64), ^[[BB]](%[[B]] : i64)
//       CHECK: ^[[BB]](%[[ARG:.*]]: i64):
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[ARG]]) : (i64) -> i64
func.func @cf_cond_br_block_argument_session(%c: i1, %a: !executor.session, %b: !executor.session) {
  cf.cond_br %c, ^bb1(%a : !executor.session), ^bb1(%b : !executor.session)
^bb1(%s: !executor.session):
  executor.close %s : !executor.session
  return
}

// -----

// CHECK-LABEL: func.func @cf_br_block_argument_token(
//       CHECK:   %[[T:.*]] = llvm.call @__catalyst__executor__launch_async(
//  CHECK-NEXT:   cf.br ^[[BB:.*]](%[[T]] : i64)
//       CHECK: ^[[BB]](%[[ARG:.*]]: i64):
//  CHECK-NEXT:   llvm.call @__catalyst__executor__await(%[[ARG]]) : (i64) -> ()
func.func @cf_br_block_argument_token(%s: !executor.session) {
  %t0 = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  cf.br ^bb1(%t0 : !executor.token)
^bb1(%t: !executor.token):
  executor.await %t : !executor.token
  return
}

// -----

// A session flowing through an op that is not an executor op (here
// arith.select) is retyped too, even in a module without executor ops.
// CHECK-LABEL: func.func @select_between_sessions(
//  CHECK-SAME:     %[[C:arg[0-9]+]]: i1, %[[A:arg[0-9]+]]: i64, %[[B:arg[0-9]+]]: i64) -> i64 {
//  CHECK-NEXT:   %[[S:.*]] = arith.select %[[C]], %[[A]], %[[B]] : i64
//  CHECK-NEXT:   return %[[S]] : i64
func.func @select_between_sessions(%c: i1, %a: !executor.session, %b: !executor.session) -> !executor.session {
  %s = arith.select %c, %a, %b : !executor.session
  return %s : !executor.session
}

// -----

// A handle inside a function type (func.constant, func.call_indirect) becomes
// i64 as well.

func.func private @connect() -> !executor.session

// CHECK-LABEL: func.func @session_through_indirect_call
// CHECK:         %[[F:.*]] = constant @connect : () -> i64
// CHECK-NEXT:    %[[S:.*]] = call_indirect %[[F]]() : () -> i64
// CHECK-NEXT:    llvm.call @__catalyst__executor__close(%[[S]])
func.func @session_through_indirect_call() {
  %f = func.constant @connect : () -> !executor.session
  %s = func.call_indirect %f() : () -> !executor.session
  executor.close %s : !executor.session
  return
}

// -----

// A type attribute that states the type of an op's block arguments follows
// them: omp.declare_reduction's verifier requires its `type` to match its
// regions' arguments (found by make fuzz, seed 7).
// CHECK-LABEL: omp.declare_reduction @session_reduction : i64 init {
//  CHECK-NEXT: ^bb0(%[[I:.*]]: i64):
//  CHECK-NEXT:   omp.yield(%[[I]] : i64)
//  CHECK-NEXT: } combiner {
//  CHECK-NEXT: ^bb0(%[[A:.*]]: i64, %{{.*}}: i64):
//  CHECK-NEXT:   omp.yield(%[[A]] : i64)
omp.declare_reduction @session_reduction : !executor.session init {
^bb0(%a: !executor.session):
  omp.yield(%a : !executor.session)
} combiner {
^bb0(%a: !executor.session, %b: !executor.session):
  omp.yield(%a : !executor.session)
}
