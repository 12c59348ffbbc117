// The first send_binary of an object of many sections on `local`, which
// saves its layout, also links it into a shared library in the background
// (runtime/src/local/object_library.rs); a later run opens that library
// instead of linking the object. Only a session's first object is opened so,
// and only by one session of the process: a second session links its own
// copy, with statics of its own; an object sent after it resolves against it
// (against what the library defines, not the C library it uses: the second
// object's exit handler still runs when the session closes).

// REQUIRES: cc

// RUN: rm -rf %t.cache
// RUN: mlir-opt %S/Inputs/split-kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir > %t.ll
// RUN: sh -c 'i=0; while [ $i -lt 1100 ]; do printf "define i64 @filler_%%d() {\n  ret i64 %%d\n}\n" $i $i; i=$((i+1)); done' >> %t.ll
// RUN: llc -filetype=obj -relocation-model=pic --function-sections %t.ll -o %t.o
// RUN: mlir-opt %S/Inputs/filler-caller.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.caller.o
// RUN: clang -c -fPIC %S/Inputs/goodbye.c -o %t.goodbye.o
// RUN: sed -e 's|@KERNELS@|%t.o|' -e 's|@CALLER@|%t.caller.o|' -e 's|@GOODBYE@|%t.goodbye.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.host.mlir

// The object must not have changed for a second to have its layout saved.
// RUN: sleep 1.2
// RUN: env XDG_CACHE_HOME=%t.cache EXECUTOR_LOG=debug %run_host %t.host.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,LINKS
// RUN: sh -c 'for i in $(seq 1200); do ls %t.cache/executor-mlir/libraries/*.so > /dev/null 2>&1 && exit 0; sleep 0.1; done; exit 1'
// RUN: env XDG_CACHE_HOME=%t.cache EXECUTOR_LOG=debug %run_host %t.host.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,OPENS

// LINKS-NOT: is opened as
// LINKS: linking the object into {{.*}}.cache/executor-mlir/libraries/{{[0-9a-f]+}}-{{[0-9a-f]+}}-{{[0-9a-f]+}}.so in the background
// OPENS-NOT: in the background
// OPENS: '{{.*}}.o' is opened as {{.*}}.cache/executor-mlir/libraries/{{.*}}.so
// OPENS: '{{.*}}.o' is linked: {{.*}}.so is open already
// CHECK: [10]
// CHECK: [10]
// CHECK: [200]
// CHECK: [7]
// CHECK: the second object's exit handler ran
// CHECK: [42]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%value: memref<1xf32>) {
  %unranked = memref.cast %value : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%unranked) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %a = executor.open("local:a") : !executor.session
  executor.send_binary %a("@KERNELS@") : !executor.session
  executor.send_binary %a("@CALLER@") : !executor.session
  executor.send_binary %a("@GOODBYE@") : !executor.session
  %b = executor.open("local:b") : !executor.session
  executor.send_binary %b("@KERNELS@") : !executor.session
  // Each session counts its own calls.
  %first = executor.launch %a("tens", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%first) : (memref<1xf32>) -> ()
  %other = executor.launch %b("tens", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%other) : (memref<1xf32>) -> ()
  %second = executor.launch %a("hundreds", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%second) : (memref<1xf32>) -> ()
  %via = executor.launch %a("via", "@CALLER@")() : !executor.session, () -> memref<1xf32>
  call @print(%via) : (memref<1xf32>) -> ()
  executor.close %b : !executor.session
  executor.close %a : !executor.session
  // After the session's exit handlers.
  %c0 = arith.constant 0 : index
  %marker = arith.constant 42.0 : f32
  %after = memref.alloc() : memref<1xf32>
  memref.store %marker, %after[%c0] : memref<1xf32>
  call @print(%after) : (memref<1xf32>) -> ()
  return
}
