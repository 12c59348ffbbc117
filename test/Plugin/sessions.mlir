// executor-verify-sessions and executor-optimize from the pass plugin in
// upstream mlir-opt: the same diagnostics and the same module as in
// executor-opt; executor-llvm-lowering-stage runs the checker first, and
// its option verify-sessions=false turns it off.

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   -verify-diagnostics --pass-pipeline='builtin.module(executor-verify-sessions)' -o /dev/null

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(executor-optimize{reuse-sessions=true})' 2>/dev/null > %t.plugin.mlir
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-optimize{reuse-sessions=true})' 2>/dev/null > %t.driver.mlir
// RUN: diff %t.driver.mlir %t.plugin.mlir
// RUN: FileCheck %s --check-prefix=OPTIMIZED < %t.plugin.mlir

// RUN: not mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' 2>&1 | FileCheck %s --check-prefix=STAGE
// (stderr is left out: MLIR 22's driver reports the expected-* lines below
// as not produced even without -verify-diagnostics.)
// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin %s \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage{verify-sessions=false})' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=UNCHECKED

// Both passes and the stage's option explain themselves in --help.
// RUN: mlir-opt --load-dialect-plugin=%executor_plugin --load-pass-plugin=%executor_plugin --help \
// RUN:   | FileCheck %s --check-prefix=HELP
// RUN: executor-opt --help | FileCheck %s --check-prefix=HELP

// STAGE: error: executor.launch on a session that is closed on every path reaching it
// STAGE-NOT: llvm.func

// UNCHECKED: llvm.func @broken()
// UNCHECKED: llvm.func @session_per_iteration()

// HELP: --executor-optimize {{.*}} Reuse sessions, drop redundant sends, hoist loop-invariant opens and sends, make awaited-at-once launches synchronous
// HELP-NEXT: --entry-convention=<value> {{.*}} The entry convention convert-executor-to-llvm will use; a launch_async awaited at once becomes a launch only with mlir-ciface
// HELP: --reuse-sessions {{.*}} Changes what kernels observe: their object's global state is carried from one iteration to the next instead of freshly loaded
// HELP-NEXT: --executor-verify-sessions {{.*}} Check how sessions and tokens are used: ops after close, lost or twice-awaited launches, objects never sent, redundant sends
// HELP: --executor-llvm-lowering-stage {{.*}} after checking its sessions with executor-verify-sessions
// HELP: --verify-sessions {{.*}} Run executor-verify-sessions first: its errors stop the lowering

func.func @broken() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  // expected-note @+1 {{the session is closed here}}
  executor.close %s : !executor.session
  // expected-error @+1 {{executor.launch on a session that is closed on every path reaching it}}
  executor.launch %s("step", "kernels.o")() : !executor.session, () -> ()
  return
}

// OPTIMIZED-LABEL: func.func @session_per_iteration
// OPTIMIZED:         %[[S:.*]] = executor.open("local")
// OPTIMIZED-NEXT:    executor.send_binary %[[S]]("kernels.o")
// OPTIMIZED-NEXT:    scf.for
// OPTIMIZED-NEXT:      executor.launch %[[S]]("step", "kernels.o") () : !executor.session, () -> ()
// OPTIMIZED-NEXT:    }
// OPTIMIZED-NEXT:    executor.close %[[S]]
func.func @session_per_iteration() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %s = executor.open("local") : !executor.session
    executor.send_binary %s("kernels.o") : !executor.session
    %t = executor.launch_async %s("_mlir_ciface_step", "kernels.o") : !executor.session -> !executor.token
    executor.await %t : !executor.token
    executor.close %s : !executor.session
  }
  return
}
