// The local launch of bench/local_launch.mlir as Catalyst's own lowering
// emits it: a call of `__catalyst__executor__launch` (Catalyst's runtime
// ABI, docs/runtime-abi.md), which passes the entry and object by name and
// no launch site, so the runtime finds the entry in this thread's cache of
// the sites it ran. @LAUNCHES@ launches of the empty kernel `nothing` of
// @KERNELS@, timed with the runner utils' rtclock; prints nanoseconds per
// launch. Written in the LLVM dialect, as Catalyst's lowering leaves it;
// bench/run.py substitutes @KERNELS@ and @LAUNCHES@ and runs it with
// mlir-runner.
module {
  llvm.mlir.global internal constant @address("local\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @object("@KERNELS@\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @entry("_mlir_ciface_nothing\00") {addr_space = 0 : i32}
  llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
  llvm.func @__catalyst__executor__send_binary(i64, !llvm.ptr, i32) -> i64
  llvm.func @__catalyst__executor__launch(i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr,
                                          i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
  llvm.func @__catalyst__executor__close(i64) -> i64
  llvm.func @rtclock() -> f64
  llvm.func @printF64(f64)
  llvm.func @printNewline()
  llvm.func @main() {
    %address = llvm.mlir.addressof @address : !llvm.ptr
    %object = llvm.mlir.addressof @object : !llvm.ptr
    %entry = llvm.mlir.addressof @entry : !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %object_file = llvm.mlir.constant(0 : i32) : i32
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %launches = llvm.mlir.constant(@LAUNCHES@ : i64) : i64
    %count = llvm.mlir.constant(@LAUNCHES@.0 : f64) : f64
    %ns = llvm.mlir.constant(1.0e9 : f64) : f64
    %session = llvm.call @__catalyst__executor__open(%address) : (!llvm.ptr) -> i64
    %sent = llvm.call @__catalyst__executor__send_binary(%session, %object, %object_file) : (i64, !llvm.ptr, i32) -> i64
    %start = llvm.call @rtclock() : () -> f64
    llvm.br ^loop(%zero : i64)
  ^loop(%i: i64):
    %more = llvm.icmp "slt" %i, %launches : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    llvm.call @__catalyst__executor__launch(%session, %entry, %object, %zero, %null, %null, %null,
                                            %zero, %null, %null, %null)
      : (i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    %next = llvm.add %i, %one : i64
    llvm.br ^loop(%next : i64)
  ^done:
    %end = llvm.call @rtclock() : () -> f64
    %elapsed = llvm.fsub %end, %start : f64
    %per_launch = llvm.fdiv %elapsed, %count : f64
    %per_launch_ns = llvm.fmul %per_launch, %ns : f64
    llvm.call @printF64(%per_launch_ns) : (f64) -> ()
    llvm.call @printNewline() : () -> ()
    %closed = llvm.call @__catalyst__executor__close(%session) : (i64) -> i64
    llvm.return
  }
}
