// executor.launch of a 64 MiB input (@ELEMENTS@ f32) to an executor-server,
// @N@ times; each launch is timed on its own with rtclock and its time printed
// in seconds, one line per launch. The kernel (`sink` of bench/kernels.mlir)
// does nothing: the time is shipping the input and the round trip. The baseline
// is a plain loopback socket copy of the same bytes (bench/socket_copy.py).
// bench/run.py substitutes @ADDRESS@, @KERNELS@, @N@ and @ELEMENTS@.
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @N@ : index
  %elements = arith.constant @ELEMENTS@ : index
  %a = memref.alloc(%elements) : memref<?xf32>
  %seven = arith.constant 7.0 : f32
  scf.for %j = %c0 to %elements step %c1 {
    memref.store %seven, %a[%j] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %start = func.call @rtclock() : () -> f64
    executor.launch %s("sink", "@KERNELS@")(%a) : !executor.session, (memref<?xf32>) -> ()
    %end = func.call @rtclock() : () -> f64
    %elapsed = arith.subf %end, %start : f64
    func.call @printF64(%elapsed) : (f64) -> ()
    func.call @printNewline() : () -> ()
  }
  memref.dealloc %a : memref<?xf32>
  executor.close %s : !executor.session
  return
}
