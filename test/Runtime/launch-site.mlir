// A launch site's cache (docs/runtime-abi.md, "Launch sites") changes nothing
// a program observes: each case launches through one site (the launch in
// @launch) after an earlier launch filled its cache.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: mlir-opt %S/Inputs/counter.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.counter.o
// RUN: split-file %s %t
// The lowering stage's session checks would reject launches on closed sessions
// at compile time: these programs are for the runtime to reject.
// DEFINE: %{lower} = executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage{verify-sessions=false})'

// A launch on a closed session is the same one-line error whether the site's
// cache was filled on that session before or is empty.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/closed-after-cached.mlir | %{lower} > %t/closed-after-cached.ll.mlir
// RUN: not %run_host %t/closed-after-cached.ll.mlir 2>&1 | FileCheck %s --check-prefix=CLOSED
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/closed-first.mlir | %{lower} > %t/closed-first.ll.mlir
// RUN: not %run_host %t/closed-first.ll.mlir 2>&1 | FileCheck %s --check-prefix=CLOSED
// CLOSED: executor runtime: __catalyst__executor__launch(): no open session with handle 1{{$}}
// CLOSED-NOT: executor runtime

// A session opened after the one the cache was filled on, which was not sent
// the object: the object is unknown there.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/object-not-sent.mlir | %{lower} > %t/object-not-sent.ll.mlir
// RUN: not %run_host %t/object-not-sent.ll.mlir 2>&1 | FileCheck %s --check-prefix=NOT-SENT
// NOT-SENT: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_nothing): object '{{.*}}kernels.o' was not sent to this session (executor.send_binary){{$}}
// NOT-SENT-NOT: executor runtime

// A kernel that crashes on a launch from the cache is named as on any launch.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/crash-when-cached.mlir | %{lower} > %t/crash-when-cached.ll.mlir
// RUN: not %run_host %t/crash-when-cached.ll.mlir 2>&1 | FileCheck %s --check-prefix=CRASH
// CRASH: executor runtime: kernel '_mlir_ciface_crash_if_set' crashed with signal 11 (SIGSEGV){{$}}

// A session with a launch deadline never fills the site: the launch after
// two that ran in time, of a kernel that then hangs, is still stopped at the
// deadline. (`timeout 60` only keeps a regression from hanging the suite.)
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/deadline-after-cached.mlir | %{lower} > %t/deadline-after-cached.ll.mlir
// RUN: env EXECUTOR_LAUNCH_TIMEOUT_MS=300 not timeout 60 %run_host %t/deadline-after-cached.ll.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEADLINE
// DEADLINE: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_hang_if_set): the kernel did not finish within 300 ms (EXECUTOR_LAUNCH_TIMEOUT_MS){{$}}

// A thread whose first launch is one from the cache (a site filled on
// another thread) is set up as on any first launch: a kernel that overflows
// its stack there is named, and the overflow said.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/overflow-on-new-thread.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(async-to-async-runtime,func.func(async-runtime-ref-counting,async-runtime-ref-counting-opt),convert-async-to-llvm,executor-llvm-lowering-stage)' \
// RUN:   > %t/overflow-on-new-thread.ll.mlir
// RUN: not %run_async_host %t/overflow-on-new-thread.ll.mlir 2>&1 | FileCheck %s --check-prefix=NEW-THREAD
// NEW-THREAD: executor runtime: kernel '_mlir_ciface_overflow_if_set' crashed with signal 11 (SIGSEGV): stack overflow{{$}}

// Two sessions launch through one site in turn: each runs its own object's
// code (the counting kernel counts per object: 1, 2 on the first session, 1
// on the second, then 3 on the first).
// RUN: sed -e 's|@COUNTER@|%t.counter.o|' %t/two-sessions.mlir | %{lower} > %t/two-sessions.ll.mlir
// RUN: %run_host %t/two-sessions.ll.mlir | FileCheck %s --check-prefix=TWO-SESSIONS
// TWO-SESSIONS:      data =
// TWO-SESSIONS-NEXT: [1]
// TWO-SESSIONS:      data =
// TWO-SESSIONS-NEXT: [2]
// TWO-SESSIONS:      data =
// TWO-SESSIONS-NEXT: [1]
// TWO-SESSIONS:      data =
// TWO-SESSIONS-NEXT: [3]
// TWO-SESSIONS-NOT:  data =

// A launch without a site (code not lowered by this project) is one error
// line naming the function, not a crash.
// RUN: %{lower} %t/null-site.mlir > %t/null-site.ll.mlir
// RUN: not %run_host %t/null-site.ll.mlir 2>&1 | FileCheck %s --check-prefix=NULL-SITE
// NULL-SITE: executor runtime: __executor__launch_at_site(): a null launch site{{$}}
// NULL-SITE-NOT: executor runtime

//--- closed-after-cached.mlir
func.func @launch(%s: !executor.session) {
  executor.launch %s("nothing", "@KERNELS@")() : !executor.session, () -> ()
  return
}
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  func.call @launch(%s) : (!executor.session) -> ()
  func.call @launch(%s) : (!executor.session) -> ()
  executor.close %s : !executor.session
  func.call @launch(%s) : (!executor.session) -> ()
  return
}

//--- closed-first.mlir
func.func @launch(%s: !executor.session) {
  executor.launch %s("nothing", "@KERNELS@")() : !executor.session, () -> ()
  return
}
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  executor.close %s : !executor.session
  func.call @launch(%s) : (!executor.session) -> ()
  return
}

//--- object-not-sent.mlir
func.func @launch(%s: !executor.session) {
  executor.launch %s("nothing", "@KERNELS@")() : !executor.session, () -> ()
  return
}
func.func @main() {
  %first = executor.open("local") : !executor.session
  executor.send_binary %first("@KERNELS@") : !executor.session
  func.call @launch(%first) : (!executor.session) -> ()
  func.call @launch(%first) : (!executor.session) -> ()
  executor.close %first : !executor.session
  %second = executor.open("local") : !executor.session
  func.call @launch(%second) : (!executor.session) -> ()
  return
}

//--- crash-when-cached.mlir
func.func @launch(%s: !executor.session, %flag: memref<i32>) {
  executor.launch %s("crash_if_set", "@KERNELS@")(%flag) : !executor.session, (memref<i32>) -> ()
  return
}
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %flag = memref.alloc() : memref<i32>
  %clear = arith.constant 0 : i32
  %set = arith.constant 1 : i32
  memref.store %clear, %flag[] : memref<i32>
  func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
  func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
  memref.store %set, %flag[] : memref<i32>
  func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
  return
}

//--- deadline-after-cached.mlir
func.func @launch(%s: !executor.session, %flag: memref<i32>) {
  executor.launch %s("hang_if_set", "@KERNELS@")(%flag) : !executor.session, (memref<i32>) -> ()
  return
}
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %flag = memref.alloc() : memref<i32>
  %clear = arith.constant 0 : i32
  %set = arith.constant 1 : i32
  memref.store %clear, %flag[] : memref<i32>
  func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
  func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
  memref.store %set, %flag[] : memref<i32>
  func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
  return
}

//--- overflow-on-new-thread.mlir
func.func @launch(%s: !executor.session, %flag: memref<i32>) {
  executor.launch %s("overflow_if_set", "@KERNELS@")(%flag) : !executor.session, (memref<i32>) -> ()
  return
}
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %flag = memref.alloc() : memref<i32>
  %clear = arith.constant 0 : i32
  %set = arith.constant 1 : i32
  memref.store %clear, %flag[] : memref<i32>
  func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
  memref.store %set, %flag[] : memref<i32>
  %done = async.execute {
    func.call @launch(%s, %flag) : (!executor.session, memref<i32>) -> ()
    async.yield
  }
  async.await %done : !async.token
  return
}

//--- two-sessions.mlir
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
func.func @launch(%s: !executor.session) {
  %count = executor.launch %s("count", "@COUNTER@")() : !executor.session, () -> memref<1xi64>
  %printable = memref.cast %count : memref<1xi64> to memref<*xi64>
  func.call @printMemrefI64(%printable) : (memref<*xi64>) -> ()
  memref.dealloc %count : memref<1xi64>
  return
}
func.func @main() {
  %first = executor.open("local:first") : !executor.session
  executor.send_binary %first("@COUNTER@") : !executor.session
  %second = executor.open("local:second") : !executor.session
  executor.send_binary %second("@COUNTER@") : !executor.session
  func.call @launch(%first) : (!executor.session) -> ()
  func.call @launch(%first) : (!executor.session) -> ()
  func.call @launch(%second) : (!executor.session) -> ()
  func.call @launch(%first) : (!executor.session) -> ()
  executor.close %first : !executor.session
  executor.close %second : !executor.session
  return
}

//--- null-site.mlir
llvm.func @__executor__launch_at_site(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
func.func @main() {
  %s = executor.open("local") : !executor.session
  %handle = builtin.unrealized_conversion_cast %s : !executor.session to i64
  %null = llvm.mlir.zero : !llvm.ptr
  llvm.call @__executor__launch_at_site(%null, %handle, %null, %null) : (!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
  executor.close %s : !executor.session
  return
}
