# REQUIRES: catalyst, catalyst-python
# The Python route end to end: a qml.qjit function whose module holds executor
# ops is compiled by Catalyst with the plugin as dialect and pass plugin and
# with convert-executor-to-llvm in Catalyst's LLVM-dialect stage (after
# convert-index-to-llvm, where Catalyst runs its own executor lowering); the
# plugin's pass runs this project's in executor-opt, in a child process. The
# compiled function opens a session on the executor embedded in the process
# (`local`), ships a kernel object, launches the kernel on the function's
# argument and returns its result to Python. The runtime comes from
# libexecutor_runtime.so, loaded with global symbols before the call, so the
# library Catalyst compiles finds it.

# RUN: mlir-opt %S/Inputs/scale-kernel.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
# RUN:   | llc -filetype=obj -relocation-model=pic -o %t.kernels.o
# RUN: %catalyst_python %s %catalyst_plugin %runtime_lib %t.kernels.o 2>&1 | FileCheck %s

# Without the plugin (and Catalyst's own pipeline) the module does not parse;
# without the runtime the library Catalyst compiled does not load.
# RUN: not %catalyst_python %s none %runtime_lib %t.kernels.o 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN
# RUN: not %catalyst_python %s %catalyst_plugin none %t.kernels.o 2>&1 | FileCheck %s --check-prefix=NO-RUNTIME

# CHECK: lowered: convert-executor-to-llvm in MLIRToLLVMDialectConversion
# CHECK-NEXT: traced: [0. 2. 4. 6.]
# CHECK-NEXT: launched: [ 1.  4.  7. 10.]
# CHECK-NEXT: launched: [ 4.  7. 10. 13.]
# NO-PLUGIN: error: Dialect `executor' not found for custom op 'executor.open'
# NO-RUNTIME: undefined symbol: __{{(catalyst__)?}}executor__

import ctypes
import sys

import jax
import jax.numpy as jnp
from catalyst import qjit
from catalyst.debug import replace_ir
from catalyst.pipelines import default_pipeline, insert_pass_after

plugin, runtime, kernels = sys.argv[1:4]
plugins = [] if plugin == "none" else [plugin]
if runtime != "none":
    ctypes.CDLL(runtime, mode=ctypes.RTLD_GLOBAL)

pipeline = default_pipeline()
if plugins:
    for stage, passes in pipeline:
        if stage == "MLIRToLLVMDialectConversion":
            insert_pass_after(passes, "convert-executor-to-llvm", "convert-index-to-llvm")
            print("lowered: convert-executor-to-llvm in", stage)


@qjit(pipelines=pipeline, pass_plugins=plugins, dialect_plugins=plugins)
def scale(x: jax.ShapeDtypeStruct((4,), jnp.float64)):
    return x * 2.0


print("traced:", scale(jnp.arange(4.0)))

# The traced function's body becomes a launch of the kernel on its argument.
# Catalyst hands to Python only buffers its runtime allocated (others are a
# KeyError in its result wrapper), so the result is copied into one
# (memref.alloc, lowered to Catalyst's _mlir_memref_to_llvm_alloc) and the
# executor's own buffer is freed.
body = """    %x = bufferization.to_buffer %arg0 : tensor<4xf64> to memref<4xf64>
    %s = executor.open("local") : !executor.session
    executor.send_binary %s("@KERNELS@") : !executor.session
    %y = executor.launch %s("scale", "@KERNELS@")(%x) : !executor.session, (memref<4xf64>) -> memref<4xf64>
    executor.close %s : !executor.session
    %out = memref.alloc() : memref<4xf64>
    memref.copy %y, %out : memref<4xf64> to memref<4xf64>
    memref.dealloc %y : memref<4xf64>
    %t = bufferization.to_tensor %out restrict : memref<4xf64> to tensor<4xf64>
    return %t : tensor<4xf64>
""".replace("@KERNELS@", kernels)
lines = scale.mlir.splitlines(keepends=True)
start = next(i for i, line in enumerate(lines) if "func.func public @jit_scale(" in line)
end = next(i for i in range(start, len(lines)) if lines[i] == "  }\n")
replace_ir(scale, "mlir", "".join(lines[: start + 1]) + body + "".join(lines[end:]))
print("launched:", scale(jnp.arange(4.0)))
print("launched:", scale(jnp.arange(4.0) + 1.0))
