// executor-optimize on a program that runs: a loop that opens a session,
// sends an object, launches its kernels and closes the session, three times.
// The default rules (here: the launch_async of _mlir_ciface_nothing awaited at
// once becomes a launch of nothing) leave what it prints unchanged: the
// counting kernel's object is loaded afresh in every session, so it counts 1
// each time. reuse-sessions=true keeps one session for the loop, and the
// kernel's global state with it: it counts 1, 2, 3, as the option says.

// RUN: mlir-opt %S/Inputs/counter.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.counter.o
// RUN: sed -e 's|@COUNTER@|%t.counter.o|' %s > %t.host.mlir
// RUN: executor-opt %t.host.mlir --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | %run_host | FileCheck %s --check-prefix=PER-ITERATION
// RUN: executor-opt %t.host.mlir --executor-optimize | FileCheck %s --check-prefix=SYNCHRONOUS
// RUN: executor-opt %t.host.mlir --pass-pipeline='builtin.module(executor-optimize,executor-llvm-lowering-stage)' \
// RUN:   | %run_host | FileCheck %s --check-prefix=PER-ITERATION
// RUN: executor-opt %t.host.mlir --pass-pipeline='builtin.module(executor-optimize{reuse-sessions=true},executor-llvm-lowering-stage)' \
// RUN:   | %run_host | FileCheck %s --check-prefix=ONE-SESSION

// SYNCHRONOUS-NOT: executor.launch_async
// SYNCHRONOUS:     executor.launch %{{.*}}("nothing", "{{.*}}counter.o") () : !executor.session, () -> ()
// SYNCHRONOUS-NOT: executor.await

// PER-ITERATION:      data =
// PER-ITERATION-NEXT: [1]
// PER-ITERATION:      data =
// PER-ITERATION-NEXT: [1]
// PER-ITERATION:      data =
// PER-ITERATION-NEXT: [1]
// PER-ITERATION-NOT:  data =

// ONE-SESSION:      data =
// ONE-SESSION-NEXT: [1]
// ONE-SESSION:      data =
// ONE-SESSION-NEXT: [2]
// ONE-SESSION:      data =
// ONE-SESSION-NEXT: [3]
// ONE-SESSION-NOT:  data =

func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %s = executor.open("local") : !executor.session
    executor.send_binary %s("@COUNTER@") : !executor.session
    %t = executor.launch_async %s("_mlir_ciface_nothing", "@COUNTER@") : !executor.session -> !executor.token
    executor.await %t : !executor.token
    %count = executor.launch %s("count", "@COUNTER@")() : !executor.session, () -> memref<1xi64>
    %printable = memref.cast %count : memref<1xi64> to memref<*xi64>
    func.call @printMemrefI64(%printable) : (memref<*xi64>) -> ()
    memref.dealloc %count : memref<1xi64>
    executor.close %s : !executor.session
  }
  return
}
