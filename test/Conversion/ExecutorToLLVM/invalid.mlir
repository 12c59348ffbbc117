// RUN: executor-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(convert-executor-to-llvm)'
// RUN: not executor-opt %s -split-input-file --pass-pipeline='builtin.module(convert-executor-to-llvm{entry-convention=bogus})' 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: not executor-opt %s -split-input-file --pass-pipeline='builtin.module(executor-llvm-lowering-stage{entry-convention=bogus})' 2>&1 | FileCheck %s --check-prefix=BAD-STAGE-OPTION

// An unknown entry-convention is rejected when the pipeline is parsed, before
// any IR is read.
// BAD-OPTION: for the --entry-convention option: Cannot find option named 'bogus'!
// BAD-OPTION: failed to add `convert-executor-to-llvm` with options `entry-convention=bogus`
// BAD-STAGE-OPTION: for the --entry-convention option: Cannot find option named 'bogus'!
// BAD-STAGE-OPTION: failed to add `executor-llvm-lowering-stage` with options `entry-convention=bogus`

// One case per executor op or module that convert-executor-to-llvm rejects.
// The error is reported at the op that cannot be lowered.

//===----------------------------------------------------------------------===//
// executor.call
//===----------------------------------------------------------------------===//

func.func @call_on_tensors_must_be_bufferized(%s: !executor.session, %t: tensor<8xf64>) -> tensor<8xf64> {
  // expected-error @+1 {{executor.call on tensor<8xf64> must be bufferized before convert-executor-to-llvm (one-shot-bufferize)}}
  %y = executor.call %s("normalize")(%t) : !executor.session, (tensor<8xf64>) -> tensor<8xf64>
  return %y : tensor<8xf64>
}

// -----

func.func @call_on_strided_memref(%s: !executor.session, %x: memref<4x4xf32, strided<[8, 1]>>) {
  // expected-error @+1 {{cannot lower value #0 of executor.call: memref<4x4xf32, strided<[8, 1]>> is not densely packed (identity layout); copy it into one first (memref.copy)}}
  executor.call %s("fill")(%x) : !executor.session, (memref<4x4xf32, strided<[8, 1]>>) -> ()
  return
}

// -----

func.func @call_on_memref_in_memory_space_1(%s: !executor.session, %x: memref<4xf32, 1>) {
  // expected-error @+1 {{cannot lower value #0 of executor.call: memref<4xf32, 1> is not in the default memory space}}
  executor.call %s("fill")(%x) : !executor.session, (memref<4xf32, 1>) -> ()
  return
}

// -----

func.func @call_on_memref_of_memref(%s: !executor.session, %x: memref<4xmemref<2xf32>>) {
  // expected-error @+1 {{cannot lower value #0 of executor.call: the element type memref<2xf32> of memref<4xmemref<2xf32>> has no known size in memory}}
  executor.call %s("fill")(%x) : !executor.session, (memref<4xmemref<2xf32>>) -> ()
  return
}

// -----

// expected-error @+1 {{executor.open must be inside a function (func.func, llvm.func, ...), whose entry block holds its stack slots}}
%s = executor.open("localhost") : !executor.session
// expected-error @+1 {{executor.call must be inside a function (func.func, llvm.func, ...), whose entry block holds its stack slots}}
executor.call %s("ping")() : !executor.session, () -> ()

// -----

//===----------------------------------------------------------------------===//
// executor.launch: element types without a size in memory
//===----------------------------------------------------------------------===//

func.func @launch_memref_of_memref_input(%s: !executor.session, %x: memref<4xmemref<2xf32>>) {
  // expected-error @+1 {{cannot lower value #0 of executor.launch: the element type memref<2xf32> of memref<4xmemref<2xf32>> has no known size in memory}}
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4xmemref<2xf32>>) -> ()
  return
}

// -----

func.func @launch_memref_of_ptr_input(%s: !executor.session, %x: memref<4x!ptr.ptr<#ptr.generic_space>>) {
  // expected-error @+1 {{cannot lower value #0 of executor.launch: the element type !ptr.ptr<#ptr.generic_space> of memref<4x!ptr.ptr<#ptr.generic_space>> has no known size in memory}}
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4x!ptr.ptr<#ptr.generic_space>>) -> ()
  return
}

// -----

// Values are numbered inputs first, then results.
func.func @launch_memref_of_memref_result(%s: !executor.session, %x: memref<4xf32>) -> memref<4xmemref<2xf32>> {
  // expected-error @+1 {{cannot lower value #1 of executor.launch: the element type memref<2xf32> of memref<4xmemref<2xf32>> has no known size in memory}}
  %y = executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xmemref<2xf32>>
  return %y : memref<4xmemref<2xf32>>
}

// -----

//===----------------------------------------------------------------------===//
// executor.launch: memory spaces
//===----------------------------------------------------------------------===//

func.func @launch_input_in_memory_space_1(%s: !executor.session, %x: memref<4xf32, 1>) {
  // expected-error @+1 {{cannot lower value #0 of executor.launch: memref<4xf32, 1> is not in the default memory space}}
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4xf32, 1>) -> ()
  return
}

// -----

func.func @launch_result_in_memory_space_3(%s: !executor.session, %x: memref<4xf32>) -> memref<4xf32, 3> {
  // expected-error @+1 {{cannot lower value #1 of executor.launch: memref<4xf32, 3> is not in the default memory space}}
  %y = executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32, 3>
  return %y : memref<4xf32, 3>
}

// -----

func.func @launch_input_in_non_integer_memory_space(%s: !executor.session, %x: memref<4xf32, #gpu.address_space<global>>) {
  // expected-error @+1 {{cannot lower value #0 of executor.launch: memref<4xf32, #gpu.address_space<global>> is not in the default memory space}}
  executor.launch %s("kernel", "kernels.o")(%x) : !executor.session, (memref<4xf32, #gpu.address_space<global>>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// executor.launch: result layouts a dense copy does not satisfy
//===----------------------------------------------------------------------===//

// A result may come back as a dense copy (offset 0, row-major strides); the
// host code would read it with a static offset of 3.
func.func @launch_result_with_static_offset(%s: !executor.session) -> memref<4xf32, strided<[1], offset: 3>> {
  // expected-error @+1 {{cannot lower result #0 of executor.launch: the runtime may return it as a dense copy (offset 0, row-major strides), which the static layout of memref<4xf32, strided<[1], offset: 3>> does not describe}}
  %r = executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> memref<4xf32, strided<[1], offset: 3>>
  return %r : memref<4xf32, strided<[1], offset: 3>>
}

// -----

// Rows 8 elements apart: a dense copy's are 5 apart.
func.func @launch_result_with_padded_rows(%s: !executor.session) -> memref<4x5xf32, strided<[8, 1]>> {
  // expected-error @+1 {{cannot lower result #0 of executor.launch: the runtime may return it as a dense copy (offset 0, row-major strides), which the static layout of memref<4x5xf32, strided<[8, 1]>> does not describe}}
  %r = executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> memref<4x5xf32, strided<[8, 1]>>
  return %r : memref<4x5xf32, strided<[8, 1]>>
}

// -----

// A static row stride over a dynamic row length: a dense copy's depends on it.
func.func @launch_result_with_static_stride_over_dynamic_size(%s: !executor.session) -> memref<4x?xf32, strided<[8, 1]>> {
  // expected-error @+1 {{cannot lower result #0 of executor.launch: the runtime may return it as a dense copy (offset 0, row-major strides), which the static layout of memref<4x?xf32, strided<[8, 1]>> does not describe}}
  %r = executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> memref<4x?xf32, strided<[8, 1]>>
  return %r : memref<4x?xf32, strided<[8, 1]>>
}

// -----

// The second result is the one reported, by its own number.
func.func @launch_second_result_with_static_offset(%s: !executor.session) -> (memref<4xf32>, memref<4xf32, strided<[1], offset: 3>>) {
  // expected-error @+1 {{cannot lower result #1 of executor.launch}}
  %r:2 = executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> (memref<4xf32>, memref<4xf32, strided<[1], offset: 3>>)
  return %r#0, %r#1 : memref<4xf32>, memref<4xf32, strided<[1], offset: 3>>
}

// -----

//===----------------------------------------------------------------------===//
// executor.launch: outside of a function
//===----------------------------------------------------------------------===//

// At module level there is no entry block to hold the stack slots.
// expected-error @+1 {{executor.open must be inside a function (func.func, llvm.func, ...), whose entry block holds its stack slots}}
%s = executor.open("localhost") : !executor.session
// expected-error @+1 {{executor.launch must be inside a function (func.func, llvm.func, ...), whose entry block holds its stack slots}}
executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> ()


// -----

//===----------------------------------------------------------------------===//
// executor.await
//===----------------------------------------------------------------------===//

// Both awaits are reported.
func.func @token_awaited_twice(%s: !executor.session) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  // expected-error @+1 {{this token is awaited more than once; each executor.launch_async is awaited exactly once}}
  executor.await %t : !executor.token
  // expected-error @+1 {{this token is awaited more than once; each executor.launch_async is awaited exactly once}}
  executor.await %t : !executor.token
  return
}

// -----

func.func private @consume_token(!executor.token)

func.func @token_used_after_await(%s: !executor.session) {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  // expected-error @+1 {{the token is used by func.call after this executor.await}}
  executor.await %t : !executor.token
  func.call @consume_token(%t) : (!executor.token) -> ()
  return
}

// -----

func.func @token_returned_after_await(%s: !executor.session) -> !executor.token {
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  // expected-error @+1 {{the token is used by func.return after this executor.await}}
  executor.await %t : !executor.token
  return %t : !executor.token
}

// -----

//===----------------------------------------------------------------------===//
// Symbols of the runtime ABI already defined by the module
//===----------------------------------------------------------------------===//

llvm.func @__catalyst__executor__open(!llvm.ptr) -> i32

func.func @runtime_symbol_with_other_result_type() {
  // expected-error @+1 {{the module already defines the symbol '__catalyst__executor__open' of the executor runtime ABI with another type; expected `llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64`}}
  %s = executor.open("localhost") : !executor.session
  return
}

// -----

llvm.func @__executor__launch_at_site(i64, !llvm.ptr, !llvm.ptr)

func.func @runtime_symbol_with_other_parameters(%s: !executor.session) {
  // expected-error @+1 {{the module already defines the symbol '__executor__launch_at_site' of the executor runtime ABI with another type; expected `llvm.func @__executor__launch_at_site(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr)`}}
  executor.launch %s("kernel", "kernels.o")() : !executor.session, () -> ()
  return
}

// -----

// Same signature, but not an llvm.func.
func.func private @__catalyst__executor__close(i64) -> i64

func.func @runtime_symbol_is_not_llvm_func(%s: !executor.session) {
  // expected-error @+1 {{the module already defines the symbol '__catalyst__executor__close' of the executor runtime ABI with another type; expected `llvm.func @__catalyst__executor__close(i64) -> i64`}}
  executor.close %s : !executor.session
  return
}

// -----

llvm.mlir.global internal constant @__catalyst__executor__await(0 : i64) : i64

func.func @runtime_symbol_is_a_global(%t: !executor.token) {
  // expected-error @+1 {{the module already defines the symbol '__catalyst__executor__await' of the executor runtime ABI with another type; expected `llvm.func @__catalyst__executor__await(i64)`}}
  executor.await %t : !executor.token
  return
}

// -----

func.func private @use(!executor.token)

// The use sits in a successor block of the await's block.
func.func @token_used_in_successor_block_after_await(%s: !executor.session) {
  %t = executor.launch_async %s("k", "k.o") : !executor.session -> !executor.token
  // expected-error @+1 {{the token is used by func.call after this executor.await}}
  executor.await %t : !executor.token
  cf.br ^bb1
^bb1:
  func.call @use(%t) : (!executor.token) -> ()
  return
}

// -----

func.func private @use(!executor.token)

// The await is nested in scf.if; the use follows the scf.if.
func.func @token_used_after_nested_await(%s: !executor.session, %c: i1) {
  %t = executor.launch_async %s("k", "k.o") : !executor.session -> !executor.token
  scf.if %c {
    // expected-error @+1 {{the token is used by func.call after this executor.await}}
    executor.await %t : !executor.token
  }
  func.call @use(%t) : (!executor.token) -> ()
  return
}

// -----

// A scalable vector has no size known at compile time.
func.func @launch_scalable_vector_element(%s: !executor.session, %m: memref<2xvector<[4]xf32>>) {
  // expected-error @+1 {{cannot lower value #0 of executor.launch: the element type vector<[4]xf32> of memref<2xvector<[4]xf32>> has no known size in memory}}
  executor.launch %s("k", "k.o")(%m) : !executor.session, (memref<2xvector<[4]xf32>>) -> ()
  return
}

// -----

// A session inside another type has no lowering; the error is reported once,
// at the op that has the type.
// expected-error @+1 {{cannot lower tuple<!executor.session>: a session or token inside another type has no LLVM lowering; pass each handle as a value of its own}}
func.func @session_in_tuple(%t: tuple<!executor.session>) {
  return
}

// -----

// A call result the lowering allocates must have a size an i64 holds.
func.func @call_result_too_large(%s: !executor.session) -> memref<4294967296x4294967296xi8> {
  // expected-error @+1 {{cannot lower result #0 of executor.call: memref<4294967296x4294967296xi8> takes more than 2^63 - 1 bytes}}
  %r = executor.call %s("big")() : !executor.session, () -> memref<4294967296x4294967296xi8>
  return %r : memref<4294967296x4294967296xi8>
}

// -----

// An element size that does not fit an i64 is an error, not a wrapped size.
func.func @launch_element_too_large(%s: !executor.session, %x: memref<4xvector<2305843009213693952xi64>>) {
  // expected-error @+1 {{cannot lower value #0 of executor.launch: the element type vector<2305843009213693952xi64> of memref<4xvector<2305843009213693952xi64>> takes more than 2^63 - 1 bytes}}
  executor.launch %s("k", "k.o")(%x) : !executor.session, (memref<4xvector<2305843009213693952xi64>>) -> ()
  return
}
