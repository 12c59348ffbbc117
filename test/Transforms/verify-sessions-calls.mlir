// RUN: executor-opt %s -split-input-file -verify-diagnostics --executor-verify-sessions

// executor-verify-sessions through func.call: a callee is analysed in each
// of its callers' contexts, and what it does to the sessions and tokens it
// is passed (or opens itself) holds in the caller after the call.

// A private callee has only the contexts of its calls: here, one closed
// session.
func.func private @launch_on(%s: !executor.session) {
  // expected-error @+1 {{executor.launch on a session that is closed on every path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

func.func @closes_then_calls() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  func.call @launch_on(%s) : (!executor.session) -> ()
  return
}

// -----

// Two callers, one passing a closed session: closed on some path.
func.func private @launch_on(%s: !executor.session) {
  // expected-warning @+1 {{executor.launch on a session that is closed on some path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

func.func @passes_an_open_session() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  func.call @launch_on(%s) : (!executor.session) -> ()
  executor.close %s : !executor.session
  return
}

func.func @passes_a_closed_session() {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  func.call @launch_on(%s) : (!executor.session) -> ()
  return
}

// -----

// A public callee may also be called from outside with any session: what
// its callers in the module pass is then only some of its paths.
func.func @public_launch_on(%s: !executor.session) {
  // expected-warning @+1 {{executor.launch on a session that is closed on some path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

func.func @calls_the_public_one() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  func.call @public_launch_on(%s) : (!executor.session) -> ()
  return
}

// -----

// What the callee does holds after the call: it closed the session.
func.func private @finish(%s: !executor.session) {
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  return
}

func.func @launch_after_finish() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  func.call @finish(%s) : (!executor.session) -> ()
  // expected-error @+1 {{executor.launch on a session that is closed on every path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

// -----

// A callee that opens the same address gets the caller's session, and
// closing it closes the caller's.
func.func private @ping() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("ping.so") {format = 1 : i32} : !executor.session
  executor.call %s("ping")() : !executor.session, () -> ()
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  return
}

func.func @session_closed_by_a_callee_of_the_same_address() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  func.call @ping() : () -> ()
  // expected-error @+1 {{executor.launch on a session that is closed on every path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

// -----

// Binaries a callee sends are on the session after the call, and a caller's
// send makes the callee's redundant.
func.func private @load(%s: !executor.session) {
  // expected-remark @+1 {{executor.send_binary of "lib.so" is redundant: it is sent on this session on every path reaching here}}
  executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  return
}

func.func @sent_by_a_callee() {
  %s = executor.open("local") : !executor.session
  // expected-note @+1 {{it is sent here}}
  executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session
  func.call @load(%s) : (!executor.session) -> ()
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  executor.close %s : !executor.session
  return
}

// -----

// Tokens: awaited by a callee, then again by the caller.
func.func private @wait(%t: !executor.token) {
  // expected-note @+1 {{the token is awaited here}}
  executor.await %t : !executor.token
  return
}

func.func @await_after_a_callee_awaited(%s: !executor.session) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  func.call @wait(%t) : (!executor.token) -> ()
  // expected-error @+1 {{executor.await of a token that is already awaited on every path reaching it}}
  executor.await %t : !executor.token
  return
}

// -----

// A token a callee returns is the caller's to await; the caller drops it.
func.func private @start(%s: !executor.session) -> !executor.token {
  // expected-warning @+1 {{the token of this executor.launch_async is not awaited on some path: the launch is lost}}
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  return %t : !executor.token
}

func.func @drops_a_returned_token(%s: !executor.session) {
  %t = func.call @start(%s) : (!executor.session) -> !executor.token
  // expected-note @+1 {{the function returns here without awaiting it}}
  return
}

func.func @awaits_a_returned_token(%s: !executor.session) {
  %t = func.call @start(%s) : (!executor.session) -> !executor.token
  executor.await %t : !executor.token
  return
}

// -----

// A session a callee opens and returns is the caller's.
func.func private @connect() -> !executor.session {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  return %s : !executor.session
}

func.func @uses_a_returned_session() {
  %s = func.call @connect() : () -> !executor.session
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  // expected-error @+1 {{executor.launch on a session that is closed on every path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

// -----

// Recursion is followed once; the recursive call is unknown code that may
// do anything with the session. The path that closes it is known, so the
// launch after the call is on a closed session on some path (on every path
// in fact, which the analysis cannot see through the recursion).
func.func private @countdown(%s: !executor.session, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  scf.if %done {
    // expected-note @+1 {{the session is closed here}}
    executor.close %s : !executor.session
  } else {
    executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
    %m = arith.subi %n, %c1 : index
    func.call @countdown(%s, %m) : (!executor.session, index) -> ()
  }
  return
}

func.func @recursive(%n: index) {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  func.call @countdown(%s, %n) : (!executor.session, index) -> ()
  // expected-warning @+1 {{executor.launch on a session that is closed on some path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}
