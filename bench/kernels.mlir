// The kernels the run-time benchmarks ship to the executor, compiled to a
// relocatable object by bench/run.py with upstream tools (the same pipeline as
// test/Runtime's %kernel_pipeline, then mlir-translate and llc).

// An empty kernel: what a launch costs by itself (bench/local_launch.mlir), and
// the `void(void)` entry of executor.launch_async (bench/async_launch.mlir).
func.func @nothing() attributes {llvm.emit_c_interface} {
  return
}

// 1 KiB in, the same 1 KiB back: a launch that moves the bytes of a TCP echo
// (bench/remote_launch.mlir).
func.func @echo_1k(%a: memref<256xf32>) -> memref<256xf32> attributes {llvm.emit_c_interface} {
  return %a : memref<256xf32>
}

// Takes a buffer of any size and returns nothing: a launch that only ships its
// input (bench/remote_launch.mlir with 1 KiB, bench/remote_bulk.mlir with 64 MiB).
func.func @sink(%a: memref<?xf32>) attributes {llvm.emit_c_interface} {
  return
}
