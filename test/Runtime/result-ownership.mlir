// The host owns every buffer a launch returns and may free it, also when the
// kernel returned a buffer it does not hand over: a global's, its input's, or
// a C kernel's static array. The embedded executor then gives the result a
// copy of its own, as a server does; a server's worker frees none of them.
// Freeing them must neither crash nor free twice.

// RUN: rm -rf %t && mkdir %t && split-file %s %t
// RUN: mlir-opt %t/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t/kernels.o
// RUN: clang -c -fPIC %t/table.c -o %t/table.o
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@KERNELS@|%t/kernels.o|' -e 's|@TABLE@|%t/table.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host | FileCheck %s
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t/kernels.o|' -e 's|@TABLE@|%t/table.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" | FileCheck %s

// CHECK:      [7,  8]
// CHECK:      [1,  2]
// CHECK:      [3,  4]
// CHECK:      [3,  4]
// CHECK:      freed

//--- kernels.mlir
memref.global "private" constant @answer : memref<2xf32> = dense<[7.0, 8.0]>

func.func @constant() -> memref<2xf32> attributes {llvm.emit_c_interface} {
  %g = memref.get_global @answer : memref<2xf32>
  return %g : memref<2xf32>
}

func.func @identity(%x: memref<2xf32>) -> memref<2xf32> attributes {llvm.emit_c_interface} {
  return %x : memref<2xf32>
}

//--- table.c
// A kernel returning a descriptor over its static array, twice the same.
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
static float table[2] = {3.0f, 4.0f};
void _mlir_ciface_table(memref_1d *result) {
  *result = (memref_1d){table, table, 0, {2}, {1}};
}

//--- host.mlir
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @freed("freed\00") {addr_space = 0 : i32}

func.func @print_and_free(%m: memref<2xf32>) {
  %u = memref.cast %m : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<2xf32>
  return
}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %a = executor.launch %s("constant", "@KERNELS@")() : !executor.session, () -> memref<2xf32>
  call @print_and_free(%a) : (memref<2xf32>) -> ()
  %x = memref.alloc() : memref<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  memref.store %one, %x[%c0] : memref<2xf32>
  memref.store %two, %x[%c1] : memref<2xf32>
  %b = executor.launch %s("identity", "@KERNELS@")(%x) : !executor.session, (memref<2xf32>) -> memref<2xf32>
  call @print_and_free(%b) : (memref<2xf32>) -> ()
  memref.dealloc %x : memref<2xf32>
  executor.send_binary %s("@TABLE@") : !executor.session
  %t1 = executor.launch %s("table", "@TABLE@")() : !executor.session, () -> memref<2xf32>
  call @print_and_free(%t1) : (memref<2xf32>) -> ()
  %t2 = executor.launch %s("table", "@TABLE@")() : !executor.session, () -> memref<2xf32>
  call @print_and_free(%t2) : (memref<2xf32>) -> ()
  %message = llvm.mlir.addressof @freed : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  executor.close %s : !executor.session
  return
}
