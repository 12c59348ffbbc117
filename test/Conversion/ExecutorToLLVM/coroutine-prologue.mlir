// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s

// Executor ops that run before a coroutine's coro.begin, in the form an async
// lowering leaves (convert-async-to-llvm: llvm.intr.coro.* in a func.func, or
// in an llvm.func once the functions are lowered). The prologue of the ops
// after coro.begin goes right after it, so that its slots belong to the
// coroutine's frame (alloca-in-entry-block.mlir); what it defines there does
// not dominate an op before coro.begin. The ops before coro.begin get their
// own prologue at the top of the entry block, and their own slots: they run
// before the frame exists, and their slots are never used after coro.begin.

// The session opened before coro.begin: the string's address is made above
// the call that uses it, not after coro.begin.
// CHECK-LABEL: llvm.func @open_before_coro_begin(
//  CHECK-NEXT:   %[[ADDR:.*]] = llvm.mlir.addressof @__executor_str_local : !llvm.ptr
//  CHECK-NEXT:   %[[S:.*]] = llvm.call @__catalyst__executor__open(%[[ADDR]]) : (!llvm.ptr) -> i64
//  CHECK-NEXT:   llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   llvm.intr.coro.id
//  CHECK-NEXT:   %[[HANDLE:.*]] = llvm.intr.coro.begin
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[S]]) : (i64) -> i64
//  CHECK-NEXT:   llvm.return %[[HANDLE]] : !llvm.ptr
llvm.func @open_before_coro_begin() -> !llvm.ptr attributes {passthrough = ["presplitcoroutine"]} {
  %s = executor.open("local") : !executor.session
  %align = llvm.mlir.constant(0 : i32) : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %id = llvm.intr.coro.id %align, %null, %null, %null : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.token
  %handle = llvm.intr.coro.begin %id, %null : (!llvm.token, !llvm.ptr) -> !llvm.ptr
  executor.close %s : !executor.session
  llvm.return %handle : !llvm.ptr
}

// -----

// Two launches of the same kernel and types, one on each side of coro.begin.
// Each gets the slots of its own prologue: the first those at the top of the
// block, the second those after coro.begin (sharing the first's would hand
// the runtime the address of a slot on the stack of the first call).
// CHECK-LABEL: func.func @launches_before_and_after_coro_begin(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[M:arg[0-9]+]]: memref<4xf32>)
//  CHECK-NEXT:   %[[SITE0:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   %[[ONE0:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN0:.*]] = llvm.alloca %[[ONE0]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN0_ARRAY:.*]] = llvm.alloca %[[ONE0]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U0:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A0:.*]] = llvm.insertvalue %[[IN0]], %[[U0]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A0]], %[[IN0_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL0:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[D0:.*]] = builtin.unrealized_conversion_cast %[[M]] : memref<4xf32> to
//  CHECK-NEXT:   llvm.store %[[D0]], %[[IN0]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE0]], %[[S]], %[[IN0_ARRAY]], %[[NULL0]])
//  CHECK-NEXT:   llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   llvm.intr.coro.id
//  CHECK-NEXT:   %[[HANDLE:.*]] = llvm.intr.coro.begin
//  CHECK-NEXT:   %[[SITE1:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   %[[ONE1:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN1:.*]] = llvm.alloca %[[ONE1]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN1_ARRAY:.*]] = llvm.alloca %[[ONE1]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U1:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A1:.*]] = llvm.insertvalue %[[IN1]], %[[U1]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A1]], %[[IN1_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL1:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[D1:.*]] = builtin.unrealized_conversion_cast %[[M]] : memref<4xf32> to
//  CHECK-NEXT:   llvm.store %[[D1]], %[[IN1]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE1]], %[[S]], %[[IN1_ARRAY]], %[[NULL1]])
//  CHECK-NEXT:   return %[[HANDLE]] : !llvm.ptr
func.func @launches_before_and_after_coro_begin(%s: !executor.session, %m: memref<4xf32>) -> !llvm.ptr attributes {passthrough = ["presplitcoroutine"]} {
  executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
  %align = llvm.mlir.constant(0 : i32) : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %id = llvm.intr.coro.id %align, %null, %null, %null : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.token
  %handle = llvm.intr.coro.begin %id, %null : (!llvm.token, !llvm.ptr) -> !llvm.ptr
  executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<4xf32>) -> ()
  return %handle : !llvm.ptr
}

// -----

// An op nested in an op before coro.begin runs before it too: its path and
// format go to the prologue at the top of the block.
// CHECK-LABEL: func.func @send_binary_in_scf_if_before_coro_begin(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[C:arg[0-9]+]]: i1)
//  CHECK-NEXT:   %[[PATH:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[FORMAT:.*]] = llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   scf.if %[[C]] {
//  CHECK-NEXT:     llvm.call @__catalyst__executor__send_binary(%[[S]], %[[PATH]], %[[FORMAT]]) : (i64, !llvm.ptr, i32) -> i64
//  CHECK-NEXT:   }
//  CHECK-NEXT:   llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   llvm.intr.coro.id
//  CHECK-NEXT:   %[[HANDLE:.*]] = llvm.intr.coro.begin
//  CHECK-NEXT:   return %[[HANDLE]] : !llvm.ptr
func.func @send_binary_in_scf_if_before_coro_begin(%s: !executor.session, %c: i1) -> !llvm.ptr attributes {passthrough = ["presplitcoroutine"]} {
  scf.if %c {
    executor.send_binary %s("k.o") : !executor.session
  }
  %align = llvm.mlir.constant(0 : i32) : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %id = llvm.intr.coro.id %align, %null, %null, %null : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.token
  %handle = llvm.intr.coro.begin %id, %null : (!llvm.token, !llvm.ptr) -> !llvm.ptr
  return %handle : !llvm.ptr
}
