// A launch inside async.execute, with async lowered before the executor ops
// (async-to-async-runtime outlines the body into a coroutine first, as a
// pipeline with loops in async.execute must): the launch's slots live in the
// coroutine's frame, and the kernel reads its inputs from there. Its sum
// comes back through the async value.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(convert-linalg-to-loops,async-to-async-runtime,func.func(async-runtime-ref-counting,async-runtime-ref-counting-opt),convert-async-to-llvm,executor-llvm-lowering-stage)' \
// RUN:   | %run_async_host | FileCheck %s

// 1 + 2 in each element (kernels.mlir's @add).
// CHECK: data =
// CHECK-NEXT: [3,  3,  3,  3]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<4xf32>)
  linalg.fill ins(%two : f32) outs(%b : memref<4xf32>)
  %token, %value = async.execute -> !async.value<memref<4xf32>> {
    %sum = executor.launch %s("add", "@KERNELS@")(%a, %b) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    async.yield %sum : memref<4xf32>
  }
  %sum = async.await %value : !async.value<memref<4xf32>>
  %printed = memref.cast %sum : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%printed) : (memref<*xf32>) -> ()
  memref.dealloc %sum : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  executor.close %s : !executor.session
  return
}
