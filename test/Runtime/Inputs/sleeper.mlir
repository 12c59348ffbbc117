// A `()->()` entry for executor.launch_async: sleeps 200 ms and prints its own
// start and end times (microseconds, CLOCK_MONOTONIC) in one printf call.
llvm.mlir.global internal constant @format("sleeper %ld %ld\0A\00") {addr_space = 0 : i32}
llvm.func @clock_gettime(i32, !llvm.ptr) -> i32
llvm.func @usleep(i32) -> i32
llvm.func @printf(!llvm.ptr, ...) -> i32

llvm.func @now_us() -> i64 {
  %one = llvm.mlir.constant(1 : i64) : i64
  %timespec = llvm.alloca %one x !llvm.struct<(i64, i64)> : (i64) -> !llvm.ptr
  %monotonic = llvm.mlir.constant(1 : i32) : i32
  %0 = llvm.call @clock_gettime(%monotonic, %timespec) : (i32, !llvm.ptr) -> i32
  %value = llvm.load %timespec : !llvm.ptr -> !llvm.struct<(i64, i64)>
  %seconds = llvm.extractvalue %value[0] : !llvm.struct<(i64, i64)>
  %nanoseconds = llvm.extractvalue %value[1] : !llvm.struct<(i64, i64)>
  %million = llvm.mlir.constant(1000000 : i64) : i64
  %thousand = llvm.mlir.constant(1000 : i64) : i64
  %us = llvm.mul %seconds, %million : i64
  %ns_us = llvm.sdiv %nanoseconds, %thousand : i64
  %total = llvm.add %us, %ns_us : i64
  llvm.return %total : i64
}

llvm.func @sleep_200ms() {
  %start = llvm.call @now_us() : () -> i64
  %duration = llvm.mlir.constant(200000 : i32) : i32
  %1 = llvm.call @usleep(%duration) : (i32) -> i32
  %end = llvm.call @now_us() : () -> i64
  %format = llvm.mlir.addressof @format : !llvm.ptr
  %2 = llvm.call @printf(%format, %start, %end) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, i64, i64) -> i32
  llvm.return
}
