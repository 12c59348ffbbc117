// The baseline of bench/async_launch.mlir: MLIR's own async runtime doing
// async.execute + async.await of an empty region, @N@ times in a loop, timed
// with rtclock; prints nanoseconds per execute+await. bench/run.py lowers it
// with upstream mlir-opt:
//   async-to-async-runtime, func.func(async-runtime-ref-counting,
//   async-runtime-ref-counting-opt), convert-async-to-llvm, convert-scf-to-cf,
//   convert-cf-to-llvm, convert-arith-to-llvm, convert-func-to-llvm,
//   reconcile-unrealized-casts
// and runs it with mlir-runner -O0 and libmlir_async_runtime.so (the
// coroutines need -O0: at mlir-runner's default -O2 LLVM 22's instruction
// selection aborts on them, as upstream's async integration tests avoid too).
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @N@ : index
  %start = call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {
    %token = async.execute {
      async.yield
    }
    async.await %token : !async.token
  }
  %end = call @rtclock() : () -> f64
  %elapsed = arith.subf %end, %start : f64
  %count = arith.constant @N@.0 : f64
  %per_iteration = arith.divf %elapsed, %count : f64
  %ns = arith.constant 1.0e9 : f64
  %per_iteration_ns = arith.mulf %per_iteration, %ns : f64
  call @printF64(%per_iteration_ns) : (f64) -> ()
  call @printNewline() : () -> ()
  return
}
