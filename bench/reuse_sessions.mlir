// A host loop of @N@ iterations that opens a session to an executor-server,
// sends the kernels' object, launches the stateless echo_1k kernel and closes
// the session, in every iteration: what executor-optimize{reuse-sessions=true}
// turns into one session for the whole loop. bench/harness/session_passes.py
// lowers it with and without that pass and runs both; each prints the seconds
// the loop took, then the sum of element 0 of every result (0 + 1 + ... +
// N-1: the two versions must print the same sum).
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @N@ : index
  %zero = arith.constant 0 : i64
  %a = memref.alloc() : memref<256xf32>
  %t0 = call @rtclock() : () -> f64
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %i64 = arith.index_cast %i : index to i64
    %value = arith.sitofp %i64 : i64 to f32
    memref.store %value, %a[%c0] : memref<256xf32>
    %s = executor.open("@ADDRESS@") : !executor.session
    executor.send_binary %s("@KERNELS@") : !executor.session
    %r = executor.launch %s("echo_1k", "@KERNELS@")(%a) : !executor.session, (memref<256xf32>) -> memref<256xf32>
    %echoed = memref.load %r[%c0] : memref<256xf32>
    memref.dealloc %r : memref<256xf32>
    executor.close %s : !executor.session
    %echoed_i64 = arith.fptosi %echoed : f32 to i64
    %next = arith.addi %acc, %echoed_i64 : i64
    scf.yield %next : i64
  }
  %t1 = call @rtclock() : () -> f64
  %elapsed = arith.subf %t1, %t0 : f64
  call @printF64(%elapsed) : (f64) -> ()
  call @printNewline() : () -> ()
  call @printI64(%sum) : (i64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %a : memref<256xf32>
  return
}
