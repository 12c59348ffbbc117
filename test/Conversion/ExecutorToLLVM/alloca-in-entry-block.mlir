// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s

// The descriptor slots of executor.launch and the arrays pointing to them are
// llvm.alloca's at the top of the entry block of the enclosing function, so
// that a launch in a loop reuses them instead of growing the stack on every
// iteration. Only the stores of the input descriptors, the call and the loads
// of the results stay where the launch was.

// CHECK-LABEL: func.func @launch_in_scf_for(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[X:arg[0-9]+]]: memref<4xf32>, %{{.*}}: index) {
//  CHECK-NEXT:   %[[ONE0:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %[[ONE0]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[ONE1:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[OUT:.*]] = llvm.alloca %[[ONE1]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[ONE2:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %[[ONE2]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[IN]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[ONE3:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = llvm.alloca %[[ONE3]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[OUT]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[OUT_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   arith.constant 1 : index
//  CHECK-NEXT:   scf.for
//   CHECK-NOT:     llvm.alloca
//       CHECK:     %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to
//  CHECK-NEXT:     llvm.store %[[D]], %[[IN]]
//   CHECK-NOT:     llvm.alloca
//       CHECK:     llvm.call @__catalyst__executor__launch(%[[S]], %{{.*}}, %{{.*}}, %{{.*}}, %[[IN_ARRAY]], %{{.*}}, %{{.*}}, %{{.*}}, %[[OUT_ARRAY]], %{{.*}}, %{{.*}})
//  CHECK-NEXT:     llvm.load %[[OUT]]
//   CHECK-NOT:   llvm.alloca
//       CHECK:   return
func.func @launch_in_scf_for(%s: !executor.session, %x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %y = executor.launch %s("add_one", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @launch_in_cf_loop(
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[OUT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//       CHECK:   %[[OUT_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//       CHECK:   cf.br ^[[LOOP:.*]](%{{.*}} : i64)
//       CHECK: ^[[LOOP]](%{{.*}}: i64):
//   CHECK-NOT:   llvm.alloca
//       CHECK:   llvm.store %{{.*}}, %[[IN]]
//   CHECK-NOT:   llvm.alloca
//       CHECK:   llvm.call @__catalyst__executor__launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[IN_ARRAY]], %{{.*}}, %{{.*}}, %{{.*}}, %[[OUT_ARRAY]], %{{.*}}, %{{.*}})
//  CHECK-NEXT:   llvm.load %[[OUT]]
//   CHECK-NOT:   llvm.alloca
//       CHECK:   cf.cond_br %{{.*}}, ^[[EXIT:.*]], ^[[LOOP]](%{{.*}} : i64)
//       CHECK: ^[[EXIT]]:
//  CHECK-NEXT:   return
func.func @launch_in_cf_loop(%s: !executor.session, %x: memref<?xf64>, %n: i64) {
  %c0 = arith.constant 0 : i64
  cf.br ^loop(%c0 : i64)
^loop(%i: i64):
  %y = executor.launch %s("step", "kernels.o")(%x) : !executor.session, (memref<?xf64>) -> memref<?xf64>
  %c1 = arith.constant 1 : i64
  %next = arith.addi %i, %c1 : i64
  %done = arith.cmpi sge, %next, %n : i64
  cf.cond_br %done, ^exit, ^loop(%next : i64)
^exit:
  return
}

// -----

// Nested regions: the slots still go to the function's entry block, not to
// the entry block of the innermost region.
// CHECK-LABEL: func.func @launch_in_scf_if_in_scf_for(
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64)> : (i64) -> !llvm.ptr
//       CHECK:   scf.for
//   CHECK-NOT:     llvm.alloca
//       CHECK:     scf.if
//   CHECK-NOT:       llvm.alloca
//       CHECK:       llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:       llvm.mlir.constant(1 : i64) : i64
//   CHECK-NOT:       llvm.alloca
//       CHECK:       llvm.call @__catalyst__executor__launch(
//   CHECK-NOT:   llvm.alloca
//       CHECK:   return
func.func @launch_in_scf_if_in_scf_for(%s: !executor.session, %x: memref<i32>, %n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<i32>) -> ()
    }
  }
  return
}

// -----

// Two launches: each has its own slots, all in the entry block.
// CHECK-LABEL: func.func @two_launches_in_loop(
//   CHECK-COUNT-4: llvm.alloca
//   CHECK-NOT:   llvm.alloca
//       CHECK:   scf.for
//   CHECK-NOT:     llvm.alloca
//       CHECK:     llvm.call @__catalyst__executor__launch(
//   CHECK-NOT:     llvm.alloca
//       CHECK:     llvm.call @__catalyst__executor__launch(
//   CHECK-NOT:   llvm.alloca
//       CHECK:   return
func.func @two_launches_in_loop(%s: !executor.session, %x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    executor.launch %s("first", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
    executor.launch %s("second", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
  }
  return
}

// -----

// In an llvm.func too, the slots go to the entry block.
// CHECK-LABEL: llvm.func @launch_in_llvm_func_successor_block(
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   llvm.br ^[[BB:.*]]
//       CHECK: ^[[BB]]:
//   CHECK-NOT:   llvm.alloca
//       CHECK:   llvm.store %{{.*}}, %[[IN]]
//   CHECK-NOT:   llvm.alloca
//       CHECK:   llvm.call @__catalyst__executor__launch(
//  CHECK-NEXT:   llvm.return
llvm.func @launch_in_llvm_func_successor_block() {
  %s = executor.open("localhost") : !executor.session
  %m = memref.alloca() : memref<4xf32>
  llvm.br ^bb1
^bb1:
  executor.launch %s("kernel", "kernels.o")(%m) : !executor.session, (memref<4xf32>) -> ()
  llvm.return
}

// -----

// Iterations of scf.parallel may run concurrently: each gets its slots in the
// body's own entry block, not the function's.

// CHECK-LABEL: func.func @launch_in_scf_parallel
// CHECK-NOT:     llvm.alloca
// CHECK:         scf.parallel
// CHECK-NEXT:      llvm.mlir.constant(1 : i64)
// CHECK-NEXT:      llvm.alloca
// CHECK:           llvm.call @__catalyst__executor__launch
// CHECK:           scf.reduce
func.func @launch_in_scf_parallel(%s: !executor.session, %m: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
    scf.reduce
  }
  return
}
