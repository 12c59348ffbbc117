// A kernel for test/Runtime/object-library.mlir that calls a function another
// object of its session defines (`filler_7`, one of the functions added to
// split-kernels.mlir's object there, which returns 7).
func.func private @filler_7() -> i64

func.func @via() -> memref<1xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %value = call @filler_7() : () -> i64
  %float = arith.sitofp %value : i64 to f32
  %result = memref.alloc() : memref<1xf32>
  memref.store %float, %result[%c0] : memref<1xf32>
  return %result : memref<1xf32>
}
