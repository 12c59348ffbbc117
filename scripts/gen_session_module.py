#!/usr/bin/env python3
"""Writes a host module of about N ops for timing executor-verify-sessions and
executor-optimize against upstream passes on the same module: functions of
about 100 ops that open a session, send binaries, launch
synchronously and asynchronously, branch (scf.if), loop (scf.for) and call a
private helper that launches on the session it is passed, then close it.

    scripts/gen_session_module.py 100000 > module.mlir
    target/release/executor-opt module.mlir --executor-verify-sessions --mlir-timing -o /dev/null
    mlir-opt --load-dialect-plugin=target/release/libexecutor_plugin.so module.mlir \\
        --convert-func-to-llvm --mlir-timing -o /dev/null

Prints the exact number of ops (func.func and module included) on stderr.
"""
import sys

# Ops of one host function, counted as written below: its func.func, the
# prologue (3 constants, open, 2 sends), the body repeated LAUNCHES times
# (launch, launch_async, arith.constant, await = 4 ops), the if (scf.if, send,
# yield), the loop (scf.for, launch, yield), the call, close and return.
LAUNCHES = 22
HOST_OPS = 1 + 6 + 4 * LAUNCHES + 3 + 3 + 3
# The helper: func.func, launch, return.
HELPER_OPS = 3


def main() -> None:
    target = int(sys.argv[1])
    out = sys.stdout
    functions = max(1, (target - 1) // (HOST_OPS + HELPER_OPS))
    for index in range(functions):
        out.write(f"func.func private @helper_{index}(%s: !executor.session, %x: memref<?xf32>) {{\n")
        out.write('  executor.launch %s("step", "kernels.o")(%x) : !executor.session, (memref<?xf32>) -> ()\n')
        out.write("  return\n}\n")
        out.write(f"func.func @host_{index}(%x: memref<?xf32>, %c: i1) {{\n")
        out.write("  %c0 = arith.constant 0 : index\n")
        out.write("  %c1 = arith.constant 1 : index\n")
        out.write("  %c4 = arith.constant 4 : index\n")
        out.write(f'  %s = executor.open("127.0.0.1:{9000 + index % 8}") : !executor.session\n')
        out.write('  executor.send_binary %s("kernels.o") : !executor.session\n')
        out.write('  executor.send_binary %s("lib.so") {format = 1 : i32} : !executor.session\n')
        for launch in range(LAUNCHES):
            out.write(f'  %r{launch} = executor.launch %s("scale", "kernels.o")(%x)'
                      " : !executor.session, (memref<?xf32>) -> memref<?xf32>\n")
            out.write(f'  %t{launch} = executor.launch_async %s("_mlir_ciface_warm_up", "kernels.o")'
                      " : !executor.session -> !executor.token\n")
            out.write(f"  %k{launch} = arith.constant {launch} : i32\n")
            out.write(f"  executor.await %t{launch} : !executor.token\n")
        out.write("  scf.if %c {\n")
        out.write('    executor.send_binary %s("extra.o") : !executor.session\n')
        out.write("  }\n")
        out.write("  scf.for %i = %c0 to %c4 step %c1 {\n")
        out.write('    executor.launch %s("step", "kernels.o")(%x) : !executor.session, (memref<?xf32>) -> ()\n')
        out.write("  }\n")
        out.write(f"  func.call @helper_{index}(%s, %x) : (!executor.session, memref<?xf32>) -> ()\n")
        out.write("  executor.close %s : !executor.session\n")
        out.write("  return\n}\n")
    print(1 + functions * (HOST_OPS + HELPER_OPS), file=sys.stderr)


if __name__ == "__main__":
    main()
