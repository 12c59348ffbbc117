// RUN: rm -rf %t && split-file %s %t
// RUN: executor-opt %t/lowering.mlir -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects kernel-lowering=builtin.module(one-shot-bufferize,convert-func-to-llvm)})'
// RUN: executor-opt %t/translation.mlir -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects})'
// RUN: touch %t/a-file
// RUN: executor-opt %t/directory.mlir -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/a-file})'

// A target module that does not compile is an error at the module, after
// the diagnostics of the step that failed (kernel-lowering's passes, or the
// translation to LLVM IR); every module is compiled, so each failure shows.

//--- lowering.mlir
module {
  // expected-error @+1 {{cannot lower the target module @loop with kernel-lowering='builtin.module(one-shot-bufferize,convert-func-to-llvm)' (the errors above say why)}}
  module @loop attributes {executor.target = {address = "local"}} {
    func.func @k(%a: memref<4xf32>, %n: index) {
      %t = tensor.empty() : tensor<4xf32>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %t) -> tensor<4xf32> {
        %new = tensor.empty() : tensor<4xf32>
        // expected-error @+1 {{Yield operand #0 is not equivalent to the corresponding iter bbArg}}
        scf.yield %new : tensor<4xf32>
      }
      bufferization.materialize_in_destination %r in writable %a : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
  }
  // The next module is compiled too.
  // expected-error @+1 {{cannot lower the target module @again with kernel-lowering}}
  module @again attributes {executor.target = {address = "local"}} {
    func.func @k(%a: memref<4xf32>, %n: index) {
      %t = tensor.empty() : tensor<4xf32>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %t) -> tensor<4xf32> {
        %new = tensor.empty() : tensor<4xf32>
        // expected-error @+1 {{Yield operand #0 is not equivalent to the corresponding iter bbArg}}
        scf.yield %new : tensor<4xf32>
      }
      bufferization.materialize_in_destination %r in writable %a : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
  }
}

//--- translation.mlir
module {
  // expected-error @+1 {{the target module @kernels does not translate to LLVM IR after kernel-lowering='convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts' (the errors above say why)}}
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @k(%a: memref<4xf32>) {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<4xf32>
      // The default kernel-lowering has no math lowering.
      // expected-error @+1 {{cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration for dialect for op: math.erf}}
      %y = math.erf %x : f32
      memref.store %y, %a[%c0] : memref<4xf32>
      return
    }
  }
}

//--- directory.mlir
module {
  // expected-error-re @+1 {{cannot create the object directory {{.*}}/a-file: File exists}}
  module @kernels attributes {executor.target = {address = "local"}} {
  }
}
