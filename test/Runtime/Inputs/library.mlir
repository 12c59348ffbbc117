// Functions of a shared library for executor.call: each takes one memref per
// buffer (inputs, then outputs it fills in place), through its C interface.

// out[i] = in[i] / sum(in)
func.func @normalize(%in: memref<?xf64>, %out: memref<?xf64>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %in, %c0 : memref<?xf64>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %x = memref.load %in[%i] : memref<?xf64>
    %next = arith.addf %acc, %x : f64
    scf.yield %next : f64
  }
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %in[%i] : memref<?xf64>
    %y = arith.divf %x, %sum : f64
    memref.store %y, %out[%i] : memref<?xf64>
  }
  return
}

// out = [min(in), max(in)] as integers
func.func @min_max(%in: memref<?xf64>, %out: memref<2xi32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xf64>
  %first = memref.load %in[%c0] : memref<?xf64>
  %lo, %hi = scf.for %i = %c1 to %n step %c1 iter_args(%l = %first, %h = %first) -> (f64, f64) {
    %x = memref.load %in[%i] : memref<?xf64>
    %nl = arith.minimumf %l, %x : f64
    %nh = arith.maximumf %h, %x : f64
    scf.yield %nl, %nh : f64, f64
  }
  %loi = arith.fptosi %lo : f64 to i32
  %hii = arith.fptosi %hi : f64 to i32
  memref.store %loi, %out[%c0] : memref<2xi32>
  memref.store %hii, %out[%c1] : memref<2xi32>
  return
}
