// Every sent object has a namespace of its own: two objects may define the
// same kernel, and a launch runs the one of the object it names. One file
// sent under two spellings is one object, which a launch may name either way.
// On the embedded executor and on an executor-server.

// RUN: rm -rf %t && mkdir -p %t/sub && cd %t
// RUN: split-file %s %t
// RUN: mlir-opt %t/twice.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t/twice.o
// RUN: mlir-opt %t/thrice.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t/thrice.o
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@DIR@|%t|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host | FileCheck %s
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@DIR@|%t|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" | FileCheck %s

// scale from twice.o, then from thrice.o, on [1, 2]; then twice.o's again
// through another spelling of its path.
// CHECK:      [2,  4]
// CHECK:      [3,  6]
// CHECK:      [2,  4]

//--- twice.mlir
func.func @scale(%x: memref<2xf32>) -> memref<2xf32> attributes {llvm.emit_c_interface} {
  %two = arith.constant 2.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %y = memref.alloc() : memref<2xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %v = memref.load %x[%i] : memref<2xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %y[%i] : memref<2xf32>
  }
  return %y : memref<2xf32>
}

//--- thrice.mlir
func.func @scale(%x: memref<2xf32>) -> memref<2xf32> attributes {llvm.emit_c_interface} {
  %three = arith.constant 3.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %y = memref.alloc() : memref<2xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %v = memref.load %x[%i] : memref<2xf32>
    %w = arith.mulf %v, %three : f32
    memref.store %w, %y[%i] : memref<2xf32>
  }
  return %y : memref<2xf32>
}

//--- host.mlir
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
memref.global "private" constant @x : memref<2xf32> = dense<[1.0, 2.0]>

func.func @print(%m: memref<2xf32>) {
  %u = memref.cast %m : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<2xf32>
  return
}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/twice.o") : !executor.session
  executor.send_binary %s("@DIR@/thrice.o") : !executor.session
  // The same file again, spelled otherwise: not sent or linked again.
  executor.send_binary %s("@DIR@/sub/../twice.o") : !executor.session
  %x = memref.get_global @x : memref<2xf32>
  %a = executor.launch %s("scale", "@DIR@/twice.o")(%x) : !executor.session, (memref<2xf32>) -> memref<2xf32>
  call @print(%a) : (memref<2xf32>) -> ()
  %b = executor.launch %s("scale", "@DIR@/thrice.o")(%x) : !executor.session, (memref<2xf32>) -> memref<2xf32>
  call @print(%b) : (memref<2xf32>) -> ()
  %c = executor.launch %s("scale", "@DIR@/./twice.o")(%x) : !executor.session, (memref<2xf32>) -> memref<2xf32>
  call @print(%c) : (memref<2xf32>) -> ()
  executor.close %s : !executor.session
  return
}
