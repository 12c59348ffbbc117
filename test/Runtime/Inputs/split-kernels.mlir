// Kernels for test/Runtime/split-object.mlir, compiled with function sections
// so that the executor links them a piece at a time: two kernels share a
// private helper (a call to a local symbol of another section) and a private
// global (state that must be one variable whichever kernel links it first),
// and each uses a floating-point constant (read from a constant pool).
memref.global "private" @calls : memref<1xf32> = dense<0.0>

// Adds 1 to the shared count and returns the count, scaled by `scale`.
func.func private @bump(%scale: f32) -> memref<1xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %global = memref.get_global @calls : memref<1xf32>
  %before = memref.load %global[%c0] : memref<1xf32>
  %after = arith.addf %before, %one : f32
  memref.store %after, %global[%c0] : memref<1xf32>
  %scaled = arith.mulf %after, %scale : f32
  %result = memref.alloc() : memref<1xf32>
  memref.store %scaled, %result[%c0] : memref<1xf32>
  return %result : memref<1xf32>
}

func.func @tens() -> memref<1xf32> attributes {llvm.emit_c_interface} {
  %scale = arith.constant 10.0 : f32
  %result = call @bump(%scale) : (f32) -> memref<1xf32>
  return %result : memref<1xf32>
}

func.func @hundreds() -> memref<1xf32> attributes {llvm.emit_c_interface} {
  %scale = arith.constant 100.0 : f32
  %result = call @bump(%scale) : (f32) -> memref<1xf32>
  return %result : memref<1xf32>
}

func.func @unused() attributes {llvm.emit_c_interface} {
  return
}
