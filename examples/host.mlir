// The host program of the demo: it opens a session on the embedded executor,
// ships examples/kernels.mlir compiled to an object file, runs saxpy on it and
// prints the result. `make demo` lowers it with executor-opt and runs it with
// mlir-runner; change "local" to "127.0.0.1:9000" to run it on an
// executor-server instead (see the README).
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %session = executor.open("local") : !executor.session
  executor.send_binary %session("target/demo/kernels.o") : !executor.session

  %warm_up = executor.launch_async %session("warm_up", "target/demo/kernels.o")
      : !executor.session -> !executor.token

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

  %z = executor.launch %session("saxpy", "target/demo/kernels.o")(%a, %x, %y)
      : !executor.session, (memref<f32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>
  %printable = memref.cast %z : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%printable) : (memref<*xf32>) -> ()

  executor.await %warm_up : !executor.token
  memref.dealloc %z : memref<?xf32>
  memref.dealloc %x : memref<?xf32>
  memref.dealloc %y : memref<?xf32>
  memref.dealloc %a : memref<f32>
  executor.close %session : !executor.session
  return
}
