// The kernel test/Plugin/Catalyst/python-qjit.py launches from a qjit
// function: y = 3 x + 1, in a buffer of its own.
func.func @scale(%x: memref<4xf64>) -> memref<4xf64> attributes {llvm.emit_c_interface} {
  %y = memref.alloc() : memref<4xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %three = arith.constant 3.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %m = arith.mulf %v, %three : f64
    %a = arith.addf %m, %one : f64
    memref.store %a, %y[%i] : memref<4xf64>
  }
  return %y : memref<4xf64>
}
