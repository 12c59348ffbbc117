// The one-file demo, examples/saxpy-dispatch.mlir, as the README runs it: with
// executor-run on the embedded executor, and on an executor-server with its
// target's address changed. It prints what examples/host.mlir prints.

// RUN: executor-run %S/../../examples/saxpy-dispatch.mlir | FileCheck %s
// RUN: %with_server -- sh -c "sed \"/executor.target/s|local|\$EXECUTOR_ADDRESS|\" %S/../../examples/saxpy-dispatch.mlir \
// RUN:   | executor-run -" | FileCheck %s

// CHECK:      Unranked Memref base@ = 0x{{[0-9a-f]+}} rank = 1 offset = 0 sizes = [8] strides = [1] data =
// CHECK-NEXT: [100,  102,  104,  106,  108,  110,  112,  114]
