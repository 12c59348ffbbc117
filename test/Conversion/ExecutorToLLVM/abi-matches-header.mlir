// The lowering declares every runtime function with exactly the LLVM signature
// clang gives its C declaration in include/executor_runtime.h.

// RUN: clang -S -emit-llvm -o - -I %project_include %S/Inputs/use-runtime-abi.c \
// RUN:   | grep '^declare' | sed -E 's/ (noundef|zeroext|signext)//g; s/ #[0-9]+$//' \
// RUN:   | sort > %t.header
// Between them the two entry conventions call every function: executor.launch
// calls __executor__launch_at_site under the default one and
// __catalyst__executor__launch under Catalyst's.
// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-executor-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-translate --mlir-to-llvmir | grep '^declare.*__executor__' > %t.default
// RUN: executor-opt %s --pass-pipeline='builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface},finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-translate --mlir-to-llvmir | grep '^declare.*__executor__' > %t.pyface
// RUN: sort -u %t.default %t.pyface > %t.lowered
// RUN: wc -l < %t.header | FileCheck %s --check-prefix=COUNT
// RUN: diff %t.header %t.lowered
// RUN: grep -c __executor__launch_at_site %t.default | FileCheck %s --check-prefix=ONE
// RUN: not grep __executor__launch_at_site %t.pyface
// ONE: 1

// COUNT: 9

func.func @every_runtime_function(%in: memref<4xf32>, %out: memref<4xf32>) {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("kernels.o") : !executor.session
  %r = executor.launch %s("add", "kernels.o")(%in) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  executor.await %t : !executor.token
  executor.call %s("fill")(%in, %out) {num_input_args = 1 : i32} : !executor.session, (memref<4xf32>, memref<4xf32>) -> ()
  executor.close %s : !executor.session
  return
}
