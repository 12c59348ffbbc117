// libexecutor_runtime.so is marked NODELETE, so that a host that unloads it at
// exit cannot unmap the code of its threads while they run. mlir-runner does
// unload it (LLVM closes the libraries it opened from its static destructors);
// before the mark, a launch with EXECUTOR_LAUNCH_TIMEOUT_MS set died of SIGSEGV
// at exit in about 1 run in 100, its deadline watchdog caught running.

// RUN: llvm-readelf --dynamic-table %runtime_lib | FileCheck %s
// CHECK: (FLAGS_1) {{.*}}NODELETE
