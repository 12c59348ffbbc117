// executor.call on tensors (the op reference's form) calls functions of a
// shared library loaded on the executor, through one-shot-bufferize, the
// lowering and call_wrapper's packed buffers, with a dynamic-shape input.

// RUN: mlir-opt %S/Inputs/library.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.library.o
// RUN: clang -shared %t.library.o -o %t.library.so
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@LIBRARY@|%t.library.so|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)' \
// RUN:   | %run_host | FileCheck %s
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@LIBRARY@|%t.library.so|' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)' \
// RUN:   | %run_host" | FileCheck %s

// A server started with --preload serves the library without send_binary.
// RUN: %with_server --preload %t.library.so -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e '/send_binary/d' %s \
// RUN:   | executor-opt --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)' \
// RUN:   | %run_host" | FileCheck %s

// in = [1, 2, 3, 4, 10] (dynamic size 5): normalized by its sum 20.
// CHECK:      rank = 1 offset = 0 sizes = [5] strides = [1] data =
// CHECK-NEXT: [0.05,  0.1,  0.15,  0.2,  0.5]
// A call without output operands: its static result comes back.
// CHECK:      rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [1,  10]

func.func private @printMemrefF64(tensor<*xf64>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(tensor<*xi32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@LIBRARY@") {format = 2 : i32} : !executor.session
  %values = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 10.0]> : tensor<5xf64>
  %in = tensor.cast %values : tensor<5xf64> to tensor<?xf64>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %in, %c0 : tensor<?xf64>
  %empty = tensor.empty(%n) : tensor<?xf64>
  %normalized = executor.call %s("_mlir_ciface_normalize")(%in, %empty) {num_input_args = 1 : i32}
      : !executor.session, (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %u = tensor.cast %normalized : tensor<?xf64> to tensor<*xf64>
  call @printMemrefF64(%u) : (tensor<*xf64>) -> ()
  %bounds = executor.call %s("_mlir_ciface_min_max")(%in) : !executor.session, (tensor<?xf64>) -> tensor<2xi32>
  %v = tensor.cast %bounds : tensor<2xi32> to tensor<*xi32>
  call @printMemrefI32(%v) : (tensor<*xi32>) -> ()
  executor.close %s : !executor.session
  return
}
