// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s

// The input record (rank 1, dynamic size) and the output record (rank 2, static)
// are packed after the 16-byte header; call_wrapper gets the buffer and its size;
// the output's data comes back from the result buffer, which is then freed.

// CHECK-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-DAG: llvm.func @__catalyst__executor__call_wrapper(i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @__catalyst__executor__free_result(!llvm.ptr)
// CHECK-DAG: llvm.mlir.global internal constant @__executor_str_fill("fill\00")

// CHECK-LABEL: func.func @call_dynamic_input_static_output
// CHECK-SAME:    (%[[S:.*]]: i64, %[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<2x3xf64>)
// CHECK:         %[[OUT_BUF_SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK:         %[[OUT_SIZE_SLOT:.*]] = llvm.alloca %{{.*}} x i64
// CHECK:         %[[SYM:.*]] = llvm.mlir.addressof @__executor_str_fill
// CHECK:         %[[D_IN:.*]] = builtin.unrealized_conversion_cast %[[IN]] : memref<?xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:         %[[N:.*]] = llvm.extractvalue %[[D_IN]][3, 0]
// CHECK:         %[[D_OUT:.*]] = builtin.unrealized_conversion_cast %[[OUT]] : memref<2x3xf64> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK:         %[[ARGS:.*]] = llvm.call @malloc(%[[TOTAL:.*]]) : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:    llvm.store %[[TWO]], %[[ARGS]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         llvm.store %[[ONE]], %{{.*}} : i64, !llvm.ptr
// CHECK:         llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
// CHECK:         "llvm.intr.memcpy"
// CHECK:         "llvm.intr.memcpy"
// CHECK:         llvm.call @__catalyst__executor__call_wrapper(%[[S]], %[[SYM]], %[[ARGS]], %[[TOTAL]], %[[OUT_BUF_SLOT]], %[[OUT_SIZE_SLOT]]) : (i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT:    llvm.call @free(%[[ARGS]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[RESULTS:.*]] = llvm.load %[[OUT_BUF_SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         "llvm.intr.memcpy"
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    llvm.call @__catalyst__executor__free_result(%[[RESULTS]]) : (!llvm.ptr) -> ()
// CHECK-NOT:     executor.call
func.func @call_dynamic_input_static_output(%s: !executor.session, %in: memref<?xf32>, %out: memref<2x3xf64>) {
  executor.call %s("fill")(%in, %out) {num_input_args = 1 : i32} : !executor.session, (memref<?xf32>, memref<2x3xf64>) -> ()
  return
}

// -----

// A static result without output operands is allocated with malloc (4 x i32 =
// 16 bytes) and becomes the call's output buffer.

// CHECK-LABEL: func.func @call_static_result_is_allocated
// CHECK:         %[[BYTES:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:    %[[P:.*]] = llvm.call @malloc(%[[BYTES]])
// CHECK:         %[[D:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT:    %[[R:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4xi32>
// CHECK:         llvm.call @__catalyst__executor__call_wrapper
// CHECK:         return %[[R]] : memref<4xi32>
func.func @call_static_result_is_allocated(%s: !executor.session, %in: memref<2xf64>) -> memref<4xi32> {
  %r = executor.call %s("make")(%in) : !executor.session, (memref<2xf64>) -> memref<4xi32>
  return %r : memref<4xi32>
}

// -----

// Without operands nothing is copied: a 16-byte header only.

// CHECK-LABEL: func.func @call_without_buffers
// CHECK:         %[[HEADER:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.call @malloc(%[[HEADER]])
// CHECK-NOT:     llvm.intr.memcpy
// CHECK:         llvm.call @__catalyst__executor__call_wrapper(%{{.*}}, %{{.*}}, %[[ARGS]], %[[HEADER]],
func.func @call_without_buffers(%s: !executor.session) {
  executor.call %s("ping")() : !executor.session, () -> ()
  return
}
