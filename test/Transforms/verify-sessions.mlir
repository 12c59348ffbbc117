// RUN: executor-opt %s -split-input-file -verify-diagnostics --executor-verify-sessions

// executor-verify-sessions within one function: one case per rule, on
// straight-line code, branches (scf.if, cf) and loops (scf.for, scf.while),
// then cases that must stay silent. Calls: verify-sessions-calls.mlir.

//===----------------------------------------------------------------------===//
// An op on a closed session: an error on every path, a warning on some
//===----------------------------------------------------------------------===//

func.func @launch_after_close(%x: memref<4xf32>) {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  // expected-error @+1 {{executor.launch on a session that is closed on every path reaching it}}
  executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

func.func @call_after_close_in_branch(%c: i1, %x: memref<4xf32>) {
  %s = executor.open("local") : !executor.session
  scf.if %c {
    // expected-note @+1 {{the session is closed here}}
    executor.close %s : !executor.session
  }
  // expected-warning @+1 {{executor.call on a session that is closed on some path reaching it}}
  executor.call %s("fill")(%x) : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

func.func @close_twice() {
  %s = executor.open("local") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  // expected-error @+1 {{executor.close of a session that is already closed on every path reaching it}}
  executor.close %s : !executor.session
  return
}

// -----

// Each iteration closes the session the next one launches on.
func.func @close_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  scf.for %i = %c0 to %n step %c1 {
    // expected-warning @+1 {{executor.launch on a session that is closed on some path reaching it}}
    executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
    // The close is the note of both warnings (one expected-note matches both).
    // expected-warning @+2 {{executor.close of a session that is already closed on some path reaching it}}
    // expected-note @+1 {{the session is closed here}}
    executor.close %s : !executor.session
  }
  return
}

// -----

func.func @send_after_close_in_cf_branch(%c: i1) {
  %s = executor.open("local") : !executor.session
  cf.cond_br %c, ^close, ^join
^close:
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  cf.br ^join
^join:
  // expected-warning @+1 {{executor.send_binary on a session that is closed on some path reaching it}}
  executor.send_binary %s("kernels.o") : !executor.session
  return
}

// -----

// scf.while: the `after` region closes what the next `before` launches on.
func.func @close_in_while_body(%s: !executor.session, %c: i1) {
  %t = executor.open("local") : !executor.session
  executor.send_binary %t("kernels.o") : !executor.session
  scf.while : () -> () {
    // expected-warning @+1 {{executor.launch on a session that is closed on some path reaching it}}
    executor.launch %t("step", "kernels.o")() : !executor.session, () -> ()
    scf.condition(%c)
  } do {
    // Every iteration closes it: the close of the second one fails too.
    // expected-warning @+2 {{executor.close of a session that is already closed on some path reaching it}}
    // expected-note @+1 {{the session is closed here}}
    executor.close %t : !executor.session
    scf.yield
  }
  return
}

// -----

// The runtime's open is idempotent per address: %b is %a's session, which
// closing %a closes, even spelled `local:`.
func.func @open_of_the_same_address_is_the_same_session() {
  %a = executor.open("local") : !executor.session
  %b = executor.open("local:") : !executor.session
  executor.send_binary %b("kernels.o") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %a : !executor.session
  // expected-error @+1 {{executor.launch on a session that is closed on every path reaching it}}
  executor.launch %b("step", "kernels.o")() : !executor.session, () -> ()
  return
}

// -----

// A session chosen at run time is one of two: closed if it is the first.
func.func @selected_session(%c: i1) {
  %a = executor.open("127.0.0.1:9000") : !executor.session
  %b = executor.open("127.0.0.1:9001") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %a : !executor.session
  %s = arith.select %c, %a, %b : !executor.session
  // expected-warning @+1 {{executor.send_binary on a session that is closed on some path reaching it}}
  executor.send_binary %s("kernels.o") : !executor.session
  executor.close %b : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// Tokens: awaited twice or after their session closed (an error on every
// path, a warning on some), or never awaited (a warning: the launch is lost)
//===----------------------------------------------------------------------===//

func.func @await_twice(%s: !executor.session) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  // expected-note @+1 {{the token is awaited here}}
  executor.await %t : !executor.token
  // expected-error @+1 {{executor.await of a token that is already awaited on every path reaching it}}
  executor.await %t : !executor.token
  return
}

// -----

func.func @await_twice_on_some_path(%s: !executor.session, %c: i1) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  scf.if %c {
    // expected-note @+1 {{the token is awaited here}}
    executor.await %t : !executor.token
  }
  // expected-warning @+1 {{executor.await of a token that is already awaited on some path reaching it}}
  executor.await %t : !executor.token
  return
}

// -----

// Closing the session ends the record of its launches: the await fails, and
// the launch was not awaited before the close.
func.func @await_after_close() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  // expected-warning @+1 {{the token of this executor.launch_async is not awaited on some path: the launch is lost}}
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  // expected-note @+2 {{its session is closed here}}
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  // expected-error @+1 {{executor.await of a token whose session is closed on every path reaching it: the runtime has forgotten its launch}}
  executor.await %t : !executor.token
  return
}

// -----

func.func @token_dropped_at_return(%s: !executor.session) {
  // expected-warning @+1 {{the token of this executor.launch_async is not awaited on some path: the launch is lost}}
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  // expected-note @+1 {{the function returns here without awaiting it}}
  return
}

// -----

func.func @token_awaited_on_one_branch(%s: !executor.session, %c: i1) {
  // expected-warning @+1 {{the token of this executor.launch_async is not awaited on some path: the launch is lost}}
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  scf.if %c {
    executor.await %t : !executor.token
  }
  // expected-note @+1 {{the function returns here without awaiting it}}
  return
}

// -----

// Each iteration launches again while the previous launch is not awaited.
func.func @launch_in_loop_never_awaited(%s: !executor.session, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-warning @+2 {{the token of this executor.launch_async is not awaited on some path: the launch is lost}}
    // expected-note @+1 {{it is launched again here}}
    %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  }
  // expected-note @+1 {{the function returns here without awaiting it}}
  return
}

// -----

//===----------------------------------------------------------------------===//
// A launch whose object is not sent on its session (a warning)
//===----------------------------------------------------------------------===//

func.func @object_never_sent(%x: memref<4xf32>) {
  // expected-note @+1 {{the session is opened here}}
  %s = executor.open("local") : !executor.session
  // expected-warning @+1 {{executor.launch of "scale" from "kernels.o", which is not sent on its session on any path reaching it}}
  executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
  executor.close %s : !executor.session
  return
}

// -----

func.func @object_sent_on_one_branch(%c: i1) {
  // expected-note @+1 {{the session is opened here}}
  %s = executor.open("local") : !executor.session
  scf.if %c {
    executor.send_binary %s("kernels.o") : !executor.session
  }
  // expected-warning @+1 {{executor.launch_async of "warm_up" from "kernels.o", which is not sent on its session on every path reaching it}}
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  executor.close %s : !executor.session
  return
}

// -----

// A session of another address, or one closed and opened again, holds none
// of what was sent before.
func.func @object_sent_elsewhere() {
  %a = executor.open("127.0.0.1:9000") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  // expected-note @+1 {{the session is opened here}}
  %b = executor.open("127.0.0.1:9001") : !executor.session
  // expected-warning @+1 {{executor.launch of "step" from "kernels.o", which is not sent on its session on any path reaching it}}
  executor.launch %b("step", "kernels.o")() : !executor.session, () -> ()
  executor.close %a : !executor.session
  // expected-note @+1 {{the session is opened here}}
  %c = executor.open("127.0.0.1:9000") : !executor.session
  // expected-warning @+1 {{executor.launch of "step" from "kernels.o", which is not sent on its session on any path reaching it}}
  executor.launch %c("step", "kernels.o")() : !executor.session, () -> ()
  executor.close %b : !executor.session
  executor.close %c : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// A send of a path already sent on its session on every path (a remark)
//===----------------------------------------------------------------------===//

func.func @sent_twice() {
  %s = executor.open("local") : !executor.session
  // expected-note @+1 {{it is sent here}}
  executor.send_binary %s("kernels.o") : !executor.session
  // expected-remark @+1 {{executor.send_binary of "kernels.o" is redundant: it is sent on this session on every path reaching here}}
  executor.send_binary %s("kernels.o") : !executor.session
  executor.close %s : !executor.session
  return
}

// -----

// Sent before the loop and on both branches: redundant in every iteration.
func.func @sent_before_loop_and_on_both_branches(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = executor.open("local") : !executor.session
  // expected-note @+1 {{it is sent here}}
  executor.send_binary %s("kernels.o") : !executor.session
  scf.for %i = %c0 to %n step %c1 {
    // From the second iteration on, it was also sent by itself.
    // expected-remark @+2 {{executor.send_binary of "kernels.o" is redundant: it is sent on this session on every path reaching here}}
    // expected-note @+1 {{it is sent here}}
    executor.send_binary %s("kernels.o") : !executor.session
  }
  scf.if %c {
    // expected-note @+1 {{it is sent here}}
    executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session
  } else {
    // expected-note @+1 {{it is sent here}}
    executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session
  }
  // expected-remark @+1 {{executor.send_binary of "lib.so" is redundant: it is sent on this session on every path reaching here}}
  executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session
  executor.close %s : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// Silent: correct programs, and what the analysis cannot know
//===----------------------------------------------------------------------===//

// A whole protocol, in a loop and on branches.
func.func @correct_protocol(%c: i1, %n: index, %x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session
  scf.for %i = %c0 to %n step %c1 {
    %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
    executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
    executor.await %t : !executor.token
  }
  scf.if %c {
    executor.call %s("fill")(%x) : !executor.session, (memref<4xf32>) -> ()
  }
  executor.close %s : !executor.session
  return
}

// -----

// Sessions and tokens from outside the module are unknown.
func.func @arguments_are_unknown(%s: !executor.session, %t: !executor.token) {
  executor.launch %s("scale", "kernels.o")() : !executor.session, () -> ()
  executor.await %t : !executor.token
  executor.close %s : !executor.session
  return
}

// -----

// A session or token given to code outside the module may be used there.
func.func private @keep(!executor.session, !executor.token)

func.func @escaped() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  func.call @keep(%s, %t) : (!executor.session, !executor.token) -> ()
  executor.send_binary %s("kernels.o") : !executor.session
  return
}

// -----

// A token returned, or carried to the next iteration and awaited there, is
// not lost.
func.func @token_returned(%s: !executor.session) -> !executor.token {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  return %t : !executor.token
}

func.func @token_carried(%s: !executor.session, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%previous = %first) -> !executor.token {
    executor.await %previous : !executor.token
    %next = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
    scf.yield %next : !executor.token
  }
  executor.await %last : !executor.token
  return
}

// -----

// The same binary on two sessions is sent twice, and a loop that may not
// run sends nothing for sure.
func.func @not_redundant(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = executor.open("127.0.0.1:9000") : !executor.session
  %b = executor.open("127.0.0.1:9001") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  executor.send_binary %b("kernels.o") : !executor.session
  scf.for %i = %c0 to %n step %c1 {
    executor.send_binary %a("lib.so") {format = 1 : i32} : !executor.session
  }
  executor.send_binary %a("lib.so") {format = 1 : i32} : !executor.session
  executor.close %a : !executor.session
  executor.close %b : !executor.session
  return
}

// -----

// A session chosen by a branch, each branch sending the object on its own:
// the launch has it whichever session it uses.
func.func @session_chosen_by_a_branch(%c: i1) {
  %s = scf.if %c -> !executor.session {
    %a = executor.open("127.0.0.1:9000") : !executor.session
    executor.send_binary %a("kernels.o") : !executor.session
    scf.yield %a : !executor.session
  } else {
    %b = executor.open("127.0.0.1:9001") : !executor.session
    executor.send_binary %b("kernels.o") : !executor.session
    scf.yield %b : !executor.session
  }
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  executor.close %s : !executor.session
  return
}

// -----

// A loop made of cf branches, a callee awaiting the token it is given, and
// scf.index_switch, scf.execute_region and scf.while carrying values.
func.func private @await_then_launch(%s: !executor.session, %t: !executor.token) {
  executor.await %t : !executor.token
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

func.func @cf_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  cf.br ^header(%c0 : index)
^header(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit
^body:
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  func.call @await_then_launch(%s, %t) : (!executor.session, !executor.token) -> ()
  %next = arith.addi %i, %c1 : index
  cf.br ^header(%next : index)
^exit:
  executor.close %s : !executor.session
  return
}

func.func @switch_region_and_while(%k: index, %n: i32) {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  scf.index_switch %k
  case 0 {
    executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
    scf.yield
  }
  default {
    executor.call %s("ping")() : !executor.session, () -> ()
  }
  %token = scf.execute_region -> !executor.token {
    %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
    scf.yield %t : !executor.token
  }
  executor.await %token : !executor.token
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %last:2 = scf.while (%session = %s, %i = %zero) : (!executor.session, i32) -> (!executor.session, i32) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %session, %i : !executor.session, i32
  } do {
  ^bb0(%session: !executor.session, %i: i32):
    executor.launch %session("step", "kernels.o")() : !executor.session, () -> ()
    %j = arith.addi %i, %one : i32
    scf.yield %session, %j : !executor.session, i32
  }
  executor.close %last#0 : !executor.session
  return
}

// -----

// Inside ops the analysis does not model, anything may happen: nothing
// after them is certain enough to report.
func.func @unmodeled_region(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = executor.open("local") : !executor.session
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    executor.close %s : !executor.session
    scf.reduce
  }
  executor.send_binary %s("kernels.o") : !executor.session
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}
