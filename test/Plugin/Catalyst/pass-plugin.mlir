// REQUIRES: catalyst
// The Catalyst plugin as a pass plugin: six option-free passes, one per option
// value of this project's two (docs/catalyst.md), and dispatch-executor-targets,
// listed by --help, loadable twice, and printed back in a pipeline.

// RUN: %catalyst_opt --load-pass-plugin=%catalyst_plugin --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: --convert-executor-to-llvm {{ *}}- Lower executor ops to LLVM-dialect calls into the executor runtime ABI, by executor-opt in a child process (entry-convention=mlir-ciface:
// HELP-DAG: --convert-executor-to-llvm-catalyst-pyface {{ *}}- {{.*}}(entry-convention=catalyst-pyface:
// HELP-DAG: --executor-llvm-lowering-stage {{ *}}- {{.*}}by executor-opt in a child process (entry-convention=mlir-ciface:
// HELP-DAG: --executor-llvm-lowering-stage-catalyst-pyface {{ *}}- {{.*}}(entry-convention=catalyst-pyface:
// HELP-DAG: --executor-llvm-lowering-stage-generic-functions {{ *}}- {{.*}}(entry-convention=mlir-ciface: {{.*}} (use-generic-functions=true)
// HELP-DAG: --executor-llvm-lowering-stage-catalyst-pyface-generic-functions{{ *}}- {{.*}}(entry-convention=catalyst-pyface: {{.*}} (use-generic-functions=true)
// HELP-DAG: --dispatch-executor-targets {{ *}}- Turn Catalyst's dispatch form {{.*}} into executor ops, by executor-opt in a child process

// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %s \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm-catalyst-pyface,executor-llvm-lowering-stage-generic-functions)' \
// RUN:   --dump-pass-pipeline 2>&1 | FileCheck %s
// CHECK:      builtin.module(
// CHECK-NEXT:   convert-executor-to-llvm-catalyst-pyface,
// CHECK-NEXT:   executor-llvm-lowering-stage-generic-functions
// CHECK-NEXT: )
// CHECK:      llvm.func @close_session(%{{.*}}: i64)
// CHECK-NEXT:   llvm.call @__catalyst__executor__close
func.func @close_session(%s: !executor.session) {
  executor.close %s : !executor.session
  return
}
