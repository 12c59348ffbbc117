// REQUIRES: catalyst
// The passes inside Catalyst's CLI. The Catalyst plugin's passes run this
// project's in executor-opt, in a child process (cpp/catalyst/
// OutOfProcessPasses.cpp), found next to the plugin (`make catalyst` links it
// there): what Catalyst prints is what executor-opt prints for the same input
// and pipeline, locations included, and mlir-translate takes it.

// The lowering stage on the example host program, from custom-form executor ops
// to the LLVM dialect, after Catalyst's own one-shot-bufferize.
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %S/../../../examples/host.mlir \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)' > %t.host.catalyst.mlir
// RUN: executor-opt %S/../../../examples/host.mlir \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)' > %t.host.reference.mlir
// (Catalyst's CLI ends its output without the empty line mlir-opt adds.)
// RUN: diff --ignore-blank-lines %t.host.reference.mlir %t.host.catalyst.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.host.catalyst.mlir | FileCheck %s --check-prefix=IR

// Every op and block argument keeps its location. (Catalyst calls its input
// buffer `catalyst_module`, executor-opt reading stdin `<stdin>`.)
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %S/../../../examples/host.mlir \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)' \
// RUN:   --mlir-print-debuginfo | sed -e 's/"catalyst_module"/"<stdin>"/g' > %t.host-locations.catalyst.mlir
// RUN: executor-opt --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)' \
// RUN:   --mlir-print-debuginfo < %S/../../../examples/host.mlir > %t.host-locations.reference.mlir
// RUN: diff --ignore-blank-lines %t.host-locations.reference.mlir %t.host-locations.catalyst.mlir
// RUN: FileCheck %s --check-prefix=LOCATIONS < %t.host-locations.catalyst.mlir

// convert-executor-to-llvm on its own, on the conversion tests' inputs, in
// both entry conventions (the -catalyst-pyface pass is
// convert-executor-to-llvm{entry-convention=catalyst-pyface}).
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %S/../../Conversion/ExecutorToLLVM/launch.mlir \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' > %t.launch.catalyst.mlir
// RUN: executor-opt %S/../../Conversion/ExecutorToLLVM/launch.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' > %t.launch.reference.mlir
// RUN: diff --ignore-blank-lines %t.launch.reference.mlir %t.launch.catalyst.mlir
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %S/../../Conversion/ExecutorToLLVM/ops.mlir \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm)' > %t.ops.catalyst.mlir
// RUN: executor-opt %S/../../Conversion/ExecutorToLLVM/ops.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' > %t.ops.reference.mlir
// RUN: diff --ignore-blank-lines %t.ops.reference.mlir %t.ops.catalyst.mlir
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %S/../../Dialect/catalyst-forms.mlir \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm-catalyst-pyface)' > %t.pyface.catalyst.mlir
// RUN: executor-opt %S/../../Dialect/catalyst-forms.mlir \
// RUN:   --pass-pipeline='builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface})' > %t.pyface.reference.mlir
// RUN: diff --ignore-blank-lines %t.pyface.reference.mlir %t.pyface.catalyst.mlir
// RUN: FileCheck %s --check-prefix=PYFACE < %t.pyface.catalyst.mlir

// The stage's variants: use-generic-functions, and both options at once.
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %S/../../../examples/host.mlir \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage-generic-functions)' > %t.generic.catalyst.mlir
// RUN: executor-opt %S/../../../examples/host.mlir \
// RUN:   --pass-pipeline='builtin.module(executor-llvm-lowering-stage{use-generic-functions=true})' > %t.generic.reference.mlir
// RUN: diff --ignore-blank-lines %t.generic.reference.mlir %t.generic.catalyst.mlir
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.catalyst.mlir
// RUN: %catalyst_opt --load-dialect-plugin=%catalyst_plugin --load-pass-plugin=%catalyst_plugin %S/../../Dialect/catalyst-forms.mlir \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage-catalyst-pyface-generic-functions)' > %t.both.catalyst.mlir
// RUN: executor-opt %S/../../Dialect/catalyst-forms.mlir \
// RUN:   --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage{entry-convention=catalyst-pyface use-generic-functions=true})' > %t.both.reference.mlir
// RUN: diff --ignore-blank-lines %t.both.reference.mlir %t.both.catalyst.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.both.catalyst.mlir > /dev/null

// IR: define void @main()
// IR:   call i64 @__catalyst__executor__open(
// IR:   call void @__executor__launch_at_site(ptr @__executor_site_saxpy,
// IR:   call i64 @__catalyst__executor__close(

// LOCATIONS: llvm.call @__catalyst__executor__open({{.*}}) : (!llvm.ptr) -> i64 loc([[OPEN:#loc[0-9]+]])
// LOCATIONS: [[OPEN]] = loc("<stdin>":9:14)

// PYFACE: llvm.mlir.global internal constant @{{.*}}("_catalyst_pyface_

// GENERIC: llvm.call @_mlir_memref_to_llvm_alloc
