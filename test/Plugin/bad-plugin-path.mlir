// A missing plugin or a file that is not one gets mlir-opt's own message and a
// normal failure (`not` fails the test on a crash).

// RUN: not mlir-opt --load-dialect-plugin=%t.does-not-exist.so %s 2>&1 | FileCheck %s --check-prefix=MISSING-DIALECT
// RUN: not mlir-opt --load-pass-plugin=%t.does-not-exist.so %s 2>&1 | FileCheck %s --check-prefix=MISSING-PASS
// RUN: not mlir-opt --load-dialect-plugin=%s %s 2>&1 | FileCheck %s --check-prefix=NOT-A-LIBRARY

// MISSING-DIALECT: Failed to load dialect plugin from '{{.*}}does-not-exist.so'
// MISSING-PASS: Failed to load passes from '{{.*}}does-not-exist.so'
// NOT-A-LIBRARY: Failed to load dialect plugin from '{{.*}}bad-plugin-path.mlir'
func.func @uses_the_dialect(%s: !executor.session) {
  executor.close %s : !executor.session
  return
}
