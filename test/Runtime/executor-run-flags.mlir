// executor-run's flags, which follow mlir-runner's (-e, --entry-point-result,
// --shared-libs, -O0..-O3, single-dash spellings included), and its errors.

// RUN: rm -rf %t && split-file %s %t
// RUN: clang -shared -fPIC %t/twice.c -o %t/libtwice.so

// RUN: executor-run %t/entries.mlir | FileCheck %s --check-prefix=VOID
// RUN: executor-run %t/entries.mlir -e answer -entry-point-result=i32 | FileCheck %s --check-prefix=I32
// RUN: executor-run %t/entries.mlir -e big --entry-point-result=i64 -O0 | FileCheck %s --check-prefix=I64
// RUN: executor-run %t/entries.mlir -e half --entry-point-result f32 --O3 | FileCheck %s --check-prefix=F32
// RUN: executor-run - -e twice_21 -entry-point-result=i32 -shared-libs=%t/libtwice.so < %t/shared.mlir \
// RUN:   | FileCheck %s --check-prefix=I32

// VOID: main ran
// I32: 42
// I64: 8589934592
// F32: 1.500000e+00

// RUN: not executor-run %t/entries.mlir -e answer 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: executor-run: @answer has type !llvm.func<i32 ()> once lowered, but --entry-point-result=void runs a function of type !llvm.func<void ()> (no arguments)
// RUN: not executor-run %t/entries.mlir -e nowhere 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: executor-run: the program has no function @nowhere (-e names the entry)
// RUN: not executor-run %t/entries.mlir -shared-libs=%t/nothing.so 2>&1 | FileCheck %s --check-prefix=LIBRARY
// LIBRARY: executor-run: no library {{.*}}/nothing.so
// RUN: not executor-run %t/shared.mlir -e twice_21 -entry-point-result=i32 2>&1 | FileCheck %s --check-prefix=LINK
// LINK: JIT session error: Symbols not found: [ twice ]
// LINK: executor-run: the execution engine cannot link @twice_21 (the JIT's errors above say why)
// RUN: not executor-run %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: executor-run: no file {{.*}}/missing.mlir
// RUN: not executor-run %t/erf.mlir 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: erf.mlir:6:12: error: cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration for dialect for op: math.erf
// COMPILE: erf.mlir:3:3: error: the target module @kernels does not translate to LLVM IR
// COMPILE: executor-run: compiling {{.*}}/erf.mlir failed (the errors above say why)
// With a kernel-lowering that lowers math, the same program runs.
// RUN: executor-run %t/erf.mlir \
// RUN:   --kernel-lowering='builtin.module(convert-math-to-libm,convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | FileCheck %s --check-prefix=ERF
// ERF:      rank = 0 offset = 0 sizes = [] strides = [] data =
// ERF-NEXT: [0.842701]

//--- twice.c
int twice(int x) { return 2 * x; }

//--- entries.mlir
llvm.mlir.global internal constant @ran("main ran\00") {addr_space = 0 : i32}
func.func private @puts(!llvm.ptr) -> i32

func.func @main() {
  %ran = llvm.mlir.addressof @ran : !llvm.ptr
  %0 = call @puts(%ran) : (!llvm.ptr) -> i32
  return
}
func.func @answer() -> i32 {
  %c = arith.constant 42 : i32
  return %c : i32
}
func.func @big() -> i64 {
  %c = arith.constant 8589934592 : i64
  return %c : i64
}
func.func @half() -> f32 {
  %c = arith.constant 1.5 : f32
  return %c : f32
}

//--- shared.mlir
func.func private @twice(i32) -> i32
func.func @twice_21() -> i32 {
  %c = arith.constant 21 : i32
  %r = call @twice(%c) : (i32) -> i32
  return %r : i32
}

//--- erf.mlir
module {
  // The default kernel-lowering has no math lowering.
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k(%a: memref<f32>) {
      %x = memref.load %a[] : memref<f32>
      %y = math.erf %x : f32
      memref.store %y, %a[] : memref<f32>
      return
    }
  }
  func.func private @erf_in_place(memref<f32>) attributes {executor.kernel = @kernels::@k}
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %a = memref.alloc() : memref<f32>
    %one = arith.constant 1.0 : f32
    memref.store %one, %a[] : memref<f32>
    call @erf_in_place(%a) : (memref<f32>) -> ()
    %u = memref.cast %a : memref<f32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %a : memref<f32>
    return
  }
}
