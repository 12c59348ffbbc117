// The host program of test/Deploy/slurm-*.test: kernels on the three
// executors of a Slurm step, slurm:0 to slurm:2. @main starts one on each
// without waiting (warm_up), then runs one on each for its result:
// [0, 1, 2, 3] * a, with a = 1, 2, 3 on slurm:0, 1, 2. @main_then_hang then
// runs a kernel on slurm:1 that never returns.
module {
  module @node0 attributes {executor.target = {address = "slurm:0"}} {
    func.func @scale(%a: memref<f32>, %x: memref<4xf32>) -> memref<4xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %s = memref.load %a[] : memref<f32>
      %y = memref.alloc() : memref<4xf32>
      scf.for %i = %c0 to %c4 step %c1 {
        %xi = memref.load %x[%i] : memref<4xf32>
        %yi = arith.mulf %s, %xi : f32
        memref.store %yi, %y[%i] : memref<4xf32>
      }
      return %y : memref<4xf32>
    }
    func.func @warm_up() {
      return
    }
  }
  func.func private @scale0(memref<f32>, memref<4xf32>) -> memref<4xf32> attributes {executor.kernel = @node0::@scale}
  func.func private @warm_up0() attributes {executor.kernel = @node0::@warm_up}
  module @node1 attributes {executor.target = {address = "slurm:1"}} {
    func.func @scale(%a: memref<f32>, %x: memref<4xf32>) -> memref<4xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %s = memref.load %a[] : memref<f32>
      %y = memref.alloc() : memref<4xf32>
      scf.for %i = %c0 to %c4 step %c1 {
        %xi = memref.load %x[%i] : memref<4xf32>
        %yi = arith.mulf %s, %xi : f32
        memref.store %yi, %y[%i] : memref<4xf32>
      }
      return %y : memref<4xf32>
    }
    func.func @warm_up() {
      return
    }
    // Never returns.
    func.func private @pause() -> i32
    func.func @hang() {
      %r = func.call @pause() : () -> i32
      return
    }
  }
  func.func private @scale1(memref<f32>, memref<4xf32>) -> memref<4xf32> attributes {executor.kernel = @node1::@scale}
  func.func private @warm_up1() attributes {executor.kernel = @node1::@warm_up}
  module @node2 attributes {executor.target = {address = "slurm:2"}} {
    func.func @scale(%a: memref<f32>, %x: memref<4xf32>) -> memref<4xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %s = memref.load %a[] : memref<f32>
      %y = memref.alloc() : memref<4xf32>
      scf.for %i = %c0 to %c4 step %c1 {
        %xi = memref.load %x[%i] : memref<4xf32>
        %yi = arith.mulf %s, %xi : f32
        memref.store %yi, %y[%i] : memref<4xf32>
      }
      return %y : memref<4xf32>
    }
    func.func @warm_up() {
      return
    }
  }
  func.func private @scale2(memref<f32>, memref<4xf32>) -> memref<4xf32> attributes {executor.kernel = @node2::@scale}
  func.func private @warm_up2() attributes {executor.kernel = @node2::@warm_up}
  func.func private @hang1() attributes {executor.kernel = @node1::@hang}
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func private @fflush(!llvm.ptr) -> i32

  func.func @main() {
    call @warm_up0() {executor.async} : () -> ()
    call @warm_up1() {executor.async} : () -> ()
    call @warm_up2() {executor.async} : () -> ()
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = memref.alloc() : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %xi = arith.sitofp %ii : i32 to f32
      memref.store %xi, %x[%i] : memref<4xf32>
    }
    %a = memref.alloc() : memref<f32>
    %one = arith.constant 1.0 : f32
    memref.store %one, %a[] : memref<f32>
    %y0 = call @scale0(%a, %x) : (memref<f32>, memref<4xf32>) -> memref<4xf32>
    %two = arith.constant 2.0 : f32
    memref.store %two, %a[] : memref<f32>
    %y1 = call @scale1(%a, %x) : (memref<f32>, memref<4xf32>) -> memref<4xf32>
    %three = arith.constant 3.0 : f32
    memref.store %three, %a[] : memref<f32>
    %y2 = call @scale2(%a, %x) : (memref<f32>, memref<4xf32>) -> memref<4xf32>
    %p0 = memref.cast %y0 : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%p0) : (memref<*xf32>) -> ()
    %p1 = memref.cast %y1 : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%p1) : (memref<*xf32>) -> ()
    %p2 = memref.cast %y2 : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%p2) : (memref<*xf32>) -> ()
    // What was printed reaches a pipe now, not at exit.
    %all = llvm.mlir.zero : !llvm.ptr
    %flushed = call @fflush(%all) : (!llvm.ptr) -> i32
    return
  }

  func.func @main_then_hang() {
    call @main() : () -> ()
    call @hang1() : () -> ()
    return
  }
}
