// executor-llvm-lowering-stage leaves nothing for mlir-translate to reject:
// arith ops that carry sessions are lowered after the sessions became i64.

// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s

// CHECK-LABEL: define void @select_session(i1 %0)
//       CHECK:   %[[A:.*]] = call i64 @__catalyst__executor__open(
//       CHECK:   %[[B:.*]] = call i64 @__catalyst__executor__open(
//       CHECK:   %[[S:.*]] = select i1 %0, i64 %[[A]], i64 %[[B]]
//       CHECK:   call i64 @__catalyst__executor__close(i64 %[[S]])
func.func @select_session(%c: i1) {
  %a = executor.open("a") : !executor.session
  %b = executor.open("b") : !executor.session
  %s = arith.select %c, %a, %b : !executor.session
  executor.close %s : !executor.session
  return
}

// A memref view reaches LLVM too: the stage expands strided metadata and
// lowers the affine ops that makes.
// CHECK-LABEL: define void @launch_on_a_subview(
//       CHECK:   call void @__executor__launch_at_site(ptr @__executor_site_k,
func.func @launch_on_a_subview(%s: !executor.session, %m: memref<8xf32>) {
  %v = memref.subview %m[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  executor.launch %s("k", "k.o")(%v) : !executor.session, (memref<4xf32, strided<[1], offset: 2>>) -> ()
  return
}
