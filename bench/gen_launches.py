#!/usr/bin/env python3
"""Writes a host module with N executor.launch ops (two memref<?xf32> inputs,
one result each), spread over functions of 100 launches, plus the session and
binary ops around them.

    bench/gen_launches.py N > module.mlir
    bench/gen_launches.py N --baseline > module.mlir   # func.call instead of launch
"""
import argparse
import sys

PER_FUNCTION = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("launches", type=int, help="number of launches in the module")
    parser.add_argument("--baseline", action="store_true",
                        help="call an external function with the same operands instead of launching")
    args = parser.parse_args()

    out = sys.stdout
    if args.baseline:
        out.write("func.func private @kernel(memref<?xf32>, memref<?xf32>) -> memref<?xf32>\n")
    functions = (args.launches + PER_FUNCTION - 1) // PER_FUNCTION
    for index in range(functions):
        count = min(PER_FUNCTION, args.launches - index * PER_FUNCTION)
        out.write(f"func.func @host_{index}(%a: memref<?xf32>, %b: memref<?xf32>) {{\n")
        if not args.baseline:
            out.write('  %s = executor.open("127.0.0.1:9000") : !executor.session\n')
            out.write('  executor.send_binary %s("kernels.o") : !executor.session\n')
        for op in range(count):
            if args.baseline:
                out.write(f"  %r{op} = func.call @kernel(%a, %b) : (memref<?xf32>, memref<?xf32>) -> memref<?xf32>\n")
            else:
                out.write(f'  %r{op} = executor.launch %s("kernel", "kernels.o")(%a, %b)'
                          " : !executor.session, (memref<?xf32>, memref<?xf32>) -> memref<?xf32>\n")
        if not args.baseline:
            out.write("  executor.close %s : !executor.session\n")
        out.write("  return\n}\n")


if __name__ == "__main__":
    main()
