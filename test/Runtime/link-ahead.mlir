// An executor-server's worker links an object sent whole once it has
// answered its send_binary, while the client sends its first launch; a
// server's trace shows that step, `link NAME ahead`. On one CPU, where the
// client could not run meanwhile, the object is linked by its first launch,
// as is an object linked a piece at a time (function sections), which has
// no whole to link ahead. (What a link that fails ahead reports:
// load-errors.mlir.)
// REQUIRES: more-than-one-cpu

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: rm -rf %t.free %t.pinned && mkdir %t.free %t.pinned
// RUN: %with_server --trace-dir %t.free -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host"
// RUN: %trace_check %t.free/session-*.json | FileCheck %s --check-prefix=FREE
// RUN: taskset -c 0 %with_server --trace-dir %t.pinned -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host"
// RUN: %trace_check %t.pinned/session-*.json | FileCheck %s --check-prefix=PINNED
// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic --function-sections -o %t.pieces.o
// RUN: rm -rf %t.pieces && mkdir %t.pieces
// RUN: %with_server --trace-dir %t.pieces -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.pieces.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host"
// RUN: %trace_check %t.pieces/session-*.json | FileCheck %s --check-prefix=PIECES

// FREE: valid: {{[0-9]+}} events
// FREE-NEXT: process executor-server worker {{[0-9]+}}: {{.*}}link {{.*}}kernels.o x1, link {{.*}}kernels.o ahead x1, pack results x1, run add x1, serve close x1, serve launch x1, serve send_binary x1{{$}}
// PINNED: valid: {{[0-9]+}} events
// PINNED-NEXT: process executor-server worker {{[0-9]+}}: {{.*}}link {{.*}}kernels.o x1, pack results x1, run add x1, serve close x1, serve launch x1, serve send_binary x1{{$}}
// PIECES: valid: {{[0-9]+}} events
// PIECES-NEXT: process executor-server worker {{[0-9]+}}: {{.*}}link {{.*}}pieces.o x1, pack results x1, run add x1, serve close x1, serve launch x1, serve send_binary x1{{$}}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = memref.alloc() : memref<4xf32>
  %r = executor.launch %s("add", "@KERNELS@")(%a, %a) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  memref.dealloc %r : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  executor.close %s : !executor.session
  return
}
