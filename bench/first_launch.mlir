// The first launch of a program on a fresh session: executor.open, the
// send_binary of @KERNELS@ and the first launch of its empty kernel `nothing`,
// each timed with the runner utils' rtclock; prints microseconds, one line per
// step: 1. open, 2. send_binary, 3. the first launch (which resolves the entry
// and, for an object file, links it). One process run is one sample: its
// session is the first the program opens. bench/run.py substitutes @ADDRESS@
// (`local` or an executor-server's), @KERNELS@, @FORMAT@ (send_binary's format:
// 0 object file, 2 shared library) and @ENTRY@, lowers it with
// executor-llvm-lowering-stage and runs it with mlir-runner.
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

func.func @report(%start: f64, %end: f64) {
  %elapsed = arith.subf %end, %start : f64
  %us = arith.constant 1.0e6 : f64
  %elapsed_us = arith.mulf %elapsed, %us : f64
  call @printF64(%elapsed_us) : (f64) -> ()
  call @printNewline() : () -> ()
  return
}

func.func @main() {
  %t0 = call @rtclock() : () -> f64
  %s = executor.open("@ADDRESS@") : !executor.session
  %t1 = call @rtclock() : () -> f64
  executor.send_binary %s("@KERNELS@") {format = @FORMAT@ : i32} : !executor.session
  %t2 = call @rtclock() : () -> f64
  executor.launch %s("@ENTRY@", "@KERNELS@")() : !executor.session, () -> ()
  %t3 = call @rtclock() : () -> f64
  call @report(%t0, %t1) : (f64, f64) -> ()
  call @report(%t1, %t2) : (f64, f64) -> ()
  call @report(%t2, %t3) : (f64, f64) -> ()
  executor.close %s : !executor.session
  return
}
