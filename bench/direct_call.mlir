// The baseline of bench/local_launch.mlir: the same loop calling the same
// empty kernel's C interface directly, from the kernels built as a shared
// library (bench/run.py passes it to mlir-runner with -shared-libs); prints
// nanoseconds per call. bench/run.py substitutes @LAUNCHES@ and lowers it
// with executor-llvm-lowering-stage, as the launch program.
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()
func.func private @_mlir_ciface_nothing()

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @LAUNCHES@ : index
  %start = call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {
    func.call @_mlir_ciface_nothing() : () -> ()
  }
  %end = call @rtclock() : () -> f64
  %elapsed = arith.subf %end, %start : f64
  %count = arith.constant @LAUNCHES@.0 : f64
  %per_call = arith.divf %elapsed, %count : f64
  %ns = arith.constant 1.0e9 : f64
  %per_call_ns = arith.mulf %per_call, %ns : f64
  call @printF64(%per_call_ns) : (f64) -> ()
  call @printNewline() : () -> ()
  return
}
