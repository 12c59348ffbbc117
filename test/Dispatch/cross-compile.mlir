// RUN: rm -rf %t && mkdir -p %t
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t})' | FileCheck %s
// RUN: llvm-readelf -h %t/arm.o | FileCheck %s --check-prefix=AARCH64
// RUN: llvm-readelf -h %t/riscv.o | FileCheck %s --check-prefix=RISCV64
// RUN: llvm-readelf -h %t/host.o | FileCheck %s --check-prefix=NATIVE
// RUN: llvm-readelf -h %t/empty.o | FileCheck %s --check-prefix=NATIVE
// RUN: llvm-readelf -h %t/u74.o | FileCheck %s --check-prefix=CPU
// RUN: llvm-readelf -h %t/compressed.o | FileCheck %s --check-prefix=FEATURES

// Each target module is compiled for the triple its executor.target names
// (with its cpu and features), one without a triple, or with an empty one,
// for the host's default.

// AARCH64:      Class: ELF64
// AARCH64:      Data: 2's complement, little endian
// AARCH64:      Type: REL (Relocatable file)
// AARCH64:      Machine: AArch64

// RISCV64:      Class: ELF64
// RISCV64:      Data: 2's complement, little endian
// RISCV64:      Machine: RISC-V
// RISCV64:      Flags: 0x0{{$}}

// NATIVE:       Machine: Advanced Micro Devices X86-64

// The cpu and the features reach LLVM: a SiFive U74 has compressed
// instructions, and so has +c; the object's flags say so (EF_RISCV_RVC).
// CPU:          Machine: RISC-V
// CPU:          Flags: {{.*}}RVC
// FEATURES:     Machine: RISC-V
// FEATURES:     Flags: {{.*}}RVC

// The host only sees the objects by path, whatever they were compiled for.
// CHECK-LABEL: func.func @main(
//       CHECK:   %[[ARM:.*]] = executor.open("10.0.0.2:9000")
//       CHECK:   %[[RISCV:.*]] = executor.open("10.0.0.3:9000")
//       CHECK:   %[[LOCAL:.*]] = executor.open("local")
//       CHECK:   executor.send_binary %[[ARM]]("{{/.*}}/arm.o")
//       CHECK:   executor.send_binary %[[RISCV]]("{{/.*}}/riscv.o")
//       CHECK:   executor.send_binary %[[LOCAL]]("{{/.*}}/host.o")
//       CHECK:   executor.send_binary %[[LOCAL]]("{{/.*}}/empty.o")
//       CHECK:   executor.send_binary %[[RISCV]]("{{/.*}}/u74.o")
//       CHECK:   executor.send_binary %[[RISCV]]("{{/.*}}/compressed.o")
module {
  module @arm attributes {executor.target = {address = "10.0.0.2:9000", triple = "aarch64-unknown-linux-gnu"}} {
    func.func @scale(%x: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<?xf32>
      return
    }
  }
  module @riscv attributes {executor.target = {address = "10.0.0.3:9000", triple = "riscv64-unknown-linux-gnu"}} {
    func.func @scale(%x: memref<?xf32>) {
      return
    }
  }
  module @host attributes {executor.target = {address = "local"}} {
    func.func @scale(%x: memref<?xf32>) {
      return
    }
  }
  module @empty attributes {executor.target = {address = "local", triple = ""}} {
    func.func @scale(%x: memref<?xf32>) {
      return
    }
  }
  module @u74 attributes {executor.target = {address = "10.0.0.3:9000", triple = "riscv64-unknown-linux-gnu", cpu = "sifive-u74"}} {
    func.func @scale(%x: memref<?xf32>) {
      return
    }
  }
  module @compressed attributes {executor.target = {address = "10.0.0.3:9000", triple = "riscv64-unknown-linux-gnu", features = "+c"}} {
    func.func @scale(%x: memref<?xf32>) {
      return
    }
  }
  func.func private @arm_scale(memref<?xf32>) attributes {executor.kernel = @arm::@scale}
  func.func private @riscv_scale(memref<?xf32>) attributes {executor.kernel = @riscv::@scale}
  func.func private @host_scale(memref<?xf32>) attributes {executor.kernel = @host::@scale}
  func.func private @empty_scale(memref<?xf32>) attributes {executor.kernel = @empty::@scale}
  func.func private @u74_scale(memref<?xf32>) attributes {executor.kernel = @u74::@scale}
  func.func private @compressed_scale(memref<?xf32>) attributes {executor.kernel = @compressed::@scale}
  func.func @main(%x: memref<?xf32>) {
    call @arm_scale(%x) : (memref<?xf32>) -> ()
    call @riscv_scale(%x) : (memref<?xf32>) -> ()
    call @host_scale(%x) : (memref<?xf32>) -> ()
    call @empty_scale(%x) : (memref<?xf32>) -> ()
    call @u74_scale(%x) : (memref<?xf32>) -> ()
    call @compressed_scale(%x) : (memref<?xf32>) -> ()
    return
  }
}
