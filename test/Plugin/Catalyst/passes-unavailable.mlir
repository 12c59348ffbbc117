// REQUIRES: catalyst
// Known not to work (docs/catalyst.md): the executor passes inside Catalyst
// 0.15.0. The Catalyst build of the plugin says so when loaded as a pass
// plugin and registers none, so a pipeline naming one fails cleanly instead
// of crashing.

// RUN: not %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %s \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' 2>&1 | FileCheck %s

// CHECK: executor_plugin: this build is for Catalyst, where the executor passes cannot run; it provides the dialect only (see docs/catalyst.md)
// CHECK: 'convert-executor-to-llvm' does not refer to a registered pass or pass pipeline
func.func @open_close() {
  %s = executor.open("127.0.0.1:9000") : !executor.session
  executor.close %s : !executor.session
  return
}
