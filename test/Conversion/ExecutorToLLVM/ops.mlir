// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s
// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface})' | FileCheck %s --check-prefix=PYFACE

// One case per executor op: each op becomes one llvm.call to its function of
// the executor runtime ABI, whose declaration is added once to the module with
// its exact type. Strings become internal constant NUL-terminated globals
// named after their content, one per distinct content. The constants, global
// addresses and stack slots the calls take are made once per function, in a
// prologue at the top of its entry block; the call stays where the op was.

//===----------------------------------------------------------------------===//
// executor.open
//===----------------------------------------------------------------------===//

// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_127_0_0_1_9000("127.0.0.1:9000\00") {addr_space = 0 : i32}{{$}}
// CHECK-DAG: llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64{{$}}
// CHECK-LABEL: func.func @open_calls_runtime_open()
//  CHECK-SAME:     -> i64
//       CHECK:   %[[ADDR:.*]] = llvm.mlir.addressof @__executor_str_127_0_0_1_9000 : !llvm.ptr
//  CHECK-NEXT:   %[[S:.*]] = llvm.call @__catalyst__executor__open(%[[ADDR]]) : (!llvm.ptr) -> i64
//  CHECK-NEXT:   return %[[S]] : i64
func.func @open_calls_runtime_open() -> !executor.session {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  return %s : !executor.session
}

// -----

//===----------------------------------------------------------------------===//
// executor.send_binary
//===----------------------------------------------------------------------===//

// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_kernels_o("kernels.o\00") {addr_space = 0 : i32}{{$}}
// CHECK-DAG: llvm.func @__catalyst__executor__send_binary(i64, !llvm.ptr, i32) -> i64{{$}}
// CHECK-LABEL: func.func @send_binary_default_format_is_0(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64)
//       CHECK:   %[[PATH:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[FORMAT:.*]] = llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   llvm.call @__catalyst__executor__send_binary(%[[S]], %[[PATH]], %[[FORMAT]]) : (i64, !llvm.ptr, i32) -> i64
//  CHECK-NEXT:   return
func.func @send_binary_default_format_is_0(%s: !executor.session) {
  executor.send_binary %s("kernels.o") : !executor.session
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_libnative_so("libnative.so\00") {addr_space = 0 : i32}{{$}}
// CHECK-DAG: llvm.func @__catalyst__executor__send_binary(i64, !llvm.ptr, i32) -> i64{{$}}
// CHECK-LABEL: func.func @send_binary_format_2(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64)
//       CHECK:   %[[PATH:.*]] = llvm.mlir.addressof @__executor_str_libnative_so : !llvm.ptr
//  CHECK-NEXT:   %[[FORMAT:.*]] = llvm.mlir.constant(2 : i32) : i32
//  CHECK-NEXT:   llvm.call @__catalyst__executor__send_binary(%[[S]], %[[PATH]], %[[FORMAT]]) : (i64, !llvm.ptr, i32) -> i64
func.func @send_binary_format_2(%s: !executor.session) {
  executor.send_binary %s("libnative.so") {format = 2 : i32} : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// executor.launch
//===----------------------------------------------------------------------===//

// The entry symbol is the C-interface wrapper of the kernel; one input and one
// result, both memref<4xf32>: rank 1, 4-byte elements. With
// entry-convention=catalyst-pyface, it is Catalyst's pyface wrapper instead,
// launched as Catalyst's lowering launches it: through __catalyst__executor__launch,
// without a launch site (launch.mlir checks the sites).
// PYFACE-DAG: llvm.mlir.global internal constant @__executor_str__catalyst_pyface_add_one("_catalyst_pyface_add_one\00")
// PYFACE-LABEL: func.func @launch_calls_runtime_launch(
//  PYFACE-NEXT:   %[[ENTRY:.*]] = llvm.mlir.addressof @__executor_str__catalyst_pyface_add_one : !llvm.ptr
//       PYFACE:   llvm.call @__catalyst__executor__launch(%{{.*}}, %[[ENTRY]],
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str__mlir_ciface_add_one("_mlir_ciface_add_one\00") {addr_space = 0 : i32}{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_kernels_o("kernels.o\00") {addr_space = 0 : i32}{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_1(dense<1> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_4(dense<4> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// The launch site: what the launch passes unchanged, the rank and element-size
// arrays shared by the input and the output, then the result's static sizes,
// [4] (the same array as the element sizes).
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_add_one() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[ZEROS:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[ENTRY:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_add_one : !llvm.ptr
//  CHECK-NEXT:   %[[V1:.*]] = llvm.insertvalue %[[ENTRY]], %[[ZEROS]][1]
//  CHECK-NEXT:   %[[OBJ:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[V2:.*]] = llvm.insertvalue %[[OBJ]], %[[V1]][2]
//  CHECK-NEXT:   %[[NIN:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[V3:.*]] = llvm.insertvalue %[[NIN]], %[[V2]][3]
//  CHECK-NEXT:   %[[IN_RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[V4:.*]] = llvm.insertvalue %[[IN_RANKS]], %[[V3]][4]
//  CHECK-NEXT:   %[[IN_SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[V5:.*]] = llvm.insertvalue %[[IN_SIZES]], %[[V4]][5]
//  CHECK-NEXT:   %[[NOUT:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[V6:.*]] = llvm.insertvalue %[[NOUT]], %[[V5]][6]
//  CHECK-NEXT:   %[[OUT_RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[V7:.*]] = llvm.insertvalue %[[OUT_RANKS]], %[[V6]][7]
//  CHECK-NEXT:   %[[OUT_SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[V8:.*]] = llvm.insertvalue %[[OUT_SIZES]], %[[V7]][8]
//  CHECK-NEXT:   %[[OUT_SHAPE:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[V9:.*]] = llvm.insertvalue %[[OUT_SHAPE]], %[[V8]][9]
//  CHECK-NEXT:   llvm.return %[[V9]] : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT: }
//  CHECK-NEXT: llvm.func @__executor__launch_at_site(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr){{$}}
// CHECK-LABEL: func.func @launch_calls_runtime_launch(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[X:arg[0-9]+]]: memref<4xf32>) -> memref<4xf32>
// The prologue, at the top of the entry block: the launch site's address,
// then the frame.
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
// Where the launch was: the input descriptor into its slot, the call, the
// result descriptor out of its slot.
//  CHECK-NEXT:   %[[XD:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[XD]], %[[IN]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[IN_ARRAY]], %[[OUT_ARRAY]]) : (!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> (){{$}}
//  CHECK-NEXT:   %[[YD:.*]] = llvm.load %[[OUT]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[Y:.*]] = builtin.unrealized_conversion_cast %[[YD]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4xf32>
//  CHECK-NEXT:   return %[[Y]] : memref<4xf32>
func.func @launch_calls_runtime_launch(%s: !executor.session, %x: memref<4xf32>) -> memref<4xf32> {
  %y = executor.launch %s("add_one", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  return %y : memref<4xf32>
}

// -----

// The arrays of descriptor pointers hold the input and output slots; each is
// filled once, in the prologue, right after its slots.
// CHECK-LABEL: func.func @launch_fills_descriptor_pointer_arrays(
//       CHECK:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U0:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A0:.*]] = llvm.insertvalue %[[IN]], %[[U0]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A0]], %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[OUT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U1:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A1:.*]] = llvm.insertvalue %[[OUT]], %[[U1]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A1]], %[[OUT_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//   CHECK-NOT:   llvm.insertvalue
//       CHECK:   llvm.store %{{.*}}, %[[IN]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%{{.*}}, %{{.*}}, %[[IN_ARRAY]], %[[OUT_ARRAY]])
//  CHECK-NEXT:   llvm.load %[[OUT]]
func.func @launch_fills_descriptor_pointer_arrays(%s: !executor.session, %x: memref<8xi32>) -> memref<8xi32> {
  %y = executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<8xi32>) -> memref<8xi32>
  return %y : memref<8xi32>
}

// -----

//===----------------------------------------------------------------------===//
// executor.launch_async / executor.await
//===----------------------------------------------------------------------===//

// The entry of launch_async is the kernel_callee as is by default (a
// `void(void)` function needs no _mlir_ciface_ wrapper); with
// entry-convention=catalyst-pyface it is Catalyst's _catalyst_pyface_ entry,
// which the runtime calls with two null pointers.
// PYFACE-DAG: llvm.mlir.global internal constant @__executor_str__catalyst_pyface_warm_up("_catalyst_pyface_warm_up\00")
// PYFACE-LABEL: func.func @launch_async_calls_runtime_launch_async(
//       PYFACE:   %[[ENTRY:.*]] = llvm.mlir.addressof @__executor_str__catalyst_pyface_warm_up : !llvm.ptr
//  PYFACE-NEXT:   %[[OBJ:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  PYFACE-NEXT:   llvm.call @__catalyst__executor__launch_async(%{{.*}}, %[[ENTRY]], %[[OBJ]])
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_warm_up("warm_up\00") {addr_space = 0 : i32}{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_kernels_o("kernels.o\00") {addr_space = 0 : i32}{{$}}
// CHECK-DAG: llvm.func @__catalyst__executor__launch_async(i64, !llvm.ptr, !llvm.ptr) -> i64{{$}}
// CHECK-LABEL: func.func @launch_async_calls_runtime_launch_async(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64) -> i64
//       CHECK:   %[[ENTRY:.*]] = llvm.mlir.addressof @__executor_str_warm_up : !llvm.ptr
//  CHECK-NEXT:   %[[OBJ:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[T:.*]] = llvm.call @__catalyst__executor__launch_async(%[[S]], %[[ENTRY]], %[[OBJ]]) : (i64, !llvm.ptr, !llvm.ptr) -> i64
//  CHECK-NEXT:   return %[[T]] : i64
func.func @launch_async_calls_runtime_launch_async(%s: !executor.session) -> !executor.token {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  return %t : !executor.token
}

// -----

// CHECK-DAG: llvm.func @__catalyst__executor__await(i64){{$}}
// CHECK-LABEL: func.func @await_calls_runtime_await(
//  CHECK-SAME:     %[[T:arg[0-9]+]]: i64)
//  CHECK-NEXT:   llvm.call @__catalyst__executor__await(%[[T]]) : (i64) -> (){{$}}
//  CHECK-NEXT:   return
func.func @await_calls_runtime_await(%t: !executor.token) {
  executor.await %t : !executor.token
  return
}

// -----

// CHECK-LABEL: func.func @await_token_of_launch_async(
//       CHECK:   %[[T:.*]] = llvm.call @__catalyst__executor__launch_async(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr) -> i64
//  CHECK-NEXT:   llvm.call @__catalyst__executor__await(%[[T]]) : (i64) -> ()
func.func @await_token_of_launch_async(%s: !executor.session) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  return
}

// -----

//===----------------------------------------------------------------------===//
// executor.close
//===----------------------------------------------------------------------===//

// The runtime's status result is dropped: executor.close has no result.
// CHECK-DAG: llvm.func @__catalyst__executor__close(i64) -> i64{{$}}
// CHECK-LABEL: func.func @close_calls_runtime_close(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64)
//  CHECK-NEXT:   llvm.call @__catalyst__executor__close(%[[S]]) : (i64) -> i64
//  CHECK-NEXT:   return
func.func @close_calls_runtime_close(%s: !executor.session) {
  executor.close %s : !executor.session
  return
}

// -----

//===----------------------------------------------------------------------===//
// Module-level symbols
//===----------------------------------------------------------------------===//

// Each runtime function is declared once however many ops call it.
// CHECK-COUNT-1: llvm.func @__catalyst__executor__open(
//   CHECK-NOT: llvm.func @__catalyst__executor__open(
// CHECK-LABEL: func.func @open_twice_declares_open_once()
//       CHECK:   llvm.call @__catalyst__executor__open(
//       CHECK:   llvm.call @__catalyst__executor__open(
func.func @open_twice_declares_open_once() {
  %a = executor.open("host-a") : !executor.session
  %b = executor.open("host-b") : !executor.session
  return
}

// -----

// An existing declaration of the right type is reused, not duplicated.
// CHECK-COUNT-1: llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
//   CHECK-NOT: llvm.func @__catalyst__executor__open(
// CHECK-LABEL: func.func @existing_runtime_declaration_is_reused()
//       CHECK:   llvm.call @__catalyst__executor__open(%{{.*}}) : (!llvm.ptr) -> i64
llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
func.func @existing_runtime_declaration_is_reused() {
  %s = executor.open("localhost") : !executor.session
  return
}

// -----

// Two launches of the same kernel and object share one launch site, which
// holds the one global for the object (and the one for the entry symbol); its
// address is taken once in the function's prologue and passed by both calls.
//       CHECK: llvm.mlir.global internal constant @[[ENTRY:__executor_str__mlir_ciface_kernel]]("_mlir_ciface_kernel\00")
//       CHECK: llvm.mlir.global internal constant @[[OBJ:__executor_str_shared_o]]("shared.o\00")
//       CHECK: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   llvm.mlir.addressof @[[ENTRY]] : !llvm.ptr
//       CHECK:   llvm.mlir.addressof @[[OBJ]] : !llvm.ptr
//   CHECK-NOT: "_mlir_ciface_kernel\00"
//   CHECK-NOT: "shared.o\00"
//   CHECK-NOT: @__executor_site_kernel_1
// CHECK-LABEL: func.func @launches_of_same_object_share_one_global(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//   CHECK-NOT:   llvm.mlir.addressof
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]],
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]],
//  CHECK-NEXT:   return
func.func @launches_of_same_object_share_one_global(%s: !executor.session) {
  executor.launch %s("kernel", "shared.o")() : !executor.session, () -> ()
  executor.launch %s("kernel", "shared.o")() : !executor.session, () -> ()
  return
}

// -----

// The same string used by different ops (send_binary's path, launch's object)
// is one global, addressed once in the function: the same address serves both.
//       CHECK: llvm.mlir.global internal constant @[[OBJ:__executor_str_kernels_o]]("kernels.o\00")
//   CHECK-NOT: "kernels.o\00"
// CHECK-LABEL: func.func @send_binary_and_launch_share_object_global(
//  CHECK-NEXT:   %[[PATH:.*]] = llvm.mlir.addressof @[[OBJ]] : !llvm.ptr
//   CHECK-NOT:   llvm.mlir.addressof @[[OBJ]]
//       CHECK:   llvm.call @__catalyst__executor__send_binary(%{{.*}}, %[[PATH]], %{{.*}})
//  CHECK-NEXT:   llvm.call @__catalyst__executor__launch_async(%{{.*}}, %{{.*}}, %[[PATH]])
func.func @send_binary_and_launch_share_object_global(%s: !executor.session) {
  executor.send_binary %s("kernels.o") : !executor.session
  %t = executor.launch_async %s("entry", "kernels.o") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  return
}

// -----

// Each constant (by type and value) and each global address is made once per
// function, in its prologue, however many ops use it: the path "k.o" of two
// send_binary and a launch_async; the format `0 : i32`; the site and frame of
// the two launches, which have the same kernel, object and types.
// CHECK-COUNT-1: llvm.mlir.global internal constant @__executor_str_k_o("k.o\00")
//     CHECK-NOT: llvm.mlir.global internal constant @__executor_str_k_o
// CHECK-LABEL: func.func @constants_and_addresses_once_per_function(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[X:arg[0-9]+]]: memref<4xf32>)
//  CHECK-NEXT:   %[[PATH:.*]] = llvm.mlir.addressof @__executor_str_k_o : !llvm.ptr
//  CHECK-NEXT:   %[[FORMAT:.*]] = llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[SLOT:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A:.*]] = llvm.insertvalue %[[SLOT]], %[[U]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A]], %[[ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[ASYNC_ENTRY:.*]] = llvm.mlir.addressof @__executor_str_k : !llvm.ptr
// Then, where the ops were, only their own code: no constant, address, null
// or alloca is made again.
//  CHECK-NEXT:   llvm.call @__catalyst__executor__send_binary(%[[S]], %[[PATH]], %[[FORMAT]]) : (i64, !llvm.ptr, i32) -> i64
//  CHECK-NEXT:   llvm.call @__catalyst__executor__send_binary(%[[S]], %[[PATH]], %[[FORMAT]]) : (i64, !llvm.ptr, i32) -> i64
//  CHECK-NEXT:   %[[D0:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D0]], %[[SLOT]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[ARRAY]], %[[NULL]])
//  CHECK-NEXT:   %[[D1:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D1]], %[[SLOT]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[ARRAY]], %[[NULL]])
//  CHECK-NEXT:   %[[T:.*]] = llvm.call @__catalyst__executor__launch_async(%[[S]], %[[ASYNC_ENTRY]], %[[PATH]]) : (i64, !llvm.ptr, !llvm.ptr) -> i64
//  CHECK-NEXT:   llvm.call @__catalyst__executor__await(%[[T]]) : (i64) -> ()
//  CHECK-NEXT:   return
func.func @constants_and_addresses_once_per_function(%s: !executor.session, %x: memref<4xf32>) {
  executor.send_binary %s("k.o") : !executor.session
  executor.send_binary %s("k.o") {format = 0 : i32} : !executor.session
  executor.launch %s("k", "k.o")(%x) : !executor.session, (memref<4xf32>) -> ()
  executor.launch %s("k", "k.o")(%x) : !executor.session, (memref<4xf32>) -> ()
  %t = executor.launch_async %s("k", "k.o") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  return
}

// -----

// Distinct strings whose readable names coincide get numbered suffixes.
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_a_o("a.o\00")
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_a_o_1("a-o\00")
// CHECK-LABEL: func.func @same_readable_name_gets_suffix(
//       CHECK:   llvm.mlir.addressof @__executor_str_a_o : !llvm.ptr
//       CHECK:   llvm.mlir.addressof @__executor_str_a_o_1 : !llvm.ptr
func.func @same_readable_name_gets_suffix(%s: !executor.session) {
  executor.send_binary %s("a.o") : !executor.session
  executor.send_binary %s("a-o") : !executor.session
  return
}

// -----

// A symbol of the module that already has the readable name is left alone.
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_k_o_1("k.o\00")
// CHECK-DAG: func.func private @__executor_str_k_o(){{$}}
// CHECK-LABEL: func.func @existing_symbol_name_is_not_reused(
//       CHECK:   llvm.mlir.addressof @__executor_str_k_o_1 : !llvm.ptr
func.func private @__executor_str_k_o()
func.func @existing_symbol_name_is_not_reused(%s: !executor.session) {
  executor.send_binary %s("k.o") : !executor.session
  return
}

// -----

// Quotes, control characters and non-ASCII bytes are hex-escaped in the
// global's value and replaced by `_` in its name.
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_dir__q____o("dir/\22q\22\0A\C3\BC.o\00")
// CHECK-LABEL: func.func @string_escapes(
//       CHECK:   llvm.mlir.addressof @__executor_str_dir__q____o : !llvm.ptr
func.func @string_escapes(%s: !executor.session) {
  executor.send_binary %s("dir/\"q\"\nü.o") : !executor.session
  return
}

// -----

// The readable part of a name stops after 40 characters; the value is whole.
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_0123456789012345678901234567890123456789("0123456789012345678901234567890123456789_tail.o\00")
// CHECK-LABEL: func.func @long_string_name_is_truncated(
//       CHECK:   llvm.mlir.addressof @__executor_str_0123456789012345678901234567890123456789 : !llvm.ptr
func.func @long_string_name_is_truncated(%s: !executor.session) {
  executor.send_binary %s("0123456789012345678901234567890123456789_tail.o") : !executor.session
  return
}

// -----

// Each module gets the declarations and globals its own ops use.

// CHECK-LABEL: module @outer
// CHECK:         llvm.mlir.global internal constant @__executor_str_x("x\00")
// CHECK-NEXT:    llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
// CHECK-LABEL:   module @inner
// CHECK:           llvm.mlir.global internal constant @__executor_str_x("x\00")
// CHECK-NEXT:      llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
// CHECK-LABEL:     func.func @open_in_nested_module
// CHECK:             llvm.mlir.addressof @__executor_str_x
// CHECK-LABEL:   func.func @open_in_outer_module
module @outer {
  module @inner {
    func.func @open_in_nested_module() -> !executor.session {
      %s = executor.open("x") : !executor.session
      return %s : !executor.session
    }
  }
  func.func @open_in_outer_module() -> !executor.session {
    %s = executor.open("x") : !executor.session
    return %s : !executor.session
  }
}

// -----

//===----------------------------------------------------------------------===//
// Strings and symbols that are not UTF-8
//===----------------------------------------------------------------------===//

// MLIR strings are bytes: an address that is not UTF-8 is passed on byte for
// byte; its global's name replaces the invalid byte by `_`.
// CHECK-DAG: llvm.mlir.global internal constant @[[ADDR:__executor_str_[a-z_]*]]("\FFhost\00")
// CHECK-LABEL: func.func @non_utf8_address(
//       CHECK:   llvm.mlir.addressof @[[ADDR]] : !llvm.ptr
func.func @non_utf8_address() -> !executor.session {
  %s = executor.open("\ffhost") : !executor.session
  return %s : !executor.session
}

// -----

// A kernel name that is not UTF-8 gets the entry prefix in front of its bytes.
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("_mlir_ciface_\FEk\00")
// CHECK-LABEL: func.func @non_utf8_kernel(
func.func @non_utf8_kernel(%s: !executor.session) {
  executor.launch %s("\fek", "k.o")() : !executor.session, () -> ()
  return
}

// -----

// Symbols of the module that are not UTF-8, or empty, are kept and avoided.
// CHECK-DAG: func.func private @"\FF"()
// CHECK-DAG: llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
// CHECK-LABEL: func.func @odd_module_symbols(
//       CHECK:   llvm.call @__catalyst__executor__open
func.func private @"\ff"()
func.func private @""()
func.func @odd_module_symbols() -> !executor.session {
  %s = executor.open("a") : !executor.session
  return %s : !executor.session
}

// -----

//===----------------------------------------------------------------------===//
// Symbol tables other than the top-level module
//===----------------------------------------------------------------------===//

// The declarations and globals go to the innermost symbol table around the
// op, here a gpu.module, where its llvm.call's look their callees up.
// CHECK-LABEL: gpu.module @kernels {
//  CHECK-NEXT:   llvm.mlir.global internal constant @__executor_str_a("a\00")
//  CHECK-NEXT:   llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
//       CHECK:   func.func @open_in_gpu_module(
//       CHECK:     llvm.call @__catalyst__executor__open
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @open_in_gpu_module() -> !executor.session {
      %s = executor.open("a") : !executor.session
      return %s : !executor.session
    }
  }
}
