// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s
// Under Catalyst's convention no launch gets a launch site: every one calls
// __catalyst__executor__launch, which Catalyst's runtime has too.
// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface})' \
// RUN:   | FileCheck %s --check-prefix=PYFACE --implicit-check-not=__executor_site --implicit-check-not=__executor__launch_at_site
// PYFACE: llvm.call @__catalyst__executor__launch(

// executor.launch passes every input and result as a pointer to a strided
// memref descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}
// (rank 0: {allocated, aligned, offset}), together with constant arrays of
// the ranks and of the element sizes in bytes. The call's operands are (site,
// session, input_descs, output_descs); the launch site (the section "Launch
// sites") holds the rest, set in its initializer at these struct positions:
// [0] the runtime's cache (zeros), [1] entry, [2] object, [3] num_inputs,
// [4] input_ranks, [5] input_elem_sizes, [6] num_outputs, [7] output_ranks,
// [8] output_elem_sizes. A count of 0 and a null array stay as the zeros the
// initializer starts from.
// The slots, the arrays pointing to them, the constants and the addresses of
// the globals are in the prologue at the top of the function's entry block
// (alloca-in-entry-block.mlir); where the launch was, the input descriptors are
// stored into their slots, the runtime is called and the results are loaded.

//===----------------------------------------------------------------------===//
// Ranks and descriptor types
//===----------------------------------------------------------------------===//

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_0(dense<0> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_0 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
// CHECK-LABEL: func.func @rank_0_input(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<f32>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64)> : (i64) -> !llvm.ptr
//       CHECK:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<f32> to !llvm.struct<(ptr, ptr, i64)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[SLOT]] : !llvm.struct<(ptr, ptr, i64)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @rank_0_input(%s: !executor.session, %x: memref<f32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<f32>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_1(dense<1> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
// CHECK-LABEL: func.func @rank_1_input(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<5xf32>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<5xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[SLOT]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @rank_1_input(%s: !executor.session, %x: memref<5xf32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<5xf32>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_2(dense<2> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
// CHECK-LABEL: func.func @rank_2_input(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<5x6xf32>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<5x6xf32> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[SLOT]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @rank_2_input(%s: !executor.session, %x: memref<5x6xf32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<5x6xf32>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
// CHECK-LABEL: func.func @rank_3_input(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<5x6x7xf32>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<5x6x7xf32> to !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[SLOT]] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @rank_3_input(%s: !executor.session, %x: memref<5x6x7xf32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<5x6x7xf32>) -> ()
  return
}

// -----

// The ranks [4] and the element sizes [4] (f32) are one global, addressed once.
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_4(dense<4> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @rank_4_input(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<5x6x7x8xf32>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<5x6x7x8xf32> to !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[SLOT]] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @rank_4_input(%s: !executor.session, %x: memref<5x6x7x8xf32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<5x6x7x8xf32>) -> ()
  return
}

// -----

// The ranks array lists the inputs in operand order.
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_0_1_2_3_4(dense<[0, 1, 2, 3, 4]> : tensor<5xi64>) {addr_space = 0 : i32} : !llvm.array<5 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_4_4_4_4_4(dense<4> : tensor<5xi64>) {addr_space = 0 : i32} : !llvm.array<5 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[N:.*]] = llvm.mlir.constant(5 : i64) : i64
//  CHECK-NEXT:   llvm.insertvalue %[[N]], %{{.*}}[3]
//  CHECK-NEXT:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_0_1_2_3_4 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4_4_4_4_4 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @ranks_0_to_4_in_operand_order(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @ranks_0_to_4_in_operand_order(%s: !executor.session, %a: memref<f32>, %b: memref<2xf32>, %c: memref<2x3xf32>, %d: memref<2x3x4xf32>, %e: memref<2x3x4x5xf32>) {
  executor.launch %s("kernel", "kernels.o")(%a, %b, %c, %d, %e) : !executor.session, (memref<f32>, memref<2xf32>, memref<2x3xf32>, memref<2x3x4xf32>, memref<2x3x4x5xf32>) -> ()
  return
}

// -----

// The pointer array holds one descriptor slot per input, in operand order.
// CHECK-LABEL: func.func @input_slots_in_operand_order(
//       CHECK:   %[[S0:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[S1:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<2 x ptr>
//  CHECK-NEXT:   %[[A0:.*]] = llvm.insertvalue %[[S0]], %[[U]][0] : !llvm.array<2 x ptr>
//  CHECK-NEXT:   %[[A1:.*]] = llvm.insertvalue %[[S1]], %[[A0]][1] : !llvm.array<2 x ptr>
//  CHECK-NEXT:   llvm.store %[[A1]], %[[ARRAY]] : !llvm.array<2 x ptr>, !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%{{.*}}, %{{.*}}, %[[ARRAY]], %{{.*}})
func.func @input_slots_in_operand_order(%s: !executor.session, %a: memref<f64>, %b: memref<3x4xf64>) {
  executor.launch %s("kernel", "kernels.o")(%a, %b) : !executor.session, (memref<f64>, memref<3x4xf64>) -> ()
  return
}

// -----

// The same memref passed twice gets two slots.
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_add()
//       CHECK:   %[[N:.*]] = llvm.mlir.constant(2 : i64) : i64
//  CHECK-NEXT:   llvm.insertvalue %[[N]], %{{.*}}[3]
// CHECK-LABEL: func.func @same_memref_twice_gets_two_slots(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<4xf32>)
//       CHECK:   %[[S0:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[S1:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x ptr>
//       CHECK:   %[[D0:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to
//  CHECK-NEXT:   llvm.store %[[D0]], %[[S0]]
//  CHECK-NEXT:   %[[D1:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to
//  CHECK-NEXT:   llvm.store %[[D1]], %[[S1]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%{{.*}}, %{{.*}}, %[[ARRAY]], %{{.*}})
func.func @same_memref_twice_gets_two_slots(%s: !executor.session, %x: memref<4xf32>) {
  executor.launch %s("add", "kernels.o")(%x, %x) : !executor.session, (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// Dynamic shapes and strided layouts: same descriptor as static shapes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @dynamic_shape_input(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<?x?xf32>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<?x?xf32> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[SLOT]]
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @dynamic_shape_input(%s: !executor.session, %x: memref<?x?xf32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<?x?xf32>) -> ()
  return
}

// -----

// The runtime fills the whole result descriptor, dynamic sizes included.
// CHECK-LABEL: func.func @dynamic_shape_result(
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(
//  CHECK-NEXT:   %[[D:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[R:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<?xi64>
//  CHECK-NEXT:   return %[[R]] : memref<?xi64>
func.func @dynamic_shape_result(%s: !executor.session) -> memref<?xi64> {
  %r = executor.launch %s("make", "kernels.o")() : !executor.session, () -> memref<?xi64>
  return %r : memref<?xi64>
}

// -----

// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @mixed_static_dynamic_shape(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<4x?x8xi16>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   builtin.unrealized_conversion_cast %[[X]] : memref<4x?x8xi16> to !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
//  CHECK-NEXT:   llvm.store
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @mixed_static_dynamic_shape(%s: !executor.session, %x: memref<4x?x8xi16>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4x?x8xi16>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @strided_layout_input(
//  CHECK-SAME:     %[[X:arg[0-9]+]]: memref<4x4xf32, strided<[8, 1], offset: ?>>)
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4x4xf32, strided<[8, 1], offset: ?>> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[SLOT]]
//       CHECK:   llvm.call @__executor__launch_at_site(
func.func @strided_layout_input(%s: !executor.session, %x: memref<4x4xf32, strided<[8, 1], offset: ?>>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4x4xf32, strided<[8, 1], offset: ?>>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @strided_layout_result(
//       CHECK:   %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(
//  CHECK-NEXT:   %[[D:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
//  CHECK-NEXT:   %[[R:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x?xf32, strided<[?, ?], offset: ?>>
//  CHECK-NEXT:   return %[[R]]
func.func @strided_layout_result(%s: !executor.session) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
  %r = executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> memref<?x?xf32, strided<[?, ?], offset: ?>>
  return %r : memref<?x?xf32, strided<[?, ?], offset: ?>>
}

// -----

// A static layout that a dense copy satisfies is accepted: row-major strides
// and offset 0 spelled out, or dynamic where they are not known.
// CHECK-LABEL: func.func @dense_static_layout_results(
//       CHECK:   llvm.call @__executor__launch_at_site(
//  CHECK-NEXT:   llvm.load
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %{{.*}} to memref<4x5xf32, strided<[5, 1]>>
//  CHECK-NEXT:   llvm.load
//  CHECK-NEXT:   builtin.unrealized_conversion_cast %{{.*}} to memref<4x?xf32, strided<[?, 1], offset: ?>>
func.func @dense_static_layout_results(%s: !executor.session) -> (memref<4x5xf32, strided<[5, 1]>>, memref<4x?xf32, strided<[?, 1], offset: ?>>) {
  %r:2 = executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> (memref<4x5xf32, strided<[5, 1]>>, memref<4x?xf32, strided<[?, 1], offset: ?>>)
  return %r#0, %r#1 : memref<4x5xf32, strided<[5, 1]>>, memref<4x?xf32, strided<[?, 1], offset: ?>>
}

// -----

//===----------------------------------------------------------------------===//
// Element sizes in bytes
//===----------------------------------------------------------------------===//

// Each case launches with one rank-3 input, so that the ranks global (3)
// cannot be mistaken for the element-size global.

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_1(dense<1> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_i1_is_1(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_i1_is_1(%s: !executor.session, %x: memref<2x3x4xi1>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xi1>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_1(dense<1> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_i8_is_1(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_i8_is_1(%s: !executor.session, %x: memref<2x3x4xi8>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xi8>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_2(dense<2> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_i16_is_2(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_i16_is_2(%s: !executor.session, %x: memref<2x3x4xi16>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xi16>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_4(dense<4> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_i32_is_4(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_i32_is_4(%s: !executor.session, %x: memref<2x3x4xi32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xi32>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_8(dense<8> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_i64_is_8(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_i64_is_8(%s: !executor.session, %x: memref<2x3x4xi64>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xi64>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_8(dense<8> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_index_is_8(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_index_is_8(%s: !executor.session, %x: memref<2x3x4xindex>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xindex>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_2(dense<2> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_f16_is_2(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_f16_is_2(%s: !executor.session, %x: memref<2x3x4xf16>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xf16>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_2(dense<2> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_bf16_is_2(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_bf16_is_2(%s: !executor.session, %x: memref<2x3x4xbf16>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xbf16>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_4(dense<4> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_f32_is_4(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_f32_is_4(%s: !executor.session, %x: memref<2x3x4xf32>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xf32>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_8(dense<8> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_f64_is_8(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_f64_is_8(%s: !executor.session, %x: memref<2x3x4xf64>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xf64>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_8(dense<8> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_complex_f32_is_8(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_complex_f32_is_8(%s: !executor.session, %x: memref<2x3x4xcomplex<f32>>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xcomplex<f32>>) -> ()
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_3(dense<3> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_16(dense<16> : tensor<1xi64>) {addr_space = 0 : i32} : !llvm.array<1 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_16 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @element_size_complex_f64_is_16(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @element_size_complex_f64_is_16(%s: !executor.session, %x: memref<2x3x4xcomplex<f64>>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<2x3x4xcomplex<f64>>) -> ()
  return
}

// -----

// Element sizes of inputs and of results are listed separately, in order.
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_1_2(dense<[1, 2]> : tensor<2xi64>) {addr_space = 0 : i32} : !llvm.array<2 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_8_16(dense<[8, 16]> : tensor<2xi64>) {addr_space = 0 : i32} : !llvm.array<2 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_4_2(dense<[4, 2]> : tensor<2xi64>) {addr_space = 0 : i32} : !llvm.array<2 x i64>{{$}}
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_0_1(dense<[0, 1]> : tensor<2xi64>) {addr_space = 0 : i32} : !llvm.array<2 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[IN_RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_1_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[IN_RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[IN_SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_8_16 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[IN_SIZES]], %{{.*}}[5]
//       CHECK:   %[[OUT_RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_0_1 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[OUT_RANKS]], %{{.*}}[7]
//  CHECK-NEXT:   %[[OUT_SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4_2 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[OUT_SIZES]], %{{.*}}[8]
// CHECK-LABEL: func.func @input_and_result_element_sizes_in_order(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]],
func.func @input_and_result_element_sizes_in_order(%s: !executor.session, %a: memref<4xi64>, %b: memref<4x4xcomplex<f64>>) -> (memref<f32>, memref<8xbf16>) {
  %r:2 = executor.launch %s("kernel", "kernels.o")(%a, %b) : !executor.session, (memref<4xi64>, memref<4x4xcomplex<f64>>) -> (memref<f32>, memref<8xbf16>)
  return %r#0, %r#1 : memref<f32>, memref<8xbf16>
}

// -----

// Ranks and element sizes with the same values share one global.
// CHECK-COUNT-1: llvm.mlir.global internal constant @__executor_i64s_1(dense<1> : tensor<1xi64>)
//     CHECK-NOT: llvm.mlir.global internal constant @__executor_i64s_1
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[RANKS]], %{{.*}}[4]
//  CHECK-NEXT:   %[[SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   llvm.insertvalue %[[SIZES]], %{{.*}}[5]
// CHECK-LABEL: func.func @equal_ranks_and_sizes_share_global(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_kernel : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SITE]],
func.func @equal_ranks_and_sizes_share_global(%s: !executor.session, %x: memref<16xi8>) {
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<16xi8>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// Numbers of inputs and results
//===----------------------------------------------------------------------===//

// No inputs and no results: the site sets the entry and the object only
// (both counts stay 0 and the four arrays null), and both descriptor arrays
// passed are null; there is no slot.
// CHECK-NOT: llvm.mlir.global internal constant @__executor_i64s
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_noop() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
//  CHECK-NEXT:   %[[ZEROS:.*]] = llvm.mlir.zero : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)>
//  CHECK-NEXT:   %[[ENTRY:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_noop : !llvm.ptr
//  CHECK-NEXT:   %[[WITH_ENTRY:.*]] = llvm.insertvalue %[[ENTRY]], %[[ZEROS]][1]
//  CHECK-NEXT:   %[[OBJ:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[SITE_VALUE:.*]] = llvm.insertvalue %[[OBJ]], %[[WITH_ENTRY]][2]
//  CHECK-NEXT:   llvm.return %[[SITE_VALUE]]
// CHECK-LABEL: func.func @no_inputs_no_results(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_noop : !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[NULL]], %[[NULL]]) : (!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
//  CHECK-NEXT:   return
func.func @no_inputs_no_results(%s: !executor.session) {
  executor.launch %s("noop", "kernels.o")() : !executor.session, () -> ()
  return
}

// -----

// Inputs only: the output count stays 0 and the output arrays null, and the
// output descriptor array passed is null.
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_scale_in_place()
//  CHECK-NEXT:   %[[ZEROS:.*]] = llvm.mlir.zero
//  CHECK-NEXT:   %[[ENTRY:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_scale_in_place : !llvm.ptr
//  CHECK-NEXT:   %[[V1:.*]] = llvm.insertvalue %[[ENTRY]], %[[ZEROS]][1]
//  CHECK-NEXT:   %[[OBJ:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[V2:.*]] = llvm.insertvalue %[[OBJ]], %[[V1]][2]
//  CHECK-NEXT:   %[[N:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[V3:.*]] = llvm.insertvalue %[[N]], %[[V2]][3]
//  CHECK-NEXT:   %[[IN_RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[V4:.*]] = llvm.insertvalue %[[IN_RANKS]], %[[V3]][4]
//  CHECK-NEXT:   %[[IN_SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_4 : !llvm.ptr
//  CHECK-NEXT:   %[[V5:.*]] = llvm.insertvalue %[[IN_SIZES]], %[[V4]][5]
//  CHECK-NEXT:   llvm.return %[[V5]]
// CHECK-LABEL: func.func @inputs_only(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64, %[[X:arg[0-9]+]]: memref<4xf32>)
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_scale_in_place : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[IN:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[IN_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A:.*]] = llvm.insertvalue %[[IN]], %[[U]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A]], %[[IN_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[D:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<4xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   llvm.store %[[D]], %[[IN]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[IN_ARRAY]], %[[NULL]])
//  CHECK-NEXT:   return
func.func @inputs_only(%s: !executor.session, %x: memref<4xf32>) {
  executor.launch %s("scale_in_place", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
  return
}

// -----

// Results only: the input count stays 0 and the input arrays null, and the
// input descriptor array passed is null.
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_make()
//  CHECK-NEXT:   %[[ZEROS:.*]] = llvm.mlir.zero
//  CHECK-NEXT:   %[[ENTRY:.*]] = llvm.mlir.addressof @__executor_str__mlir_ciface_make : !llvm.ptr
//  CHECK-NEXT:   %[[V1:.*]] = llvm.insertvalue %[[ENTRY]], %[[ZEROS]][1]
//  CHECK-NEXT:   %[[OBJ:.*]] = llvm.mlir.addressof @__executor_str_kernels_o : !llvm.ptr
//  CHECK-NEXT:   %[[V2:.*]] = llvm.insertvalue %[[OBJ]], %[[V1]][2]
//  CHECK-NEXT:   %[[N:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[V3:.*]] = llvm.insertvalue %[[N]], %[[V2]][6]
//  CHECK-NEXT:   %[[OUT_RANKS:.*]] = llvm.mlir.addressof @__executor_i64s_1 : !llvm.ptr
//  CHECK-NEXT:   %[[V4:.*]] = llvm.insertvalue %[[OUT_RANKS]], %[[V3]][7]
//  CHECK-NEXT:   %[[OUT_SIZES:.*]] = llvm.mlir.addressof @__executor_i64s_8 : !llvm.ptr
//  CHECK-NEXT:   %[[V5:.*]] = llvm.insertvalue %[[OUT_SIZES]], %[[V4]][8]
//  CHECK-NEXT:   %[[OUT_SHAPE:.*]] = llvm.mlir.addressof @__executor_i64s_3 : !llvm.ptr
//  CHECK-NEXT:   %[[V6:.*]] = llvm.insertvalue %[[OUT_SHAPE]], %[[V5]][9]
//  CHECK-NEXT:   llvm.return %[[V6]]
// CHECK-LABEL: func.func @results_only(
//  CHECK-SAME:     %[[S:arg[0-9]+]]: i64) -> memref<3xf64>
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_make : !llvm.ptr
//  CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT:   %[[OUT:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = llvm.alloca %[[ONE]] x !llvm.array<1 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<1 x ptr>
//  CHECK-NEXT:   %[[A:.*]] = llvm.insertvalue %[[OUT]], %[[U]][0] : !llvm.array<1 x ptr>
//  CHECK-NEXT:   llvm.store %[[A]], %[[OUT_ARRAY]] : !llvm.array<1 x ptr>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[SITE]], %[[S]], %[[NULL]], %[[OUT_ARRAY]])
//  CHECK-NEXT:   %[[D:.*]] = llvm.load %[[OUT]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[R:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<3xf64>
//  CHECK-NEXT:   return %[[R]] : memref<3xf64>
func.func @results_only(%s: !executor.session) -> memref<3xf64> {
  %r = executor.launch %s("make", "kernels.o")() : !executor.session, () -> memref<3xf64>
  return %r : memref<3xf64>
}

// -----

// Several results: each is read back from its own slot, in result order.
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_kernel()
//       CHECK:   %[[NOUT:.*]] = llvm.mlir.constant(3 : i64) : i64
//  CHECK-NEXT:   llvm.insertvalue %[[NOUT]], %{{.*}}[6]
// CHECK-LABEL: func.func @several_results_read_back_in_order(
//       CHECK:   %[[R0:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[R1:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[R2:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[OUT_ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<3 x ptr> : (i64) -> !llvm.ptr
//  CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.array<3 x ptr>
//  CHECK-NEXT:   %[[A0:.*]] = llvm.insertvalue %[[R0]], %[[U]][0] : !llvm.array<3 x ptr>
//  CHECK-NEXT:   %[[A1:.*]] = llvm.insertvalue %[[R1]], %[[A0]][1] : !llvm.array<3 x ptr>
//  CHECK-NEXT:   %[[A2:.*]] = llvm.insertvalue %[[R2]], %[[A1]][2] : !llvm.array<3 x ptr>
//  CHECK-NEXT:   llvm.store %[[A2]], %[[OUT_ARRAY]] : !llvm.array<3 x ptr>, !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%{{.*}}, %{{.*}}, %{{.*}}, %[[OUT_ARRAY]])
//  CHECK-NEXT:   %[[D0:.*]] = llvm.load %[[R0]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64)>
//  CHECK-NEXT:   %[[M0:.*]] = builtin.unrealized_conversion_cast %[[D0]] : !llvm.struct<(ptr, ptr, i64)> to memref<f64>
//  CHECK-NEXT:   %[[D1:.*]] = llvm.load %[[R1]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//  CHECK-NEXT:   %[[M1:.*]] = builtin.unrealized_conversion_cast %[[D1]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<?xi32>
//  CHECK-NEXT:   %[[D2:.*]] = llvm.load %[[R2]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
//  CHECK-NEXT:   %[[M2:.*]] = builtin.unrealized_conversion_cast %[[D2]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<2x?xi8>
//  CHECK-NEXT:   return %[[M0]], %[[M1]], %[[M2]] : memref<f64>, memref<?xi32>, memref<2x?xi8>
func.func @several_results_read_back_in_order(%s: !executor.session) -> (memref<f64>, memref<?xi32>, memref<2x?xi8>) {
  %r:3 = executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> (memref<f64>, memref<?xi32>, memref<2x?xi8>)
  return %r#0, %r#1, %r#2 : memref<f64>, memref<?xi32>, memref<2x?xi8>
}

// -----

// A result with the type of an input still gets its own slot: the input slot
// is not read back.
// CHECK-LABEL: func.func @result_has_own_slot(
//       CHECK:   %[[IN:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//       CHECK:   %[[OUT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//       CHECK:   llvm.store %{{.*}}, %[[IN]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.ptr
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(
//  CHECK-NEXT:   llvm.load %[[OUT]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
//   CHECK-NOT:   llvm.load %[[IN]]
func.func @result_has_own_slot(%s: !executor.session, %x: memref<4xf32>) -> memref<4xf32> {
  %r = executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// Vector elements take LLVM's allocation size of [3 x <2 x float>] (24),
// <8 x i1> (1) and <3 x float> (16); f80 takes 16.

// CHECK: llvm.mlir.global internal constant @__executor_i64s_24_1_16_16(dense<[24, 1, 16, 16]> : tensor<4xi64>)
// CHECK-LABEL: func.func @launch_vector_and_f80_element_sizes
func.func @launch_vector_and_f80_element_sizes(%s: !executor.session, %a: memref<4xvector<3x2xf32>>, %b: memref<2xvector<8xi1>>, %c: memref<2xvector<3xf32>>, %d: memref<2xf80>) {
  executor.launch %s("k", "k.o")(%a, %b, %c, %d) : !executor.session, (memref<4xvector<3x2xf32>>, memref<2xvector<8xi1>>, memref<2xvector<3xf32>>, memref<2xf80>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// Launch sites
//===----------------------------------------------------------------------===//

// The launches of a kernel from an object with the same argument types share
// one site, in the same function or in another: an internal, writable (not
// constant) global, 8-byte aligned, named after the kernel. Another kernel, the
// same kernel from another object, or with other ranks or element sizes, gets a
// site of its own.
// CHECK-DAG: llvm.mlir.global internal @__executor_site_k() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
// CHECK-DAG: llvm.mlir.global internal @__executor_site_k_1() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
// CHECK-DAG: llvm.mlir.global internal @__executor_site_j() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
// CHECK-DAG: llvm.mlir.global internal @__executor_site_k_2() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
// CHECK-DAG: llvm.mlir.global internal @__executor_site_k_3() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.struct<(array<5 x i64>, ptr, ptr, i64, ptr, ptr, i64, ptr, ptr, ptr)> {
// CHECK-DAG: llvm.func @__executor__launch_at_site(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr){{$}}
// CHECK-LABEL: func.func @one_site_per_kernel_object_and_signature(
//  CHECK-NEXT:   %[[K:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//       CHECK:   %[[K_OTHER_OBJECT:.*]] = llvm.mlir.addressof @__executor_site_k_1 : !llvm.ptr
//       CHECK:   %[[J:.*]] = llvm.mlir.addressof @__executor_site_j : !llvm.ptr
//       CHECK:   %[[K_F32:.*]] = llvm.mlir.addressof @__executor_site_k_2 : !llvm.ptr
//       CHECK:   %[[K_F64:.*]] = llvm.mlir.addressof @__executor_site_k_3 : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[K]],
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[K]],
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[K_OTHER_OBJECT]],
//  CHECK-NEXT:   llvm.call @__executor__launch_at_site(%[[J]],
//       CHECK:   llvm.call @__executor__launch_at_site(%[[K_F32]],
//       CHECK:   llvm.call @__executor__launch_at_site(%[[K_F64]],
// CHECK-LABEL: func.func @another_function(
//  CHECK-NEXT:   %[[SAME:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//       CHECK:   llvm.call @__executor__launch_at_site(%[[SAME]],
func.func @one_site_per_kernel_object_and_signature(%s: !executor.session, %x: memref<4xf32>, %y: memref<4xf64>) {
  executor.launch %s("k", "k.o")() : !executor.session, () -> ()
  executor.launch %s("k", "k.o")() : !executor.session, () -> ()
  executor.launch %s("k", "other.o")() : !executor.session, () -> ()
  executor.launch %s("j", "k.o")() : !executor.session, () -> ()
  executor.launch %s("k", "k.o")(%x) : !executor.session, (memref<4xf32>) -> ()
  executor.launch %s("k", "k.o")(%y) : !executor.session, (memref<4xf64>) -> ()
  return
}
func.func @another_function(%s: !executor.session) {
  executor.launch %s("k", "k.o")() : !executor.session, () -> ()
  return
}

// -----

// A launch in a loop is one site, whatever the number of iterations: its
// address is taken once, in the prologue, outside the loop.
// CHECK-COUNT-1: llvm.mlir.global internal @__executor_site_k(
//     CHECK-NOT: llvm.mlir.global internal @__executor_site
// CHECK-LABEL: func.func @launch_in_a_loop(
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//       CHECK:   scf.for
//   CHECK-NOT:   llvm.mlir.addressof
//       CHECK:     llvm.call @__executor__launch_at_site(%[[SITE]],
func.func @launch_in_a_loop(%s: !executor.session, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    executor.launch %s("k", "k.o")() : !executor.session, () -> ()
  }
  return
}

// -----

// The site of a launch in a nested module is a global of that module, beside
// its strings and declarations.
// CHECK-LABEL: module @outer
//   CHECK-NOT:   __executor_site
//       CHECK:   module @inner
//       CHECK:     llvm.mlir.global internal @__executor_site_k(
//       CHECK:     func.func @launch_in_inner(
//       CHECK:       %[[SITE:.*]] = llvm.mlir.addressof @__executor_site_k : !llvm.ptr
//       CHECK:       llvm.call @__executor__launch_at_site(%[[SITE]],
module @outer {
  module @inner {
    func.func @launch_in_inner(%s: !executor.session) {
      executor.launch %s("k", "k.o")() : !executor.session, () -> ()
      return
    }
  }
}

// -----

// The site holds the results' static sizes one after the other, -1 where a
// size is dynamic, so that the runtime can hold a server's results to them:
// [2, ?] then [] (rank 0) then [5] is [2, -1, 5].
// CHECK-DAG: llvm.mlir.global internal constant @__executor_i64s_2__1_5(dense<[2, -1, 5]> : tensor<3xi64>) {addr_space = 0 : i32} : !llvm.array<3 x i64>{{$}}
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_shapes()
//       CHECK:   %[[SHAPES:.*]] = llvm.mlir.addressof @__executor_i64s_2__1_5 : !llvm.ptr
//  CHECK-NEXT:   %[[SITE:.*]] = llvm.insertvalue %[[SHAPES]], %{{.*}}[9]
//  CHECK-NEXT:   llvm.return %[[SITE]]
func.func @results_of_static_and_dynamic_sizes(%s: !executor.session) -> (memref<2x?xf32>, memref<f64>, memref<5xi8>) {
  %a, %b, %c = executor.launch %s("shapes", "k.o")() : !executor.session, () -> (memref<2x?xf32>, memref<f64>, memref<5xi8>)
  return %a, %b, %c : memref<2x?xf32>, memref<f64>, memref<5xi8>
}

// -----

// Results without dimensions leave the static sizes null, as no results do.
// CHECK-LABEL: llvm.mlir.global internal @__executor_site_scalar()
//       CHECK:   llvm.insertvalue %{{.*}}[8]
//  CHECK-NEXT:   llvm.return
func.func @results_of_rank_zero(%s: !executor.session) -> memref<f64> {
  %a = executor.launch %s("scalar", "k.o")() : !executor.session, () -> memref<f64>
  return %a : memref<f64>
}
