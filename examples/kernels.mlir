// The kernels of the demo: compiled to target/demo/kernels.o by `make demo`
// and shipped to the executor by examples/host.mlir.

// z = a * x + y, for vectors of any length.
func.func @saxpy(%a: memref<f32>, %x: memref<?xf32>, %y: memref<?xf32>) -> memref<?xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %alpha = memref.load %a[] : memref<f32>
  %z = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %xi = memref.load %x[%i] : memref<?xf32>
    %yi = memref.load %y[%i] : memref<?xf32>
    %axi = arith.mulf %alpha, %xi : f32
    %zi = arith.addf %axi, %yi : f32
    memref.store %zi, %z[%i] : memref<?xf32>
  }
  return %z : memref<?xf32>
}

// A background job: `()->()`, for executor.launch_async.
func.func @warm_up() attributes {llvm.emit_c_interface} {
  return
}
