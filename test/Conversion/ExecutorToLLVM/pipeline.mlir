// convert-executor-to-llvm in a full lowering to LLVM IR, in both orders
// around finalize-memref-to-llvm: first (this project's order), and after
// finalize-memref-to-llvm and convert-index-to-llvm (Catalyst's order). Both
// leave no executor op or type and no unrealized_conversion_cast behind, and
// both translate to the same LLVM IR.

// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-executor-to-llvm,convert-scf-to-cf,convert-arith-to-llvm,finalize-memref-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | FileCheck %s --check-prefix=NOREMNANT
// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-executor-to-llvm,convert-scf-to-cf,convert-arith-to-llvm,finalize-memref-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s

// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-scf-to-cf,convert-arith-to-llvm,finalize-memref-to-llvm,convert-index-to-llvm,convert-executor-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | FileCheck %s --check-prefix=NOREMNANT
// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-scf-to-cf,convert-arith-to-llvm,finalize-memref-to-llvm,convert-index-to-llvm,convert-executor-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s

// In the LLVM dialect module: no executor op or type (`executor.` never occurs
// in the runtime's symbols, which spell it `__executor__` / `__executor_`),
// and every cast folded away.
// NOREMNANT-NOT: executor.
// NOREMNANT-NOT: unrealized_conversion_cast

// CHECK-DAG: @__executor_str_127_0_0_1_9000 = internal constant [15 x i8] c"127.0.0.1:9000\00"
// CHECK-DAG: @__executor_str_kernels_o = internal constant [10 x i8] c"kernels.o\00"
// CHECK-DAG: @__executor_str__mlir_ciface_add_one = internal constant [21 x i8] c"_mlir_ciface_add_one\00"
// CHECK-DAG: @__executor_str__mlir_ciface_outer = internal constant [19 x i8] c"_mlir_ciface_outer\00"
// CHECK-DAG: @__executor_str_warm_up = internal constant [8 x i8] c"warm_up\00"
// CHECK-DAG: @__executor_i64s_1 = internal constant [1 x i64] [i64 1]
// CHECK-DAG: @__executor_i64s_2 = internal constant [1 x i64] [i64 2]
// CHECK-DAG: @__executor_i64s_4 = internal constant [1 x i64] [i64 4]
// CHECK-DAG: @__executor_i64s_8 = internal constant [1 x i64] [i64 8]
// CHECK-DAG: declare i64 @__catalyst__executor__open(ptr)
// CHECK-DAG: declare i64 @__catalyst__executor__send_binary(i64, ptr, i32)
// Each kernel's launch site: a writable global, 8-byte aligned, whose
// initializer holds the runtime's empty cache (5 words), then the entry symbol,
// the object, the number of inputs, their ranks and element sizes, the number
// of results, their ranks, element sizes and static sizes.
// CHECK-DAG: @__executor_site_add_one = internal global { [5 x i64], ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr } { [5 x i64] zeroinitializer, ptr @__executor_str__mlir_ciface_add_one, ptr @__executor_str_kernels_o, i64 1, ptr @__executor_i64s_1, ptr @__executor_i64s_4, i64 1, ptr @__executor_i64s_1, ptr @__executor_i64s_4, ptr @__executor_i64s_4 }, align 8
// The result sizes: [4] for memref<4xf32>, [-1, -1] for memref<?x?xf64>.
// CHECK-DAG: @__executor_i64s__1__1 = internal constant [2 x i64] [i64 -1, i64 -1]
// CHECK-DAG: @__executor_site_outer = internal global { [5 x i64], ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr } { [5 x i64] zeroinitializer, ptr @__executor_str__mlir_ciface_outer, ptr @__executor_str_kernels_o, i64 1, ptr @__executor_i64s_1, ptr @__executor_i64s_8, i64 1, ptr @__executor_i64s_2, ptr @__executor_i64s_8, ptr @__executor_i64s__1__1 }, align 8
// CHECK-DAG: declare void @__executor__launch_at_site(ptr, i64, ptr, ptr)
// CHECK-DAG: declare i64 @__catalyst__executor__launch_async(i64, ptr, ptr)
// CHECK-DAG: declare void @__catalyst__executor__await(i64)
// CHECK-DAG: declare i64 @__catalyst__executor__close(i64)

// A session returned by a function is an i64 in LLVM IR.
// CHECK-LABEL: define i64 @connect() {
//  CHECK-NEXT:   %[[S:.*]] = call i64 @__catalyst__executor__open(ptr @__executor_str_127_0_0_1_9000)
//  CHECK-NEXT:   call i64 @__catalyst__executor__send_binary(i64 %[[S]], ptr @__executor_str_kernels_o, i32 0)
//  CHECK-NEXT:   ret i64 %[[S]]
func.func @connect() -> !executor.session {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  return %s : !executor.session
}

// A launch in a loop over a buffer carried by scf.for: the launch's frame (its
// descriptor slots and the arrays pointing to them) is the prologue at the top
// of the entry block, right after the descriptor of the argument; the loop
// body only stores the input descriptor, calls the runtime and loads the
// result descriptor, which is carried to the next iteration. The call passes
// the address of the kernel's launch site (folded into the operand), the
// session and the two arrays.
// CHECK-LABEL: define { ptr, ptr, i64, [1 x i64], [1 x i64] } @run_loop(
//       CHECK:   %[[XD:.*]] = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %{{.*}}, i64 %{{[0-9]+}}, 4, 0
//  CHECK-NEXT:   %[[IN:.*]] = alloca { ptr, ptr, i64, [1 x i64], [1 x i64] }, i64 1
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = alloca [1 x ptr], i64 1
//  CHECK-NEXT:   %[[IA:.*]] = insertvalue [1 x ptr] undef, ptr %[[IN]], 0
//  CHECK-NEXT:   store [1 x ptr] %[[IA]], ptr %[[IN_ARRAY]]
//  CHECK-NEXT:   %[[OUT:.*]] = alloca { ptr, ptr, i64, [1 x i64], [1 x i64] }, i64 1
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = alloca [1 x ptr], i64 1
//  CHECK-NEXT:   %[[OA:.*]] = insertvalue [1 x ptr] undef, ptr %[[OUT]], 0
//  CHECK-NEXT:   store [1 x ptr] %[[OA]], ptr %[[OUT_ARRAY]]
//  CHECK-NEXT:   %[[S:.*]] = call i64 @connect()
//   CHECK-NOT:   alloca
//       CHECK:   br label %[[HEADER:[0-9]+]]
//       CHECK: [[HEADER]]:
//  CHECK-NEXT:   %{{.*}} = phi i64
//  CHECK-NEXT:   %[[ACC:.*]] = phi { ptr, ptr, i64, [1 x i64], [1 x i64] } [ %[[NEXT:[0-9]+]], %{{[0-9]+}} ]
//   CHECK-NOT:   alloca
//       CHECK:   store { ptr, ptr, i64, [1 x i64], [1 x i64] } %[[ACC]], ptr %[[IN]]
//  CHECK-NEXT:   call void @__executor__launch_at_site(ptr @__executor_site_add_one, i64 %[[S]], ptr %[[IN_ARRAY]], ptr %[[OUT_ARRAY]])
//  CHECK-NEXT:   %[[NEXT]] = load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %[[OUT]]
//   CHECK-NOT:   alloca
//       CHECK:   %[[T:.*]] = call i64 @__catalyst__executor__launch_async(i64 %[[S]], ptr @__executor_str_warm_up, ptr @__executor_str_kernels_o)
//  CHECK-NEXT:   call void @__catalyst__executor__await(i64 %[[T]])
//  CHECK-NEXT:   call i64 @__catalyst__executor__close(i64 %[[S]])
//  CHECK-NEXT:   ret { ptr, ptr, i64, [1 x i64], [1 x i64] } %[[ACC]]
func.func @run_loop(%x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %s = func.call @connect() : () -> !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<4xf32>
  memref.copy %x, %buf : memref<4xf32> to memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %buf) -> (memref<4xf32>) {
    %y = executor.launch %s("add_one", "kernels.o")(%acc) : !executor.session, (memref<4xf32>) -> memref<4xf32>
    scf.yield %y : memref<4xf32>
  }
  %v = memref.load %r[%c0] : memref<4xf32>
  %two = arith.constant 2.0 : f32
  %w = arith.mulf %v, %two : f32
  memref.store %w, %r[%c0] : memref<4xf32>
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  executor.close %s : !executor.session
  return %r : memref<4xf32>
}

// Dynamic shapes: the input descriptor is rebuilt from the function's
// arguments and stored as is into its slot of the prologue; the rank-2 result
// descriptor filled by the runtime is where memref.dim reads the dynamic size
// from (field 3, sizes).
// CHECK-LABEL: define i64 @run_dynamic(
//  CHECK-SAME:     i64 %[[S:[0-9]+]], ptr %{{[0-9]+}}, ptr %{{[0-9]+}}, i64 %{{[0-9]+}}, i64 %{{[0-9]+}}, i64 %{{[0-9]+}})
//       CHECK:   %[[XD:.*]] = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %{{.*}}, i64 %{{[0-9]+}}, 4, 0
//  CHECK-NEXT:   %[[IN:.*]] = alloca { ptr, ptr, i64, [1 x i64], [1 x i64] }, i64 1
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = alloca [1 x ptr], i64 1
//  CHECK-NEXT:   %[[IA:.*]] = insertvalue [1 x ptr] undef, ptr %[[IN]], 0
//  CHECK-NEXT:   store [1 x ptr] %[[IA]], ptr %[[IN_ARRAY]]
//  CHECK-NEXT:   %[[OUT:.*]] = alloca { ptr, ptr, i64, [2 x i64], [2 x i64] }, i64 1
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = alloca [1 x ptr], i64 1
//  CHECK-NEXT:   %[[OA:.*]] = insertvalue [1 x ptr] undef, ptr %[[OUT]], 0
//  CHECK-NEXT:   store [1 x ptr] %[[OA]], ptr %[[OUT_ARRAY]]
//  CHECK-NEXT:   store { ptr, ptr, i64, [1 x i64], [1 x i64] } %[[XD]], ptr %[[IN]]
//  CHECK-NEXT:   call void @__executor__launch_at_site(ptr @__executor_site_outer, i64 %[[S]], ptr %[[IN_ARRAY]], ptr %[[OUT_ARRAY]])
//  CHECK-NEXT:   %[[YD:.*]] = load { ptr, ptr, i64, [2 x i64], [2 x i64] }, ptr %[[OUT]]
//  CHECK-NEXT:   %{{.*}} = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %[[YD]], 3
func.func @run_dynamic(%s: !executor.session, %x: memref<?xf64>) -> index {
  %y = executor.launch %s("outer", "kernels.o")(%x) : !executor.session, (memref<?xf64>) -> memref<?x?xf64>
  %c1 = arith.constant 1 : index
  %d = memref.dim %y, %c1 : memref<?x?xf64>
  return %d : index
}
