// EXECUTOR_LOG=debug logs every runtime call with its address, symbol or path,
// and time (in microseconds, to one decimal): every launch of a launch site,
// not only the first, also when the filter names the target the lines are
// logged under (executor_runtime::calls) rather than a level alone.

// RUN: mlir-opt %S/Inputs/kernels.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
// RUN: sed -e 's|@KERNELS@|%t.kernels.o|' %s | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' > %t.ll.mlir
// RUN: env EXECUTOR_LOG=debug %run_host %t.ll.mlir 2>&1 | FileCheck %s
// RUN: env EXECUTOR_LOG=executor_runtime::calls=debug %run_host %t.ll.mlir 2>&1 | FileCheck %s
// RUN: %run_host %t.ll.mlir 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// CHECK: DEBUG {{.*}}executor call function="__catalyst__executor__open" address="local" symbol="" path="" elapsed_us={{[0-9]+\.[0-9]}}{{$}}
// CHECK: DEBUG {{.*}}executor call function="__catalyst__executor__send_binary" address="local" symbol="" path="{{.*}}kernels.o" elapsed_us={{[0-9]+\.[0-9]}}{{$}}
// CHECK-COUNT-2: DEBUG {{.*}}executor call function="__catalyst__executor__launch" address="local" symbol="_mlir_ciface_nothing" path="" elapsed_us={{[0-9]+\.[0-9]}}{{$}}
// CHECK: DEBUG {{.*}}executor call function="__catalyst__executor__close" address="local" symbol="" path="" elapsed_us={{[0-9]+\.[0-9]}}{{$}}
// QUIET-NOT: executor call

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@KERNELS@") : !executor.session
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    executor.launch %s("nothing", "@KERNELS@")() : !executor.session, () -> ()
  }
  executor.close %s : !executor.session
  return
}
