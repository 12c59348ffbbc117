// A host program launches kernels compiled by upstream tools, on the embedded
// executor and on an executor-server, and prints what they computed.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host | FileCheck %s
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" | FileCheck %s
// Both ends on one CPU, where neither polls the TCP connection: each waits in
// a blocking read.
// RUN: taskset -c 0 %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@KERNELS@|%t.kernels.o|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" | FileCheck %s

// a = [0, 1, 2, 3], b = a * a: add gives [0, 2, 6, 12].
// CHECK:      rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0,  2,  6,  12]

// A 2x3 dynamic-shape input [[0, 1, 2], [3, 4, 5]] scaled by 10, and its row sums.
// CHECK:      rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[}}[0,   10,   20],
// CHECK-NEXT:  [30,   40,   50]]
// CHECK:      rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [30,  120]

// The same session serves a second round: open is idempotent per address and
// the object is loaded once.
// CHECK:      rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0,  2,  6,  12]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%m: memref<?xf32>) {
  %u = memref.cast %m : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @add_squares(%s: !executor.session) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %x = arith.sitofp %ii : i32 to f32
    %xx = arith.mulf %x, %x : f32
    memref.store %x, %a[%i] : memref<4xf32>
    memref.store %xx, %b[%i] : memref<4xf32>
  }
  %r = executor.launch %s("add", "@KERNELS@")(%a, %b) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  %dynamic = memref.cast %r : memref<4xf32> to memref<?xf32>
  call @print(%dynamic) : (memref<?xf32>) -> ()
  memref.dealloc %r : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  call @add_squares(%s) : (!executor.session) -> ()

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %m = memref.alloc(%c2, %c3) : memref<?x?xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %row = arith.muli %i, %c3 : index
      %k = arith.addi %row, %j : index
      %ki = arith.index_cast %k : index to i32
      %x = arith.sitofp %ki : i32 to f32
      memref.store %x, %m[%i, %j] : memref<?x?xf32>
    }
  }
  %factor = memref.alloc() : memref<f32>
  %ten = arith.constant 10.0 : f32
  memref.store %ten, %factor[] : memref<f32>
  %scaled, %sums = executor.launch %s("scale_and_sum_rows", "@KERNELS@")(%m, %factor)
      : !executor.session, (memref<?x?xf32>, memref<f32>) -> (memref<?x?xf32>, memref<?xf32>)
  %u = memref.cast %scaled : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  call @print(%sums) : (memref<?xf32>) -> ()
  memref.dealloc %scaled : memref<?x?xf32>
  memref.dealloc %sums : memref<?xf32>

  %again = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %again("@KERNELS@") : !executor.session
  call @add_squares(%again) : (!executor.session) -> ()
  executor.close %s : !executor.session
  return
}
