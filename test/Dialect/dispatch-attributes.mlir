// RUN: executor-opt %s | FileCheck %s
// RUN: executor-opt %s --emit-bytecode | executor-opt | FileCheck %s --check-prefix=BYTECODE

// The attributes of the dispatch form in their valid forms: they verify,
// print and survive bytecode. (dispatch-attributes-invalid.mlir has one
// case per rule the dialect checks.)

// CHECK-LABEL: module @kernels attributes {executor.target = {address = "local"}}
// The machine's keys print in the dictionary's order.
// CHECK-LABEL: module @arm attributes {executor.target = {address = "10.0.0.2:9000", cpu = "cortex-a72", features = "+crc", triple = "aarch64-unknown-linux-gnu"}}
// CHECK:       func.func private @saxpy(memref<f32>) attributes {executor.kernel = @kernels::@saxpy}
// CHECK:       call @saxpy(%{{.*}}) : (memref<f32>) -> ()
// CHECK:       call @warm_up() {executor.async} : () -> ()
// BYTECODE:    executor.target = {address = "local"}
// BYTECODE:    executor.target = {address = "10.0.0.2:9000", cpu = "cortex-a72", features = "+crc", triple = "aarch64-unknown-linux-gnu"}
// BYTECODE:    executor.kernel = @kernels::@saxpy
// BYTECODE:    {executor.async}
module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @saxpy(%a: memref<f32>) {
      return
    }
    func.func @warm_up() {
      return
    }
  }
  module @arm attributes {executor.target = {address = "10.0.0.2:9000", triple = "aarch64-unknown-linux-gnu", cpu = "cortex-a72", features = "+crc"}} {
  }
  func.func private @saxpy(memref<f32>) attributes {executor.kernel = @kernels::@saxpy}
  func.func private @warm_up() attributes {executor.kernel = @kernels::@warm_up}
  func.func @main(%a: memref<f32>) {
    call @saxpy(%a) : (memref<f32>) -> ()
    call @warm_up() {executor.async} : () -> ()
    return
  }
}
