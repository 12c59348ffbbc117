// executor.launch_async + executor.await of an empty `void(void)` entry on the
// embedded executor, @N@ times in a loop, timed with the runner utils' rtclock;
// prints nanoseconds per launch+await. bench/run.py substitutes @N@ and
// @KERNELS@ (bench/kernels.mlir compiled), lowers it with
// executor-llvm-lowering-stage and runs it with mlir-runner.
// The baseline is bench/async_execute.mlir.
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @N@ : index
  %start = call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {
    %t = executor.launch_async %s("nothing", "@KERNELS@") : !executor.session -> !executor.token
    executor.await %t : !executor.token
  }
  %end = call @rtclock() : () -> f64
  %elapsed = arith.subf %end, %start : f64
  %count = arith.constant @N@.0 : f64
  %per_iteration = arith.divf %elapsed, %count : f64
  %ns = arith.constant 1.0e9 : f64
  %per_iteration_ns = arith.mulf %per_iteration, %ns : f64
  call @printF64(%per_iteration_ns) : (f64) -> ()
  call @printNewline() : () -> ()
  executor.close %s : !executor.session
  return
}
