// A program in Catalyst's dispatch form runs: its kernels' object compiled
// beforehand (as Catalyst's cross-compile-targets does), dispatch-executor-targets
// turns its launch_kernel ops into executor ops, and the lowered host runs
// them on the embedded executor.

// RUN: rm -rf %t && split-file %s %t
// RUN: mlir-opt %t/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t/kernels.o
// RUN: sed 's|@KERNELS@|%t/kernels.o|' %t/host.mlir \
// RUN:   | executor-opt --allow-unregistered-dialect \
// RUN:       --pass-pipeline='builtin.module(dispatch-executor-targets,executor-llvm-lowering-stage)' \
// RUN:   | %run_host | FileCheck %s

// a = [0, 1, 2, 3], added to itself twice over.
// CHECK:      rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0,  2,  4,  6]
// CHECK:      rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0,  4,  8,  12]

//--- kernels.mlir
module {
  func.func @add(%a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r = memref.alloc() : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %a[%i] : memref<4xf32>
      %y = memref.load %b[%i] : memref<4xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %r[%i] : memref<4xf32>
    }
    return %r : memref<4xf32>
  }
  func.func @warm_up() attributes {llvm.emit_c_interface} {
    return
  }
}

//--- host.mlir
module {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = memref.alloc() : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %x = arith.sitofp %ii : i32 to f32
      memref.store %x, %a[%i] : memref<4xf32>
    }
    "catalyst.launch_kernel"() <{callee = @kernels::@warm_up}> {catalyst.nonblocking} : () -> ()
    %twice = "catalyst.launch_kernel"(%a, %a) <{callee = @kernels::@add}> : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    %four = "catalyst.launch_kernel"(%twice, %twice) <{callee = @kernels::@add}> : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    %u2 = memref.cast %twice : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
    %u4 = memref.cast %four : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%u4) : (memref<*xf32>) -> ()
    memref.dealloc %four : memref<4xf32>
    memref.dealloc %twice : memref<4xf32>
    memref.dealloc %a : memref<4xf32>
    return
  }

  // The kernels as they were compiled; the pass uses their object as it is.
  module @kernels attributes {catalyst.dispatch = {address = "local"}, catalyst.object_file = "@KERNELS@"} {
    func.func public @add(%a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %r = memref.alloc() : memref<4xf32>
      scf.for %i = %c0 to %c4 step %c1 {
        %x = memref.load %a[%i] : memref<4xf32>
        %y = memref.load %b[%i] : memref<4xf32>
        %z = arith.addf %x, %y : f32
        memref.store %z, %r[%i] : memref<4xf32>
      }
      return %r : memref<4xf32>
    }
    func.func public @warm_up() {
      return
    }
  }
}
