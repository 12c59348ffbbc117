// Per-launch cost of the embedded executor: @LAUNCHES@ synchronous launches of
// an empty kernel (`nothing` of bench/kernels.mlir: no operands, so this is the
// fixed cost of a launch), timed with the runner utils' rtclock; prints
// nanoseconds per launch. bench/run.py substitutes @KERNELS@ (the object file)
// and @LAUNCHES@, lowers it with executor-llvm-lowering-stage and runs it with
// mlir-runner.
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @LAUNCHES@ : index
  %start = call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {
    executor.launch %s("nothing", "@KERNELS@")() : !executor.session, () -> ()
  }
  %end = call @rtclock() : () -> f64
  %elapsed = arith.subf %end, %start : f64
  %count = arith.constant @LAUNCHES@.0 : f64
  %per_launch = arith.divf %elapsed, %count : f64
  %ns = arith.constant 1.0e9 : f64
  %per_launch_ns = arith.mulf %per_launch, %ns : f64
  call @printF64(%per_launch_ns) : (f64) -> ()
  call @printNewline() : () -> ()
  executor.close %s : !executor.session
  return
}
