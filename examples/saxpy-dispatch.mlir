// The demo in one file: the host program and its kernels. Run it with
//
//   target/release/executor-run examples/saxpy-dispatch.mlir
//
// executor-dispatch compiles @kernels to an object file, turns the calls to
// @saxpy and @warm_up into executor ops on a session with the executor at
// "local" (the one embedded in the process), and the host runs. Change the
// address to "127.0.0.1:9000" to run the kernels on an executor-server
// instead (see the README). It prints what examples/host.mlir with
// examples/kernels.mlir prints.
module {
  // The kernels, compiled to <object-dir>/kernels.o and run by the executor.
  module @kernels attributes {executor.target = {address = "local"}} {
    // z = a * x + y, for vectors of any length.
    func.func @saxpy(%a: memref<f32>, %x: memref<?xf32>, %y: memref<?xf32>) -> memref<?xf32> {
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

    // A background job: `() -> ()`, started without waiting for it.
    func.func @warm_up() {
      return
    }
  }

  // The host's view of the kernels: ordinary declarations that name them.
  func.func private @saxpy(memref<f32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>
      attributes {executor.kernel = @kernels::@saxpy}
  func.func private @warm_up() attributes {executor.kernel = @kernels::@warm_up}

  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

  func.func @main() {
    // Started here, awaited before @main returns.
    call @warm_up() {executor.async} : () -> ()

    // x = [0, 1, ..., 7], y = [100, 100, ...], a = 2: z = [100, 102, ..., 114].
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = memref.alloc(%c8) : memref<?xf32>
    %y = memref.alloc(%c8) : memref<?xf32>
    %hundred = arith.constant 100.0 : f32
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %xi = arith.sitofp %ii : i32 to f32
      memref.store %xi, %x[%i] : memref<?xf32>
      memref.store %hundred, %y[%i] : memref<?xf32>
    }
    %a = memref.alloc() : memref<f32>
    %two = arith.constant 2.0 : f32
    memref.store %two, %a[] : memref<f32>

    %z = call @saxpy(%a, %x, %y) : (memref<f32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>
    %printable = memref.cast %z : memref<?xf32> to memref<*xf32>
    call @printMemrefF32(%printable) : (memref<*xf32>) -> ()

    memref.dealloc %z : memref<?xf32>
    memref.dealloc %x : memref<?xf32>
    memref.dealloc %y : memref<?xf32>
    memref.dealloc %a : memref<f32>
    return
  }
}
