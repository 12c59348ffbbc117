// Kernels the runtime tests ship to the executor, compiled to a relocatable
// object with upstream tools (see the RUN lines of the tests).

// r = a + b, elementwise.
func.func @add(%a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = memref.load %b[%i] : memref<4xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %r[%i] : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// r[i][j] = m[i][j] * factor, for any shape; also returns the row sums.
func.func @scale_and_sum_rows(%m: memref<?x?xf32>, %factor: memref<f32>) -> (memref<?x?xf32>, memref<?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  %f = memref.load %factor[] : memref<f32>
  %r = memref.alloc(%rows, %cols) : memref<?x?xf32>
  %sums = memref.alloc(%rows) : memref<?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %sum = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %m[%i, %j] : memref<?x?xf32>
      %y = arith.mulf %x, %f : f32
      memref.store %y, %r[%i, %j] : memref<?x?xf32>
      %next = arith.addf %acc, %y : f32
      scf.yield %next : f32
    }
    memref.store %sum, %sums[%i] : memref<?xf32>
  }
  return %r, %sums : memref<?x?xf32>, memref<?xf32>
}

// An empty kernel: what a launch costs by itself.
func.func @nothing() attributes {llvm.emit_c_interface} {
  return
}

// Writes through a null pointer.
func.func @crash() attributes {llvm.emit_c_interface} {
  %null = llvm.mlir.zero : !llvm.ptr
  %c = llvm.mlir.constant(42 : i32) : i32
  llvm.store volatile %c, %null : i32, !llvm.ptr
  return
}

// Writes through a null pointer when its flag is not 0: a kernel that runs
// fine once, then crashes.
func.func @crash_if_set(%flag: memref<i32>) attributes {llvm.emit_c_interface} {
  %set = memref.load %flag[] : memref<i32>
  %zero = arith.constant 0 : i32
  %crash = arith.cmpi ne, %set, %zero : i32
  scf.if %crash {
    %null = llvm.mlir.zero : !llvm.ptr
    %c = llvm.mlir.constant(42 : i32) : i32
    llvm.store volatile %c, %null : i32, !llvm.ptr
  }
  return
}

// Recurses until the stack overflows: every call keeps 1 KiB of its frame live
// across the next, so neither the frame nor the recursion can be optimized away.
func.func @overflow() attributes {llvm.emit_c_interface} {
  %zero = arith.constant 0 : i64
  %0 = func.call @recurse(%zero) : (i64) -> i64
  return
}

// Overflows its stack (as @overflow) when its flag is not 0.
func.func @overflow_if_set(%flag: memref<i32>) attributes {llvm.emit_c_interface} {
  %set = memref.load %flag[] : memref<i32>
  %zero = arith.constant 0 : i32
  %overflow = arith.cmpi ne, %set, %zero : i32
  scf.if %overflow {
    %start = arith.constant 0 : i64
    %0 = func.call @recurse(%start) : (i64) -> i64
  }
  return
}

func.func @recurse(%depth: i64) -> i64 {
  %one = arith.constant 1 : i64
  %frame = llvm.alloca %one x !llvm.array<1024 x i8> : (i64) -> !llvm.ptr
  llvm.store volatile %depth, %frame : i64, !llvm.ptr
  %next = arith.addi %depth, %one : i64
  %deeper = func.call @recurse(%next) : (i64) -> i64
  %kept = llvm.load volatile %frame : !llvm.ptr -> i64
  %sum = arith.addi %deeper, %kept : i64
  return %sum : i64
}

// Writes 512 bytes from the start of a 16-byte buffer on its stack: over its
// return address and its callers' frames, so that it crashes as it returns.
func.func @smash_stack() attributes {llvm.emit_c_interface} {
  %one = llvm.mlir.constant(1 : i64) : i64
  %buffer = llvm.alloca %one x !llvm.array<16 x i8> : (i64) -> !llvm.ptr
  %byte = llvm.mlir.constant(65 : i8) : i8
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  scf.for %i = %c0 to %c512 step %c1 {
    %offset = arith.index_cast %i : index to i64
    %at = llvm.getelementptr %buffer[%offset] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    llvm.store volatile %byte, %at : i8, !llvm.ptr
  }
  return
}

// Calls abort().
llvm.func @abort()
func.func @aborts() attributes {llvm.emit_c_interface} {
  llvm.call @abort() : () -> ()
  return
}

// Never returns: sleeps a millisecond at a time, forever.
llvm.func @usleep(i32) -> i32
func.func @hang() attributes {llvm.emit_c_interface} {
  %microseconds = arith.constant 1000 : i32
  %forever = arith.constant true
  scf.while : () -> () {
    %0 = llvm.call @usleep(%microseconds) : (i32) -> i32
    scf.condition(%forever)
  } do {
    scf.yield
  }
  return
}

// Never returns (as @hang) when its flag is not 0: a kernel that runs fine
// once, then hangs.
func.func @hang_if_set(%flag: memref<i32>) attributes {llvm.emit_c_interface} {
  %set = memref.load %flag[] : memref<i32>
  %zero = arith.constant 0 : i32
  %hang = arith.cmpi ne, %set, %zero : i32
  scf.if %hang {
    func.call @hang() : () -> ()
  }
  return
}
