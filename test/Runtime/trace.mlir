// EXECUTOR_TRACE writes a trace in the Trace Event Format, which
// scripts/trace-check validates (fields per phase, timestamps per track,
// begin/end and flow pairs); EXECUTOR_STATS=1 prints the launches at exit.
// Checked: a program on the embedded executor, the same on an
// executor-server, one that fails mid-run, one stopped by SIGINT, an
// unwritable trace path, and trace-check itself on broken traces.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: mlir-translate --mlir-to-llvmir %S/Inputs/sleeper.mlir | llc -filetype=obj -relocation-model=pic -o %t.sleeper.o
// RUN: split-file %s %t

// The program: three launches of add, two async launches, awaited.
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@KERNELS@|%t.kernels.o|' %t/program.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/local.ll.mlir
// RUN: env EXECUTOR_TRACE=%t/local.json EXECUTOR_STATS=1 %run_host %t/local.ll.mlir 2> %t/local.stats
// RUN: %trace_check %t/local.json | FileCheck %s --check-prefix=LOCAL
// LOCAL: valid: {{[0-9]+}} events
// LOCAL-NEXT: process local: await nothing x2, close x1, in flight: nothing x2, launch add x3, launch_async nothing x2, open x1, send_binary x1{{$}}
// LOCAL-NOT: failure

// The summary counts what the program launched: add 3 times, nothing twice.
// RUN: FileCheck %s --check-prefix=STATS < %t/local.stats
// STATS: executor launches:
// STATS-NEXT: address kernel launches total ms median ms p99 ms bytes in bytes out
// STATS-NEXT: local add 3 {{[0-9.]+ [0-9.]+ [0-9.]+}} 96 48{{$}}
// STATS-NEXT: local nothing 2 {{[0-9.]+ [0-9.]+ [0-9.]+}} 0 0{{$}}

// executor-run --stats prints the same table: examples/saxpy-dispatch.mlir
// launches saxpy once and starts warm_up once.
// RUN: executor-run --stats %S/../../examples/saxpy-dispatch.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=RUN-STATS
// RUN-STATS: executor launches:
// RUN-STATS-NEXT: address kernel launches total ms median ms p99 ms bytes in bytes out
// RUN-STATS-NEXT: local saxpy 1 {{[0-9.]+ [0-9.]+ [0-9.]+}} 68 32{{$}}
// RUN-STATS-NEXT: local warm_up 1 {{[0-9.]+ [0-9.]+ [0-9.]+}} 0 0{{$}}

// On an executor-server: the same spans on the server's address, and the
// steps the server measured: its handshake and hand-over, each request's
// serving, the object's link, each kernel's run and the packing of its
// results, and each async launch from its start to its await (and the
// object's link ahead of its first launch: link-ahead.mlir). With
// --trace-dir the server writes its own trace of the session.
// RUN: rm -rf %t/server-traces && mkdir %t/server-traces
// RUN: %with_server --trace-dir %t/server-traces -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %t/program.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | env EXECUTOR_TRACE=%t/remote.json %run_host"
// RUN: %trace_check %t/remote.json | FileCheck %s --check-prefix=REMOTE
// REMOTE: valid: {{[0-9]+}} events
// REMOTE-NEXT: process 127.0.0.1:{{[0-9]+}}: await nothing x2, close x1, {{.*}}handshake x1, in flight: nothing x2, launch add x3, launch_async nothing x2, link {{.*}}kernels.o x1, {{(link .*kernels.o ahead x1, )?}}on the server: nothing x2, open x1, pack results x3, run add x3, send_binary x1, serve await x2, serve close x1, serve launch x3, serve launch_async x2, serve send_binary x1, serve trace x2{{$}}
// RUN: %trace_check %t/server-traces/session-*.json | FileCheck %s --check-prefix=SERVER
// SERVER: valid: {{[0-9]+}} events
// SERVER-NEXT: process executor-server worker {{[0-9]+}}: {{.*}}handshake x1, link {{.*}}kernels.o x1, {{(link .*kernels.o ahead x1, )?}}on the server: nothing x2, pack results x3, run add x3, serve await x2, serve close x1, serve launch x3, serve launch_async x2, serve send_binary x1, serve trace x2{{$}}

// A program that fails mid-run (exit 1) leaves a valid trace with its
// failure, and the launch that ran before it.
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %t/fails.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/fails.ll.mlir
// RUN: env EXECUTOR_TRACE=%t/fails.json not %run_host %t/fails.ll.mlir
// RUN: %trace_check %t/fails.json | FileCheck %s --check-prefix=FAILS
// FAILS: valid: {{[0-9]+}} events
// FAILS-NEXT: process local: launch add x1, launch no_such_kernel x1, open x1, send_binary x1{{$}}
// FAILS-NEXT: failure: executor runtime: __catalyst__executor__launch(address local, symbol _mlir_ciface_no_such_kernel): no symbol '_mlir_ciface_no_such_kernel'

// SIGINT while the program waits for a sleeper: the trace is valid JSON (its
// last launch is in flight, so its flow has no end).
// RUN: sed -e 's|@SLEEPER@|%t.sleeper.o|' %t/sleeps.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t/sleeps.ll.mlir
// RUN: sh %t/interrupt.sh %t/sleeps.json %run_host %t/sleeps.ll.mlir | FileCheck %s --check-prefix=SIGINT
// SIGINT: interrupted: yes
// RUN: %trace_check --interrupted %t/sleeps.json | FileCheck %s --check-prefix=SIGINT-TRACE
// SIGINT-TRACE: valid: {{[0-9]+}} events
// SIGINT-TRACE-NEXT: process local: {{.*}}launch_async sleep_200ms x{{[1-9]}}

// An unwritable trace path: one line naming it, and the program runs on.
// RUN: env EXECUTOR_TRACE=%t/no/such/dir/t.json %run_host %t/local.ll.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: executor runtime: cannot write the trace file {{.*}}/no/such/dir/t.json (EXECUTOR_TRACE): No such file or directory (os error 2); running untraced
// UNWRITABLE-NEXT: done

// trace-check fails each broken trace, naming what is wrong.
// RUN: not %trace_check %t/truncated.json | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: trace-check: {{.*}}truncated.json: Expecting
// RUN: not %trace_check %t/broken.json | FileCheck %s --check-prefix=BROKEN
// BROKEN: event 0 (X): missing dur
// BROKEN-NEXT: event 2: ts 5 before the previous event's 10 on track (1, 1)
// BROKEN-NEXT: event 3: E without a B on track (1, 2)
// BROKEN-NEXT: event 4: flow ('async', 9) ends without its start
// BROKEN-NEXT: B 'open' on track (1, 3) has no E
// BROKEN-NEXT: flow ('async', 8) never ends

//--- program.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @done("done\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    memref.dealloc %r : memref<4xf32>
  }
  %t0 = executor.launch_async %s("nothing", "@KERNELS@") : !executor.session -> !executor.token
  %t1 = executor.launch_async %s("nothing", "@KERNELS@") : !executor.session -> !executor.token
  executor.await %t0 : !executor.token
  executor.await %t1 : !executor.token
  executor.close %s : !executor.session
  memref.dealloc %a : memref<4xf32>
  %done = llvm.mlir.addressof @done : !llvm.ptr
  %0 = func.call @puts(%done) : (!llvm.ptr) -> i32
  return
}

//--- fails.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  %x = executor.launch %s("no_such_kernel", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  return
}

//--- sleeps.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@SLEEPER@") : !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %t = executor.launch_async %s("sleep_200ms", "@SLEEPER@") : !executor.session -> !executor.token
    executor.await %t : !executor.token
  }
  executor.close %s : !executor.session
  return
}

//--- interrupt.sh
# interrupt.sh TRACE COMMAND...: runs COMMAND traced to TRACE, sends it SIGINT
# once the trace shows a launch (waiting at most 60 s), and says whether
# SIGINT ended it.
trace=$1
shift
# A trace of an earlier run would be taken for this one's, and SIGINT sent
# before env has given it its default action back.
rm -f "$trace"
# A background job of a shell without job control starts with SIGINT
# ignored: env gives it the default action back.
EXECUTOR_TRACE=$trace env --default-signal=INT "$@" > /dev/null &
pid=$!
for _ in $(seq 1200); do
  grep -q '"launch_async sleep_200ms"' "$trace" 2>/dev/null && break
  sleep 0.05
done
kill -INT $pid
wait $pid
status=$?
# A shell reports a death by signal N as 128 + N.
if [ $status -eq $((128 + 2)) ]; then echo "interrupted: yes"; else echo "interrupted: no ($status)"; fi

//--- truncated.json
[
{"ph":"X","name":"open","pid":1,"tid":1,"ts":1,"dur":2},

//--- broken.json
[
{"ph":"X","name":"open","pid":1,"tid":1,"ts":1},
{"ph":"X","name":"open","pid":1,"tid":1,"ts":10,"dur":1},
{"ph":"X","name":"open","pid":1,"tid":1,"ts":5,"dur":1},
{"ph":"E","pid":1,"tid":2,"ts":1},
{"ph":"f","name":"l","cat":"async","id":9,"pid":1,"tid":1,"ts":20},
{"ph":"B","name":"open","pid":1,"tid":3,"ts":1},
{"ph":"s","name":"l","cat":"async","id":8,"pid":1,"tid":1,"ts":30}
]
