// A program in the dispatch form, host and kernels in one file, run with
// executor-run: its @math kernels on the embedded executor and on an
// executor-server (the address substituted), its @jobs kernels on a second
// embedded executor ("local:jobs") in both runs.

// RUN: sed -e 's|@ADDRESS@|local|' %s | executor-run - | FileCheck %s
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" %s | executor-run -" | FileCheck %s

// Objects stay in --object-dir, one per target module.
// RUN: rm -rf %t && sed -e 's|@ADDRESS@|local|' %s | executor-run - --object-dir=%t > /dev/null
// RUN: llvm-nm %t/math.o | FileCheck %s --check-prefix=MATH
// RUN: llvm-nm %t/jobs.o | FileCheck %s --check-prefix=JOBS

// a = [0, 1, 2, 3], b = a * a, added three times in a loop: [0, 6, 18, 36].
// CHECK:      rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [0,  6,  18,  36]

// [[0, 1, 2], [3, 4, 5]] scaled by 10, and its row sums.
// CHECK:      rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[}}[0,   10,   20],
// CHECK-NEXT:  [30,   40,   50]]
// CHECK:      rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [30,  120]

// @start_job's async kernel was awaited when @start_job returned, and the
// session @main holds at "local:jobs" is still open: the flag it set is read.
// CHECK:      rank = 1 offset = 0 sizes = [1] strides = [1] data =
// CHECK-NEXT: [7]

// MATH-DAG: T _mlir_ciface_add
// MATH-DAG: T _mlir_ciface_scale_and_sum_rows
// JOBS-DAG: T set_flag
// JOBS-DAG: T _mlir_ciface_read_flag

module {
  module @math attributes {executor.target = {address = "@ADDRESS@"}} {
    // r = a + b, elementwise.
    func.func @add(%a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> {
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
    func.func @scale_and_sum_rows(%m: memref<?x?xf32>, %factor: memref<f32>) -> (memref<?x?xf32>, memref<?xf32>) {
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
  }

  module @jobs attributes {executor.target = {address = "local:jobs"}} {
    memref.global "private" @flag : memref<1xf32> = dense<0.0>

    // A background job: sets the flag.
    func.func @set_flag() {
      %flag = memref.get_global @flag : memref<1xf32>
      %c0 = arith.constant 0 : index
      %seven = arith.constant 7.0 : f32
      memref.store %seven, %flag[%c0] : memref<1xf32>
      return
    }

    // A copy of the flag.
    func.func @read_flag() -> memref<1xf32> {
      %flag = memref.get_global @flag : memref<1xf32>
      %copy = memref.alloc() : memref<1xf32>
      memref.copy %flag, %copy : memref<1xf32> to memref<1xf32>
      return %copy : memref<1xf32>
    }
  }

  func.func private @add(memref<4xf32>, memref<4xf32>) -> memref<4xf32>
      attributes {executor.kernel = @math::@add}
  func.func private @scale_and_sum_rows(memref<?x?xf32>, memref<f32>) -> (memref<?x?xf32>, memref<?xf32>)
      attributes {executor.kernel = @math::@scale_and_sum_rows}
  func.func private @set_flag() attributes {executor.kernel = @jobs::@set_flag}
  func.func private @read_flag() -> memref<1xf32> attributes {executor.kernel = @jobs::@read_flag}
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

  func.func @print(%m: memref<?xf32>) {
    %u = memref.cast %m : memref<?xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  // Holds "local:jobs" like @main, so it leaves the session open for it.
  func.func @start_job() {
    call @set_flag() {executor.async} : () -> ()
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    %sum = memref.alloc() : memref<4xf32>
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %x = arith.sitofp %ii : i32 to f32
      %xx = arith.mulf %x, %x : f32
      memref.store %x, %a[%i] : memref<4xf32>
      memref.store %xx, %b[%i] : memref<4xf32>
      memref.store %zero, %sum[%i] : memref<4xf32>
    }
    scf.for %round = %c0 to %c3 step %c1 {
      %r = func.call @add(%a, %b) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
      %next = func.call @add(%sum, %r) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
      memref.copy %next, %sum : memref<4xf32> to memref<4xf32>
      memref.dealloc %r : memref<4xf32>
      memref.dealloc %next : memref<4xf32>
    }
    %sum_dynamic = memref.cast %sum : memref<4xf32> to memref<?xf32>
    call @print(%sum_dynamic) : (memref<?xf32>) -> ()

    %m = memref.alloc(%c2, %c3) : memref<?x?xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        %row = arith.muli %i, %c3 : index
        %k = arith.addi %row, %j : index
        %ki = arith.index_cast %k : index to i32
        %x = arith.sitofp %ki : i32 to f32
        memref.store %x, %m[%i, %j] : memref<?x?xf32>
      }
    }
    %factor = memref.alloc() : memref<f32>
    %ten = arith.constant 10.0 : f32
    memref.store %ten, %factor[] : memref<f32>
    %scaled, %sums = call @scale_and_sum_rows(%m, %factor)
        : (memref<?x?xf32>, memref<f32>) -> (memref<?x?xf32>, memref<?xf32>)
    %u = memref.cast %scaled : memref<?x?xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    call @print(%sums) : (memref<?xf32>) -> ()

    call @start_job() : () -> ()
    %flag = call @read_flag() : () -> memref<1xf32>
    %flag_dynamic = memref.cast %flag : memref<1xf32> to memref<?xf32>
    call @print(%flag_dynamic) : (memref<?xf32>) -> ()

    memref.dealloc %flag : memref<1xf32>
    memref.dealloc %scaled : memref<?x?xf32>
    memref.dealloc %sums : memref<?xf32>
    memref.dealloc %m : memref<?x?xf32>
    memref.dealloc %factor : memref<f32>
    memref.dealloc %a : memref<4xf32>
    memref.dealloc %b : memref<4xf32>
    memref.dealloc %sum : memref<4xf32>
    return
  }
}
