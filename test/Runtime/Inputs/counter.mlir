// A kernel with state: each launch returns how many times it has run since
// its object was loaded (test/Runtime/optimize.mlir).
memref.global "private" @launches : memref<1xi64> = dense<0>

func.func @count() -> memref<1xi64> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %global = memref.get_global @launches : memref<1xi64>
  %before = memref.load %global[%c0] : memref<1xi64>
  %after = arith.addi %before, %one : i64
  memref.store %after, %global[%c0] : memref<1xi64>
  %result = memref.alloc() : memref<1xi64>
  memref.store %after, %result[%c0] : memref<1xi64>
  return %result : memref<1xi64>
}

func.func @nothing() attributes {llvm.emit_c_interface} {
  return
}
