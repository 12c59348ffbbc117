// REQUIRES: catalyst
// Ops, types and properties of Catalyst's own dialects, which executor-opt does
// not know, come back from the child as Catalyst's ops: executor-opt reads
// and prints them as unregistered ops, and Catalyst parses them again. Here
// quantum ops share a function with an executor op, whose session argument
// becomes an i64.

// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %s \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' | FileCheck %s

// CHECK-LABEL: func.func @prepare(%{{.*}}: i64) -> !quantum.reg
// CHECK:         %[[R:.*]] = quantum.alloc( 2) : !quantum.reg
// CHECK:         %[[Q:.*]] = quantum.extract %[[R]][ 0] : !quantum.reg -> !quantum.bit
// CHECK:         %[[H:.*]] = quantum.custom "Hadamard"() %[[Q]] : !quantum.bit
// CHECK:         %[[R2:.*]] = quantum.insert %[[R]][ 0], %[[H]] : !quantum.reg, !quantum.bit
// CHECK:         llvm.call @__catalyst__executor__close
// CHECK:         return %[[R2]] : !quantum.reg
func.func @prepare(%s: !executor.session) -> !quantum.reg {
  %r = quantum.alloc(2) : !quantum.reg
  %q = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %h = quantum.custom "Hadamard"() %q : !quantum.bit
  %r2 = quantum.insert %r[0], %h : !quantum.reg, !quantum.bit
  executor.close %s : !executor.session
  return %r2 : !quantum.reg
}
