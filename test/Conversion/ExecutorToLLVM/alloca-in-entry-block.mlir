// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s

// Every executor op is lowered inside an allocation scope: a function, or an op
// whose body runs in a frame of its own (scf.parallel, scf.forall,
// async.execute, ...). The entry block of each scope starts with a prologue,
// made in the order its ops are first needed: the llvm.mlir.constant's, the
// llvm.mlir.addressof's of the globals, the null pointer, and the llvm.alloca's
// of the stack slots with the arrays pointing to them (filled once). Each
// constant, address and the null pointer is made once per scope and shared by
// all its lowered ops. The launches of one scope whose input and result
// descriptor types are the same share one frame (slots and arrays); a launch
// in a loop therefore reuses its slots instead of growing the stack on every
// iteration. Only the stores of the input descriptors, the call and the loads
// of the results stay where the launch was.
//
// A launch calls __executor__launch_at_site with the address of its launch
// site (in the prologue), the session, and its input and output arrays (the
// null pointer when it has no inputs or no results). The site is a global of
// the module whose initializer holds the rest of what the launch describes:
// the entry symbol, the object, the number of inputs with their ranks and
// element sizes, the same for the results, and the results' static sizes (-1
// where dynamic) (left 0 and null when there are none). Each case checks its sites' initializers before its function.

// One input and one result, each of rank 1 and element size 4.
//       CHECK: llvm.mlir.global internal @__executor_site_add_one() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_add_one : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F6:.*]] = llvm.insertvalue %[[V]], %[[F5]][6] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F7:.*]] = llvm.insertvalue %[[V]], %[[F6]][7] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F8:.*]] = llvm.insertvalue %[[V]], %[[F7]][8] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F9:.*]] = llvm.insertvalue %[[V]], %[[F8]][9] :
//  CHECK-NEXT:   llvm.return %[[F9]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @launch_in_scf_for(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[X:arg[0-9]+]]: memref<4xf32>, %{{.*}}: index) {
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_add_one : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U0:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A0:.*]] = llvm.insertvalue %[[IN]], %[[U0]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A0]], %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[OUT:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U1:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A1:.*]] = llvm.insertvalue %[[OUT]], %[[U1]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A1]], %[[OUT_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   arith.constant 1 : index
//  CHECK-NEXT:   scf.for
// In the loop, nothing of the prologue: only the launch's own code.
//   CHECK-NOT:     {{llvm.alloca|llvm.mlir.}}
//       CHECK:     %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to
//  CHECK-NEXT:     llvm.store %[[D]], %[[IN]]
//  CHECK-NEXT:     llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[IN_ARRAY]], %[[OUT_ARRAY]])
//  CHECK-NEXT:     %[[YD:.*]] = llvm.load %[[OUT]]
//  CHECK-NEXT:     builtin.unrealized_conversion_cast %[[YD]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @launch_in_scf_for(%s: !executor.session, %x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %y = executor.launch %s("add_one", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  }
  return
}

// -----

// Element size 8 (f64), in and out.
//       CHECK: llvm.mlir.global internal @__executor_site_step() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_step : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F6:.*]] = llvm.insertvalue %[[V]], %[[F5]][6] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F7:.*]] = llvm.insertvalue %[[V]], %[[F6]][7] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   %[[F8:.*]] = llvm.insertvalue %[[V]], %[[F7]][8] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s__1 : !llvm.ptr
//  CHECK-NEXT:   %[[F9:.*]] = llvm.insertvalue %[[V]], %[[F8]][9] :
//  CHECK-NEXT:   llvm.return %[[F9]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @launch_in_cf_loop(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_step : !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[IN]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[OUT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[OUT]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[OUT_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   arith.constant 0 : i64
//  CHECK-NEXT:   cf.br ^[[LOOP:.*]](%{{.*}} : i64)
//       CHECK: ^[[LOOP]](%{{.*}}: i64):
//   CHECK-NOT:   {{llvm.alloca|llvm.mlir.}}
//       CHECK:   llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %[[IN_ARRAY]], %[[OUT_ARRAY]])
//  CHECK-NEXT:   llvm.load %[[OUT]]
//   CHECK-NOT:   {{llvm.alloca|llvm.mlir.}}
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

// Nested regions: the prologue still goes to the function's entry block, not
// to the entry block of the innermost region (scf.for and scf.if are no
// allocation scopes). Without results, the output array passed is the null
// pointer, and the site's number of results, result ranks and result sizes
// stay 0 and null: its initializer does not set them. The rank-0 input has
// rank 0 and element size 4.
//       CHECK: llvm.mlir.global internal @__executor_site_kernel() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_kernel : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_0 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @launch_in_scf_if_in_scf_for(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[IN]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   arith.constant 1 : index
//  CHECK-NEXT:   scf.for
//  CHECK-NEXT:     scf.if
//  CHECK-NEXT:       builtin.unrealized_conversion_cast
//  CHECK-NEXT:       llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:       llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %[[IN_ARRAY]], %[[NULL]])
//  CHECK-NEXT:     }
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
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

// Two launches in a loop: their slots are in the entry block, none in the
// loop. Their input and result types are the same, so they share one frame:
// one input slot and its array, which both launches store into and pass. Each
// kernel has a launch site of its own, also addressed in the entry block.
//       CHECK: llvm.mlir.global internal @__executor_site_first() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_first : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//       CHECK: llvm.mlir.global internal @__executor_site_second() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_second : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @two_launches_in_loop(
//  CHECK-NEXT:   %[[FIRST_SITE:.*]] = llvm.mlir.addressof @__executor_site_first : !llvm.ptr
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//   CHECK-NOT:   llvm.alloca
//       CHECK:   %[[SECOND_SITE:.*]] = llvm.mlir.addressof @__executor_site_second : !llvm.ptr
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   arith.constant 1 : index
//  CHECK-NEXT:   scf.for
//  CHECK-NEXT:     builtin.unrealized_conversion_cast
//  CHECK-NEXT:     llvm.store %{{.*}}, %[[SLOT]]
//  CHECK-NEXT:     llvm.call @__executor__launch_at_site(%[[FIRST_SITE]], %{{.*}}, %[[ARRAY]], %{{.*}})
//  CHECK-NEXT:     builtin.unrealized_conversion_cast
//  CHECK-NEXT:     llvm.store %{{.*}}, %[[SLOT]]
//  CHECK-NEXT:     llvm.call @__executor__launch_at_site(%[[SECOND_SITE]], %{{.*}}, %[[ARRAY]], %{{.*}})
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
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

// In an llvm.func too, the prologue is at the top of the entry block, with the
// address of executor.open's string; the launch is in a successor block.
//       CHECK: llvm.mlir.global internal @__executor_site_kernel() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_kernel : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: llvm.func @launch_in_llvm_func_successor_block() {
//  CHECK-NEXT:   %[[HOST:.*]] = llvm.mlir.addressof @__executor_str_localhost : !llvm.ptr
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[IN]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[S:.*]] = llvm.call @__catalyst__executor__open(%[[HOST]])
//  CHECK-NEXT:   memref.alloca()
//  CHECK-NEXT:   llvm.br ^[[BB:.*]]
//       CHECK: ^[[BB]]:
//  CHECK-NEXT:   builtin.unrealized_conversion_cast
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[IN_ARRAY]], %[[NULL]])
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
// body's own entry block, not the function's; the whole prologue is there.
//       CHECK: llvm.mlir.global internal @__executor_site_k() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_k : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @launch_in_scf_parallel
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   arith.constant 1 : index
//  CHECK-NEXT:   scf.parallel
//  CHECK-NEXT:     %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:     llvm.mlir.constant(1 : i64)
//  CHECK-NEXT:     %[[IN:.*]] = llvm.alloca
//  CHECK-NEXT:     %[[IN_ARRAY:.*]] = llvm.alloca
//       CHECK:     llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:     llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %[[IN_ARRAY]],
//  CHECK-NEXT:     scf.reduce
func.func @launch_in_scf_parallel(%s: !executor.session, %m: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
    scf.reduce
  }
  return
}

// -----

// Iterations of affine.parallel may run concurrently too (it becomes
// scf.parallel): the slots are in its body, not the function's.
// CHECK-LABEL: func.func @launch_in_affine_parallel
//  CHECK-NEXT:   affine.parallel
//  CHECK-NEXT:     %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:     llvm.mlir.constant(1 : i64)
//  CHECK-NEXT:     %[[IN:.*]] = llvm.alloca
//  CHECK-NEXT:     %[[IN_ARRAY:.*]] = llvm.alloca
//       CHECK:     llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:     llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %[[IN_ARRAY]],
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @launch_in_affine_parallel(%s: !executor.session, %m: memref<4xf32>) {
  affine.parallel (%i) = (0) to (8) {
    executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
  }
  return
}

// -----

// The teams of omp.teams run its region at once: the slots are in the region.
// CHECK-LABEL: func.func @launch_in_omp_teams
//  CHECK-NEXT:   omp.teams
//  CHECK-NEXT:     %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:     llvm.mlir.constant(1 : i64)
//  CHECK-NEXT:     %[[IN:.*]] = llvm.alloca
//  CHECK-NEXT:     %[[IN_ARRAY:.*]] = llvm.alloca
//       CHECK:     llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:     llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %[[IN_ARRAY]],
//  CHECK-NEXT:     omp.terminator
func.func @launch_in_omp_teams(%s: !executor.session, %m: memref<4xf32>) {
  omp.teams {
    executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
    omp.terminator
  }
  return
}

// -----

// An async.execute body outlined by async-to-async-runtime is a coroutine:
// the prologue goes right after its coro.begin, where the slots belong to the
// coroutine's frame. Stored before it, the array would hold the slot's address
// on the stack of the first call, stale once the coroutine resumes.
// CHECK-LABEL: func.func private @outlined_async_execute(
//  CHECK-NEXT:   async.runtime.create
//  CHECK-NEXT:   %[[ID:.*]] = async.coro.id
//  CHECK-NEXT:   %[[HANDLE:.*]] = async.coro.begin %[[ID]]
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.constant(1 : i64)
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A:.*]] = llvm.insertvalue %[[IN]], %[[U]][0]
//  CHECK-NEXT:   llvm.store %[[A]], %[[IN_ARRAY]]
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   async.coro.save %[[HANDLE]]
//       CHECK: ^bb1:
//  CHECK-NEXT:   %[[D:.*]] = builtin.unrealized_conversion_cast
//  CHECK-NEXT:   llvm.store %[[D]], %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %[[IN_ARRAY]], %[[NULL]])
func.func private @outlined_async_execute(%s: !executor.session, %m: memref<1xi64>) -> !async.token attributes {passthrough = ["presplitcoroutine"]} {
  %token = async.runtime.create : !async.token
  %id = async.coro.id
  %handle = async.coro.begin %id
  %saved = async.coro.save %handle
  async.runtime.resume %handle
  async.coro.suspend %saved, ^end, ^resume, ^cleanup
^resume:
  executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<1xi64>) -> ()
  async.runtime.set_available %token : !async.token
  cf.br ^cleanup
^cleanup:
  async.coro.free %id, %handle
  cf.br ^end
^end:
  async.coro.end %handle
  return %token : !async.token
}

// -----

// So in a coroutine already lowered to LLVM: after llvm.intr.coro.begin.
// CHECK-LABEL: llvm.func @llvm_coroutine(
//       CHECK:   %[[HANDLE:.*]] = llvm.intr.coro.begin
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %[[NULL]], %[[NULL]])
//  CHECK-NEXT:   llvm.return %[[HANDLE]]
llvm.func @llvm_coroutine(%session: i64) -> !llvm.ptr attributes {passthrough = ["presplitcoroutine"]} {
  %s = builtin.unrealized_conversion_cast %session : i64 to !executor.session
  %align = llvm.mlir.constant(0 : i32) : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %id = llvm.intr.coro.id %align, %null, %null, %null : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.token
  %handle = llvm.intr.coro.begin %id, %null : (!llvm.token, !llvm.ptr) -> !llvm.ptr
  executor.launch %s("k", "k.o")() : !executor.session, () -> ()
  llvm.return %handle : !llvm.ptr
}

// -----

// A launch in the function and one in an scf.parallel of it: two scopes, two
// prologues; the body of scf.parallel uses nothing of the function's. Both
// launches have the same kernel, object and types, so they share the one site,
// which each prologue addresses.
//       CHECK: llvm.mlir.global internal @__executor_site_k() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_k : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//   CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: func.func @launch_in_function_and_in_scf_parallel(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[M:arg[0-9]+]]: memref<4xf32>, %{{.*}}: index) {
//  CHECK-NEXT:   %[[F_SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   %[[F_ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F_IN:.*]] = llvm.alloca %[[F_ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[F_IN_ARRAY:.*]] = llvm.alloca %[[F_ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[F_IN]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[F_IN_ARRAY]]
//  CHECK-NEXT:   %[[F_NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   arith.constant 1 : index
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %[[M]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[F_IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[F_SITE]], %[[S]], %[[F_IN_ARRAY]], %[[F_NULL]])
//  CHECK-NEXT:   scf.parallel
//  CHECK-NEXT:     %[[P_SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:     %[[P_ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:     %[[P_IN:.*]] = llvm.alloca %[[P_ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:     %[[P_IN_ARRAY:.*]] = llvm.alloca %[[P_ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:     llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:     llvm.insertvalue %[[P_IN]]
//  CHECK-NEXT:     llvm.store %{{.*}}, %[[P_IN_ARRAY]]
//  CHECK-NEXT:     %[[P_NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:     builtin.unrealized_conversion_cast %[[M]]
//  CHECK-NEXT:     llvm.store %{{.*}}, %[[P_IN]]
//  CHECK-NEXT:     llvm.call @__executor__launch_at_site(%[[P_SITE]], %[[S]], %[[P_IN_ARRAY]], %[[P_NULL]])
//  CHECK-NEXT:     scf.reduce
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @launch_in_function_and_in_scf_parallel(%s: !executor.session, %m: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
    scf.reduce
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Launch frames
//===----------------------------------------------------------------------===//

// Two launches with the same input and result types in one function share one
// frame: one set of llvm.alloca's; the second launch stores into the same input
// slot, passes the same arrays and loads from the same result slot. Each
// result is loaded right after its own call, before the next launch reuses the
// slot.
//       CHECK: llvm.mlir.global internal @__executor_site_first() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_first : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F6:.*]] = llvm.insertvalue %[[V]], %[[F5]][6] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F7:.*]] = llvm.insertvalue %[[V]], %[[F6]][7] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F8:.*]] = llvm.insertvalue %[[V]], %[[F7]][8] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F9:.*]] = llvm.insertvalue %[[V]], %[[F8]][9] :
//  CHECK-NEXT:   llvm.return %[[F9]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//       CHECK: llvm.mlir.global internal @__executor_site_second() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_second : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F6:.*]] = llvm.insertvalue %[[V]], %[[F5]][6] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F7:.*]] = llvm.insertvalue %[[V]], %[[F6]][7] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F8:.*]] = llvm.insertvalue %[[V]], %[[F7]][8] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F9:.*]] = llvm.insertvalue %[[V]], %[[F8]][9] :
//  CHECK-NEXT:   llvm.return %[[F9]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @two_launches_same_types_share_one_frame(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[A:arg[0-9]+]]: memref<4xf32>, %[[B:arg[0-9]+]]: memref<4xf32>)
//  CHECK-NEXT:   %[[FIRST_SITE:.*]] = llvm.mlir.addressof @__executor_site_first : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U0:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A0:.*]] = llvm.insertvalue %[[IN]], %[[U0]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A0]], %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[OUT:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U1:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A1:.*]] = llvm.insertvalue %[[OUT]], %[[U1]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A1]], %[[OUT_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[SECOND_SITE:.*]] = llvm.mlir.addressof @__executor_site_second : !llvm.ptr
//  CHECK-NEXT:   %[[DA:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[DA]], %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[FIRST_SITE]], %[[S]], %[[IN_ARRAY]], %[[OUT_ARRAY]])
//  CHECK-NEXT:   %[[DY:.*]] = llvm.load %[[OUT]]
//  CHECK-NEXT:   %[[Y:.*]] = builtin.unrealized_conversion_cast %[[DY]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4xf32>
//  CHECK-NEXT:   %[[DB:.*]] = builtin.unrealized_conversion_cast %[[B]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[DB]], %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SECOND_SITE]], %[[S]], %[[IN_ARRAY]], %[[OUT_ARRAY]])
//  CHECK-NEXT:   %[[DZ:.*]] = llvm.load %[[OUT]]
//  CHECK-NEXT:   %[[Z:.*]] = builtin.unrealized_conversion_cast %[[DZ]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4xf32>
//  CHECK-NEXT:   return %[[Y]], %[[Z]]
func.func @two_launches_same_types_share_one_frame(%s: !executor.session, %a: memref<4xf32>, %b: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %y = executor.launch %s("first", "k.o")(%a) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  %z = executor.launch %s("second", "k.o")(%b) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  return %y, %z : memref<4xf32>, memref<4xf32>
}

// -----

// Frames are keyed by descriptor types: memref<4xf32> and memref<?xi64> are
// both rank-1 descriptors, so the two launches share one frame; only their
// element sizes differ, which their sites hold.
//       CHECK: llvm.mlir.global internal @__executor_site_first() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_first : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//       CHECK: llvm.mlir.global internal @__executor_site_second() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_second : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @same_descriptor_types_share_one_frame(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[A:arg[0-9]+]]: memref<4xf32>, %[[B:arg[0-9]+]]: memref<?xi64>)
//  CHECK-NEXT:   %[[FIRST_SITE:.*]] = llvm.mlir.addressof @__executor_site_first : !llvm.ptr
//       CHECK:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//   CHECK-NOT:   llvm.alloca
//       CHECK:   %[[SECOND_SITE:.*]] = llvm.mlir.addressof @__executor_site_second : !llvm.ptr
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %[[A]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[FIRST_SITE]], %[[S]], %[[IN_ARRAY]],
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %[[B]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SECOND_SITE]], %[[S]], %[[IN_ARRAY]],
//  CHECK-NEXT:   return
func.func @same_descriptor_types_share_one_frame(%s: !executor.session, %a: memref<4xf32>, %b: memref<?xi64>) {
  executor.launch %s("first", "k.o")(%a) : !executor.session, (memref<4xf32>) -> ()
  executor.launch %s("second", "k.o")(%b) : !executor.session, (memref<?xi64>) -> ()
  return
}

// -----

// Launches with different types in one function get a frame each: a rank-1
// and a rank-2 input, then a launch with the first one's input but with a
// result. The frames are appended to the one prologue as the launches need
// them; the constants and addresses already there are reused.
//       CHECK: llvm.mlir.global internal @__executor_site_first() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_first : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//       CHECK: llvm.mlir.global internal @__executor_site_second() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_second : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_2 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//       CHECK: llvm.mlir.global internal @__executor_site_third() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_third : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F6:.*]] = llvm.insertvalue %[[V]], %[[F5]][6] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F7:.*]] = llvm.insertvalue %[[V]], %[[F6]][7] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F8:.*]] = llvm.insertvalue %[[V]], %[[F7]][8] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F9:.*]] = llvm.insertvalue %[[V]], %[[F8]][9] :
//  CHECK-NEXT:   llvm.return %[[F9]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @launches_with_different_types_get_own_frames(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[A:arg[0-9]+]]: memref<4xf32>, %[[B:arg[0-9]+]]: memref<2x2xf32>)
//  CHECK-NEXT:   %[[FIRST_SITE:.*]] = llvm.mlir.addressof @__executor_site_first : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// The frame of the first launch.
//  CHECK-NEXT:   %[[IN1:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN1_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[IN1]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN1_ARRAY]]
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// The frame of the second launch.
//  CHECK-NEXT:   %[[SECOND_SITE:.*]] = llvm.mlir.addressof @__executor_site_second : !llvm.ptr
//  CHECK-NEXT:   %[[IN2:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN2_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[IN2]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN2_ARRAY]]
// The frame of the third launch: its own input slot too.
//  CHECK-NEXT:   %[[THIRD_SITE:.*]] = llvm.mlir.addressof @__executor_site_third : !llvm.ptr
//  CHECK-NEXT:   %[[IN3:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN3_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[IN3]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN3_ARRAY]]
//  CHECK-NEXT:   %[[OUT3:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[OUT3_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.insertvalue %[[OUT3]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[OUT3_ARRAY]]
// The launches, each with its own frame.
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %[[A]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN1]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[FIRST_SITE]], %[[S]], %[[IN1_ARRAY]], %[[NULL]])
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %[[B]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN2]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SECOND_SITE]], %[[S]], %[[IN2_ARRAY]], %[[NULL]])
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %[[A]]
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[IN3]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[THIRD_SITE]], %[[S]], %[[IN3_ARRAY]], %[[OUT3_ARRAY]])
//  CHECK-NEXT:   llvm.load %[[OUT3]]
//  CHECK-NEXT:   builtin.unrealized_conversion_cast
//  CHECK-NEXT:   return
func.func @launches_with_different_types_get_own_frames(%s: !executor.session, %a: memref<4xf32>, %b: memref<2x2xf32>) {
  executor.launch %s("first", "k.o")(%a) : !executor.session, (memref<4xf32>) -> ()
  executor.launch %s("second", "k.o")(%b) : !executor.session, (memref<2x2xf32>) -> ()
  %r = executor.launch %s("third", "k.o")(%a) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  return
}

// -----

// Launches in two functions: each function has its own prologue, with its own
// constants, addresses and frame, even though the launches are the same (and
// share their kernel's site, the module's only one, addressed in each).
//       CHECK: llvm.mlir.global internal @__executor_site_k() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_k : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[F3:.*]] = llvm.insertvalue %[[V]], %[[F2]][3] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[F4:.*]] = llvm.insertvalue %[[V]], %[[F3]][4] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[F5:.*]] = llvm.insertvalue %[[V]], %[[F4]][5] :
//  CHECK-NEXT:   llvm.return %[[F5]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//   CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: func.func @first_function(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[A:arg[0-9]+]]: memref<4xf32>) {
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[AR:.*]] = llvm.insertvalue %[[IN]], %[[U]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[AR]], %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[IN_ARRAY]], %[[NULL]])
//  CHECK-NEXT:   return
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @second_function(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[A:arg[0-9]+]]: memref<4xf32>) {
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[AR:.*]] = llvm.insertvalue %[[IN]], %[[U]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[AR]], %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[IN]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[IN_ARRAY]], %[[NULL]])
//  CHECK-NEXT:   return
//  CHECK-NEXT: }
func.func @first_function(%s: !executor.session, %a: memref<4xf32>) {
  executor.launch %s("k", "k.o")(%a) : !executor.session, (memref<4xf32>) -> ()
  return
}
func.func @second_function(%s: !executor.session, %a: memref<4xf32>) {
  executor.launch %s("k", "k.o")(%a) : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// executor.call
//===----------------------------------------------------------------------===//

// A call in a loop: its two result slots and the constants of its packing are
// in the entry block; the loop body only packs, calls and unpacks.
// CHECK-LABEL: func.func @call_in_scf_for(
//  CHECK-NEXT:   %[[SYM:.*]] = llvm.mlir.addressof @__executor_str_f : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(4 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(7 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(-8 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(24 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(4996817734299549698 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(8 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(16 : i64) : i64
//  CHECK-NEXT:   llvm.mlir.constant(-9223372036854775808 : i64) : i64
//  CHECK-NEXT:   %[[OUT_BUF_SLOT:.*]] = llvm.alloca %[[ONE]] x !llvm.ptr : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[OUT_SIZE_SLOT:.*]] = llvm.alloca %[[ONE]] x i64 : (i64) -> !llvm.ptr
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   arith.constant 1 : index
//  CHECK-NEXT:   scf.for
//   CHECK-NOT:     {{llvm.alloca|llvm.mlir.}}
//       CHECK:     llvm.call @__catalyst__executor__call_wrapper(%{{.*}}, %[[SYM]], %{{.*}}, %{{.*}}, %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]])
//   CHECK-NOT:     {{llvm.alloca|llvm.mlir.}}
//       CHECK:     llvm.call @__catalyst__executor__free_result(
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @call_in_scf_for(%s: !executor.session, %x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    executor.call %s("f")(%x) {num_input_args = 1 : i32} : !executor.session, (memref<4xf32>) -> ()
  }
  return
}

// -----

// Any op isolated from above is an allocation scope of its own: its body
// cannot use values from outside, so the prologue goes into its entry block.
// Without inputs or results, both arrays passed are the null pointer and the
// site holds only the entry symbol and the object.
//       CHECK: llvm.mlir.global internal @__executor_site_kernel() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_kernel : !llvm.ptr
//  CHECK-NEXT:   %[[F1:.*]] = llvm.insertvalue %[[V]], %[[F0]][1] :
//  CHECK-NEXT:   %[[V:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[F2:.*]] = llvm.insertvalue %[[V]], %[[F1]][2] :
//  CHECK-NEXT:   llvm.return %[[F2]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
// CHECK-LABEL: ml_program.func @launch_in_isolated_function_like_op
// CHECK-SAME:    (%[[S:.*]]: i64)
// CHECK-NEXT:    %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero
// CHECK-NEXT:    llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[NULL]], %[[NULL]])
// CHECK-NEXT:    ml_program.return
ml_program.func @launch_in_isolated_function_like_op(%s: !executor.session) {
  executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> ()
  ml_program.return
}

// -----

// An op in the second region of an op that is isolated from above gets its
// prologue at the top of that region's entry block, not of the first region.
// CHECK-LABEL: omp.declare_reduction @sum : i64 init {
//  CHECK-NEXT: ^bb0(%{{.*}}: i64):
//  CHECK-NEXT:   omp.yield
//  CHECK-NEXT: } combiner {
//  CHECK-NEXT: ^bb0(%{{.*}}: i64, %{{.*}}: i64):
//  CHECK-NEXT:   %[[ADDR:.*]] = llvm.mlir.addressof @__executor_str_a : !llvm.ptr
//  CHECK-NEXT:   %[[S:.*]] = llvm.call @__catalyst__executor__open(%[[ADDR]])
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[S]])
omp.declare_reduction @sum : i64 init {
^bb0(%a: i64):
  omp.yield(%a : i64)
} combiner {
^bb0(%a: i64, %b: i64):
  %s = executor.open("a") : !executor.session
  executor.close %s : !executor.session
  omp.yield(%a : i64)
}
