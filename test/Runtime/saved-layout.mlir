// The layout of an object of many sections is saved in the user's cache
// (runtime/src/local/split_object/layout_cache.rs) once the object file has
// not changed for a second, and a later run reads it instead of the
// object's tables. It is used only for the version of the file it was saved
// for: an object rewritten in place is read anew.

// REQUIRES: cc

// RUN: rm -rf %t.cache
// RUN: mlir-opt %S/Inputs/split-kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir > %t.ll
// RUN: sh -c 'i=0; while [ $i -lt 1100 ]; do printf "define i64 @filler_%%d() {\n  ret i64 %%d\n}\n" $i $i; i=$((i+1)); done' >> %t.ll
// RUN: llc -filetype=obj -relocation-model=pic --function-sections %t.ll -o %t.o
// RUN: sed -e 's|10.0 : f32|1000.0 : f32|' %S/Inputs/split-kernels.mlir | mlir-opt --pass-pipeline=%kernel_pipeline \
// RUN:   | mlir-translate --mlir-to-llvmir > %t.other.ll
// RUN: sh -c 'i=0; while [ $i -lt 1100 ]; do printf "define i64 @filler_%%d() {\n  ret i64 %%d\n}\n" $i $i; i=$((i+1)); done' >> %t.other.ll
// RUN: llc -filetype=obj -relocation-model=pic --function-sections %t.other.ll -o %t.other.o
// RUN: sed -e 's|@KERNELS@|%t.o|' %s | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.host.mlir

// The object must not have changed for a second to have its layout saved
// (a file changed within one tick of the clock keeps its times: the unit
// tests of layout_cache.rs check that a newer one is not saved).
// RUN: sleep 1.2
// RUN: env XDG_CACHE_HOME=%t.cache EXECUTOR_LOG=debug %run_host %t.host.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,SAVES
// Without the library the first run linked the object into
// (test/Runtime/object-library.mlir), the next run reads the saved layout.
// RUN: sh -c 'for i in $(seq 1200); do ls %t.cache/executor-mlir/libraries/*.so > /dev/null 2>&1 && exit 0; sleep 0.1; done; exit 1'
// RUN: rm %t.cache/executor-mlir/libraries/*.so
// RUN: env XDG_CACHE_HOME=%t.cache EXECUTOR_LOG=debug %run_host %t.host.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,SAVED
// RUN: cp %t.other.o %t.o
// RUN: env XDG_CACHE_HOME=%t.cache EXECUTOR_LOG=debug %run_host %t.host.mlir 2>&1 | FileCheck %s --check-prefix=REWRITTEN

// SAVES-NOT: layout is read from
// SAVES: the object's layout is saved in {{.*}}.cache/executor-mlir/layouts/{{[0-9a-f]+}}-{{[0-9a-f]+}}.layout
// SAVED: the object's layout is read from {{.*}}.cache/executor-mlir/layouts/{{[0-9a-f]+}}-{{[0-9a-f]+}}.layout
// SAVED-NOT: layout is saved
// CHECK: [10]
// CHECK: [200]
// CHECK: [30]

// REWRITTEN-NOT: layout is read from
// REWRITTEN: [1000]
// REWRITTEN: [200]
// REWRITTEN: [3000]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%value: memref<1xf32>) {
  %unranked = memref.cast %value : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%unranked) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %first = executor.launch %s("tens", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%first) : (memref<1xf32>) -> ()
  %second = executor.launch %s("hundreds", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%second) : (memref<1xf32>) -> ()
  %third = executor.launch %s("tens", "@KERNELS@")() : !executor.session, () -> memref<1xf32>
  call @print(%third) : (memref<1xf32>) -> ()
  executor.close %s : !executor.session
  return
}
