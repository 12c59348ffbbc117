// The bufferization model of executor.call comes with the dialect plugin, so
// upstream one-shot-bufferize handles tensor calls as in executor-opt.

// RUN: mlir-opt --load-dialect-plugin=%executor_plugin %S/../Dialect/bufferize.mlir -split-input-file \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   | FileCheck %S/../Dialect/bufferize.mlir
