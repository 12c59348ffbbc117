// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s
// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface})' | FileCheck %s --check-prefix=CATALYST

// The input record (rank 1, dynamic size) and the output record (rank 2, static)
// are packed after the 24-byte header (magic, buffer count, input count);
// call_wrapper gets the buffer and its size with bit 63 set (this project's
// layout); the output's data comes back from the result buffer, which is then
// freed.
// The constants of the packing, the symbol's address and the two slots
// call_wrapper writes to are made once per function, in the prologue at the
// top of its entry block; the packing itself stays where the call was.

// CHECK-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-DAG: llvm.func @__catalyst__executor__call_wrapper(i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @__catalyst__executor__free_result(!llvm.ptr)
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_fill("fill\00")

// CHECK-LABEL: func.func @call_dynamic_input_static_output
// CHECK-SAME:    (%[[S:.*]]: i64, %[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<2x3xf64>)
// The prologue: the symbol, each constant of the packing once (in the order the
// packing first needs it), then the two slots call_wrapper writes its result
// buffer and size to.
// CHECK-NEXT:    %[[SYM:.*]] = llvm.mlir.addressof @__executor_str_fill : !llvm.ptr
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    %[[C4:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    %[[C7:.*]] = llvm.mlir.constant(7 : i64) : i64
// CHECK-NEXT:    %[[CM8:.*]] = llvm.mlir.constant(-8 : i64) : i64
// CHECK-NEXT:    %[[C24:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK-NEXT:    %[[C8:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT:    %[[C32:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:    %[[MAGIC:.*]] = llvm.mlir.constant(4996817734299549698 : i64) : i64
// CHECK-NEXT:    %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:    %[[C16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:    %[[FLAG:.*]] = llvm.mlir.constant(-9223372036854775808 : i64) : i64
// CHECK-NEXT:    %[[OUT_BUF_SLOT:.*]] = llvm.alloca %[[C1]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[OUT_SIZE_SLOT:.*]] = llvm.alloca %[[C1]] x i64 : (i64) -> !llvm.ptr
// Where the call was, the input's record: rank 1, 4-byte elements, 24-byte header.
// CHECK-NEXT:    %[[D_IN:.*]] = builtin.unrealized_conversion_cast %[[IN]] : memref<?xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT:    %[[N:.*]] = llvm.extractvalue %[[D_IN]][3, 0]
// CHECK-NEXT:    %[[IN_COUNT:.*]] = llvm.mul %[[C1]], %[[N]] : i64
// CHECK-NEXT:    %[[IN_BYTES:.*]] = llvm.mul %[[IN_COUNT]], %[[C4]] : i64
// CHECK-NEXT:    %[[IN_PAD:.*]] = llvm.add %[[IN_BYTES]], %[[C7]] : i64
// CHECK-NEXT:    %[[IN_PADDED:.*]] = llvm.and %[[IN_PAD]], %[[CM8]] : i64
// CHECK-NEXT:    %[[IN_RECORD:.*]] = llvm.add %[[C24]], %[[IN_PADDED]] : i64
// CHECK-NEXT:    %[[IN_ALIGNED:.*]] = llvm.extractvalue %[[D_IN]][1]
// CHECK-NEXT:    %[[IN_OFFSET:.*]] = llvm.extractvalue %[[D_IN]][2]
// CHECK-NEXT:    %[[IN_OFFSET_BYTES:.*]] = llvm.mul %[[IN_OFFSET]], %[[C4]] : i64
// CHECK-NEXT:    %[[IN_DATA:.*]] = llvm.getelementptr %[[IN_ALIGNED]][%[[IN_OFFSET_BYTES]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// The output's record: rank 2, 8-byte elements, 32-byte header.
// CHECK-NEXT:    %[[D_OUT:.*]] = builtin.unrealized_conversion_cast %[[OUT]] : memref<2x3xf64> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT:    %[[M0:.*]] = llvm.extractvalue %[[D_OUT]][3, 0]
// CHECK-NEXT:    %[[M1:.*]] = llvm.extractvalue %[[D_OUT]][3, 1]
// CHECK-NEXT:    %[[OUT_COUNT0:.*]] = llvm.mul %[[C1]], %[[M0]] : i64
// CHECK-NEXT:    %[[OUT_COUNT:.*]] = llvm.mul %[[OUT_COUNT0]], %[[M1]] : i64
// CHECK-NEXT:    %[[OUT_BYTES:.*]] = llvm.mul %[[OUT_COUNT]], %[[C8]] : i64
// CHECK-NEXT:    %[[OUT_PAD:.*]] = llvm.add %[[OUT_BYTES]], %[[C7]] : i64
// CHECK-NEXT:    %[[OUT_PADDED:.*]] = llvm.and %[[OUT_PAD]], %[[CM8]] : i64
// CHECK-NEXT:    %[[OUT_RECORD:.*]] = llvm.add %[[C32]], %[[OUT_PADDED]] : i64
// CHECK-NEXT:    %[[OUT_ALIGNED:.*]] = llvm.extractvalue %[[D_OUT]][1]
// CHECK-NEXT:    %[[OUT_OFFSET:.*]] = llvm.extractvalue %[[D_OUT]][2]
// CHECK-NEXT:    %[[OUT_OFFSET_BYTES:.*]] = llvm.mul %[[OUT_OFFSET]], %[[C8]] : i64
// CHECK-NEXT:    %[[OUT_DATA:.*]] = llvm.getelementptr %[[OUT_ALIGNED]][%[[OUT_OFFSET_BYTES]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// args_buf: the header (magic "EXCALL" with version 2, 2 buffers, 1 of them an
// input), then the two records.
// CHECK-NEXT:    %[[SUM:.*]] = llvm.add %[[C24]], %[[IN_RECORD]] : i64
// CHECK-NEXT:    %[[TOTAL:.*]] = llvm.add %[[SUM]], %[[OUT_RECORD]] : i64
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.call @malloc(%[[TOTAL]]) : (i64) -> !llvm.ptr
// CHECK-NEXT:    llvm.store %[[MAGIC]], %[[ARGS]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[NUM_BUFFERS:.*]] = llvm.getelementptr %[[ARGS]][%[[C8]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[C2]], %[[NUM_BUFFERS]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[NUM_INPUTS:.*]] = llvm.getelementptr %[[ARGS]][%[[C16]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[C1]], %[[NUM_INPUTS]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R0:.*]] = llvm.getelementptr %[[ARGS]][%[[C24]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[C1]], %[[R0]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R0_ELEMENT_SIZE:.*]] = llvm.getelementptr %[[R0]][%[[C8]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[C4]], %[[R0_ELEMENT_SIZE]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R0_SIZE:.*]] = llvm.getelementptr %[[R0]][%[[C16]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[N]], %[[R0_SIZE]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R0_DATA:.*]] = llvm.getelementptr %[[R0]][%[[C24]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    "llvm.intr.memcpy"(%[[R0_DATA]], %[[IN_DATA]], %[[IN_BYTES]]) <{isVolatile = false}>
// CHECK-NEXT:    %[[R1:.*]] = llvm.getelementptr %[[R0]][%[[IN_RECORD]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[C2]], %[[R1]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R1_ELEMENT_SIZE:.*]] = llvm.getelementptr %[[R1]][%[[C8]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[C8]], %[[R1_ELEMENT_SIZE]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R1_SIZE0:.*]] = llvm.getelementptr %[[R1]][%[[C16]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[M0]], %[[R1_SIZE0]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R1_SIZE1:.*]] = llvm.getelementptr %[[R1]][%[[C24]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[M1]], %[[R1_SIZE1]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[R1_DATA:.*]] = llvm.getelementptr %[[R1]][%[[C32]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    "llvm.intr.memcpy"(%[[R1_DATA]], %[[OUT_DATA]], %[[OUT_BYTES]]) <{isVolatile = false}>
// CHECK-NEXT:    llvm.getelementptr %[[R1]][%[[OUT_RECORD]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[ARGS_SIZE:.*]] = llvm.or %[[TOTAL]], %[[FLAG]] : i64
// CHECK-NEXT:    llvm.call @__catalyst__executor__call_wrapper(%[[S]], %[[SYM]], %[[ARGS]], %[[ARGS_SIZE]], %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]]) : (i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT:    llvm.call @free(%[[ARGS]]) : (!llvm.ptr) -> ()
// out_buf: the output count, then the output's record, whose data is copied
// into the output operand; then the result buffer is freed.
// CHECK-NEXT:    %[[RESULTS:.*]] = llvm.load %[[OUT_BUF_SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[O0:.*]] = llvm.getelementptr %[[RESULTS]][%[[C8]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[O0_DATA:.*]] = llvm.getelementptr %[[O0]][%[[C32]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    "llvm.intr.memcpy"(%[[OUT_DATA]], %[[O0_DATA]], %[[OUT_BYTES]]) <{isVolatile = false}>
// CHECK-NEXT:    llvm.getelementptr %[[O0]][%[[OUT_RECORD]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.call @__catalyst__executor__free_result(%[[RESULTS]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    return
// CHECK-NOT:     executor.call
func.func @call_dynamic_input_static_output(%s: !executor.session, %in: memref<?xf32>, %out: memref<2x3xf64>) {
  executor.call %s("fill")(%in, %out) {num_input_args = 1 : i32} : !executor.session, (memref<?xf32>, memref<2x3xf64>) -> ()
  return
}

// -----

// A static result without output operands is allocated with malloc (4 x i32 =
// 16 bytes) and becomes the call's output buffer.

// CHECK-LABEL: func.func @call_static_result_is_allocated
// CHECK-SAME:    (%[[S:.*]]: i64, %[[IN:.*]]: memref<2xf64>) -> memref<4xi32>
// CHECK-NEXT:    %[[SYM:.*]] = llvm.mlir.addressof @__executor_str_make : !llvm.ptr
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(7 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(-8 : i64) : i64
// CHECK-NEXT:    %[[C24:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK-NEXT:    %[[C16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:    %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[C4:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(4996817734299549698 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(-9223372036854775808 : i64) : i64
// CHECK-NEXT:    %[[OUT_BUF_SLOT:.*]] = llvm.alloca %[[C1]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[OUT_SIZE_SLOT:.*]] = llvm.alloca %[[C1]] x i64 : (i64) -> !llvm.ptr
// CHECK-NOT:     {{llvm.alloca|llvm.mlir.constant|llvm.mlir.addressof|llvm.mlir.zero}}
// The result: 16 bytes from malloc, in a descriptor {p, p, 0, [4], [1]}.
// CHECK:         %[[P:.*]] = llvm.call @malloc(%[[C16]]) : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT:    %[[D0:.*]] = llvm.insertvalue %[[P]], %[[U]][0]
// CHECK-NEXT:    %[[D1:.*]] = llvm.insertvalue %[[P]], %[[D0]][1]
// CHECK-NEXT:    %[[D2:.*]] = llvm.insertvalue %[[C0]], %[[D1]][2]
// CHECK-NEXT:    %[[D3:.*]] = llvm.insertvalue %[[C4]], %[[D2]][3, 0]
// CHECK-NEXT:    %[[D:.*]] = llvm.insertvalue %[[C1]], %[[D3]][4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT:    %[[R:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4xi32>
// It is packed as the call's output buffer, read from that descriptor; the
// header of args_buf is the same `24 : i64` as a rank-1 record's.
// CHECK-NEXT:    llvm.extractvalue %[[D]][3, 0]
// CHECK-NOT:     {{llvm.alloca|llvm.mlir.}}
// CHECK:         %[[SUM:.*]] = llvm.add %[[C24]], %{{.*}} : i64
// CHECK-NOT:     {{llvm.alloca|llvm.mlir.}}
// CHECK:         llvm.call @__catalyst__executor__call_wrapper(%[[S]], %[[SYM]], %{{.*}}, %{{.*}}, %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]])
// CHECK-NOT:     {{llvm.alloca|llvm.mlir.}}
// CHECK:         return %[[R]] : memref<4xi32>
func.func @call_static_result_is_allocated(%s: !executor.session, %in: memref<2xf64>) -> memref<4xi32> {
  %r = executor.call %s("make")(%in) : !executor.session, (memref<2xf64>) -> memref<4xi32>
  return %r : memref<4xi32>
}

// -----

// Without operands nothing is copied: a 24-byte header only.

// CHECK-LABEL: func.func @call_without_buffers
// CHECK-SAME:    (%[[S:.*]]: i64)
// CHECK-NEXT:    %[[SYM:.*]] = llvm.mlir.addressof @__executor_str_ping : !llvm.ptr
// CHECK-NEXT:    %[[HEADER:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK-NEXT:    %[[MAGIC:.*]] = llvm.mlir.constant(4996817734299549698 : i64) : i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[C8:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT:    %[[C16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:    %[[FLAG:.*]] = llvm.mlir.constant(-9223372036854775808 : i64) : i64
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    %[[OUT_BUF_SLOT:.*]] = llvm.alloca %[[C1]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[OUT_SIZE_SLOT:.*]] = llvm.alloca %[[C1]] x i64 : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.call @malloc(%[[HEADER]])
// CHECK-NEXT:    llvm.store %[[MAGIC]], %[[ARGS]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[NUM_BUFFERS:.*]] = llvm.getelementptr %[[ARGS]][%[[C8]]]
// CHECK-NEXT:    llvm.store %[[ZERO]], %[[NUM_BUFFERS]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[NUM_INPUTS:.*]] = llvm.getelementptr %[[ARGS]][%[[C16]]]
// CHECK-NEXT:    llvm.store %[[ZERO]], %[[NUM_INPUTS]] : i64, !llvm.ptr
// CHECK-NOT:     {{llvm.intr.memcpy|llvm.alloca|llvm.mlir.}}
// CHECK:         %[[ARGS_SIZE:.*]] = llvm.or %[[HEADER]], %[[FLAG]] : i64
// CHECK-NEXT:    llvm.call @__catalyst__executor__call_wrapper(%[[S]], %[[SYM]], %[[ARGS]], %[[ARGS_SIZE]], %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]])
// CHECK-NEXT:    llvm.call @free(%[[ARGS]])
// CHECK-NEXT:    %[[RESULTS:.*]] = llvm.load %[[OUT_BUF_SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NOT:     {{llvm.intr.memcpy|llvm.alloca|llvm.mlir.}}
// CHECK:         llvm.call @__catalyst__executor__free_result(%[[RESULTS]])
// CHECK-NEXT:    return
func.func @call_without_buffers(%s: !executor.session) {
  executor.call %s("ping")() : !executor.session, () -> ()
  return
}

// -----

// Two calls in one function share the two result slots, the symbol's address
// and every constant they both use: the second call only adds to the prologue
// the constants the first did not need (32, the header of a rank-2 record, and
// 2, its rank), after the slots.

// CHECK-LABEL: func.func @two_calls_share_result_slots(
// CHECK-SAME:    %[[S:arg[0-9]+]]: i64, %[[A:arg[0-9]+]]: memref<4xf32>, %[[B:arg[0-9]+]]: memref<2x2xf64>)
// CHECK-NEXT:    %[[SYM:.*]] = llvm.mlir.addressof @__executor_str_f : !llvm.ptr
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    %[[C7:.*]] = llvm.mlir.constant(7 : i64) : i64
// CHECK-NEXT:    %[[CM8:.*]] = llvm.mlir.constant(-8 : i64) : i64
// CHECK-NEXT:    %[[C24:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK-NEXT:    %[[MAGIC:.*]] = llvm.mlir.constant(4996817734299549698 : i64) : i64
// CHECK-NEXT:    %[[C8:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:    llvm.mlir.constant(-9223372036854775808 : i64) : i64
// CHECK-NEXT:    %[[OUT_BUF_SLOT:.*]] = llvm.alloca %[[C1]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[OUT_SIZE_SLOT:.*]] = llvm.alloca %[[C1]] x i64 : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[C32:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:    %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:    builtin.unrealized_conversion_cast %[[A]] : memref<4xf32>
// CHECK-NOT:     {{llvm.mlir.|llvm.alloca}}
// CHECK:         llvm.call @__catalyst__executor__call_wrapper(%[[S]], %[[SYM]], %{{.*}}, %{{.*}}, %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]])
// CHECK-NEXT:    llvm.call @free(
// CHECK-NEXT:    llvm.load %[[OUT_BUF_SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NOT:     {{llvm.mlir.|llvm.alloca}}
// CHECK:         %[[DB:.*]] = builtin.unrealized_conversion_cast %[[B]] : memref<2x2xf64>
// CHECK-NOT:     {{llvm.mlir.|llvm.alloca}}
// CHECK:         llvm.mul %{{.*}}, %[[C8]] : i64
// CHECK-NEXT:    llvm.add %{{.*}}, %[[C7]] : i64
// CHECK-NEXT:    llvm.and %{{.*}}, %[[CM8]] : i64
// CHECK-NEXT:    llvm.add %[[C32]], %{{.*}} : i64
// CHECK-NOT:     {{llvm.mlir.|llvm.alloca}}
// CHECK:         llvm.add %[[C24]], %{{.*}} : i64
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.call @malloc(
// CHECK-NEXT:    llvm.store %[[MAGIC]], %[[ARGS]] : i64, !llvm.ptr
// CHECK-NOT:     {{llvm.mlir.|llvm.alloca}}
// CHECK:         llvm.store %[[C2]], %{{.*}} : i64, !llvm.ptr
// CHECK-NOT:     {{llvm.mlir.|llvm.alloca}}
// CHECK:         llvm.call @__catalyst__executor__call_wrapper(%[[S]], %[[SYM]], %[[ARGS]], %{{.*}}, %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]])
// CHECK-NEXT:    llvm.call @free(%[[ARGS]])
// CHECK-NEXT:    llvm.load %[[OUT_BUF_SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NOT:     {{llvm.mlir.|llvm.alloca}}
// CHECK:         return
func.func @two_calls_share_result_slots(%s: !executor.session, %a: memref<4xf32>, %b: memref<2x2xf64>) {
  executor.call %s("f")(%a) {num_input_args = 1 : i32} : !executor.session, (memref<4xf32>) -> ()
  executor.call %s("f")(%b) {num_input_args = 1 : i32} : !executor.session, (memref<2x2xf64>) -> ()
  return
}

// -----

// Under entry-convention=catalyst-pyface, a call whose buffers are all
// statically shaped and that has no results is packed as Catalyst's lowering
// packs it: the inputs' bytes one after the other (2 x f32, then 3 x i8: 11
// bytes, no header, no padding), args_size their total with bit 63 clear; the
// output's 32 bytes come back at the start of out_buf.

// CATALYST-LABEL: func.func @catalyst_layout(
//  CATALYST-SAME:     %[[S:arg[0-9]+]]: i64,
//       CATALYST:   %[[C8:.*]] = llvm.mlir.constant(8 : i64) : i64
//  CATALYST-NEXT:   %[[C11:.*]] = llvm.mlir.constant(11 : i64) : i64
//  CATALYST-NEXT:   %[[C3:.*]] = llvm.mlir.constant(3 : i64) : i64
//  CATALYST-NEXT:   %[[OUT_BUF_SLOT:.*]] = llvm.alloca
//  CATALYST-NEXT:   %[[OUT_SIZE_SLOT:.*]] = llvm.alloca
//  CATALYST-NEXT:   %[[C32:.*]] = llvm.mlir.constant(32 : i64) : i64
//       CATALYST:   %[[A:.*]] = llvm.getelementptr
//       CATALYST:   %[[B:.*]] = llvm.getelementptr
//       CATALYST:   %[[OUT:.*]] = llvm.getelementptr
//  CATALYST-NEXT:   %[[ARGS:.*]] = llvm.call @malloc(%[[C11]])
//  CATALYST-NEXT:   "llvm.intr.memcpy"(%[[ARGS]], %[[A]], %[[C8]])
//  CATALYST-NEXT:   %[[ARGS_B:.*]] = llvm.getelementptr %[[ARGS]][%[[C8]]]
//  CATALYST-NEXT:   "llvm.intr.memcpy"(%[[ARGS_B]], %[[B]], %[[C3]])
//  CATALYST-NEXT:   llvm.call @__catalyst__executor__call_wrapper(%[[S]], %{{.*}}, %[[ARGS]], %[[C11]], %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]])
//  CATALYST-NEXT:   llvm.call @free(%[[ARGS]])
//  CATALYST-NEXT:   %[[RESULTS:.*]] = llvm.load %[[OUT_BUF_SLOT]]
//  CATALYST-NEXT:   "llvm.intr.memcpy"(%[[OUT]], %[[RESULTS]], %[[C32]])
//  CATALYST-NEXT:   llvm.call @__catalyst__executor__free_result(%[[RESULTS]])
//  CATALYST-NEXT:   return
func.func @catalyst_layout(%s: !executor.session, %a: memref<2xf32>, %b: memref<3xi8>, %out: memref<2x2xf64>) {
  executor.call %s("lib_fn")(%a, %b, %out) {num_input_args = 2 : i32} : !executor.session, (memref<2xf32>, memref<3xi8>, memref<2x2xf64>) -> ()
  return
}

// -----

// A dynamic shape has no place in Catalyst's layout: under its convention such
// a call keeps this project's layout (magic header, bit 63 of args_size).

// CATALYST-LABEL: func.func @dynamic_call_keeps_this_layout(
//       CATALYST:   %[[MAGIC:.*]] = llvm.mlir.constant(4996817734299549698 : i64) : i64
//       CATALYST:   %[[FLAG:.*]] = llvm.mlir.constant(-9223372036854775808 : i64) : i64
//       CATALYST:   %[[ARGS:.*]] = llvm.call @malloc(
//  CATALYST-NEXT:   llvm.store %[[MAGIC]], %[[ARGS]]
//       CATALYST:   %[[SIZE:.*]] = llvm.or %{{.*}}, %[[FLAG]] : i64
//  CATALYST-NEXT:   llvm.call @__catalyst__executor__call_wrapper(%{{.*}}, %{{.*}}, %[[ARGS]], %[[SIZE]],
func.func @dynamic_call_keeps_this_layout(%s: !executor.session, %a: memref<?xf32>) {
  executor.call %s("lib_fn")(%a) : !executor.session, (memref<?xf32>) -> ()
  return
}
