// Round trips of executor.launch to an executor-server, @N@ of each kind,
// timed with the runner utils' rtclock; prints microseconds per round trip,
// one line per kind:
//   1. echo_1k: 1 KiB input, the same 1 KiB back as the result (the bytes of a
//      TCP echo of 1 KiB, the baseline: runtime/examples/tcp_echo_rtt.rs);
//   2. sink: 1 KiB input, no result;
//   3. nothing: no input, no result (the fixed cost of a round trip).
// bench/run.py substitutes @ADDRESS@, @KERNELS@ and @N@, lowers it with
// executor-llvm-lowering-stage and runs it with mlir-runner.
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

func.func @report(%start: f64, %end: f64) {
  %elapsed = arith.subf %end, %start : f64
  %count = arith.constant @N@.0 : f64
  %per_round_trip = arith.divf %elapsed, %count : f64
  %us = arith.constant 1.0e6 : f64
  %per_round_trip_us = arith.mulf %per_round_trip, %us : f64
  call @printF64(%per_round_trip_us) : (f64) -> ()
  call @printNewline() : () -> ()
  return
}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = arith.constant @N@ : index
  %a = memref.alloc() : memref<256xf32>
  %seven = arith.constant 7.0 : f32
  scf.for %j = %c0 to %c256 step %c1 {
    memref.store %seven, %a[%j] : memref<256xf32>
  }
  %dynamic = memref.cast %a : memref<256xf32> to memref<?xf32>

  %t0 = call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {
    %r = executor.launch %s("echo_1k", "@KERNELS@")(%a) : !executor.session, (memref<256xf32>) -> memref<256xf32>
    memref.dealloc %r : memref<256xf32>
  }
  %t1 = call @rtclock() : () -> f64
  call @report(%t0, %t1) : (f64, f64) -> ()

  %t2 = call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {
    executor.launch %s("sink", "@KERNELS@")(%dynamic) : !executor.session, (memref<?xf32>) -> ()
  }
  %t3 = call @rtclock() : () -> f64
  call @report(%t2, %t3) : (f64, f64) -> ()

  %t4 = call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {
    executor.launch %s("nothing", "@KERNELS@")() : !executor.session, () -> ()
  }
  %t5 = call @rtclock() : () -> f64
  call @report(%t4, %t5) : (f64, f64) -> ()

  memref.dealloc %a : memref<256xf32>
  executor.close %s : !executor.session
  return
}
