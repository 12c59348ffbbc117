#!/usr/bin/env python3
"""Writes a kernel module of N kernels for the send_binary benchmark: kernel i
scales one memref<?xf32> into another by i and adds 1 (a loop with loads,
stores and arithmetic, and its C interface: two functions per kernel), and an
empty kernel `first` that a launch without operands can run.

    bench/gen_kernels.py N > kernels.mlir
"""
import argparse
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", type=int, help="number of kernels in the module")
    args = parser.parse_args()

    out = sys.stdout
    out.write("func.func @first() attributes {llvm.emit_c_interface} {\n  return\n}\n")
    for index in range(args.kernels):
        out.write(
            f"func.func @k{index}(%a: memref<?xf32>, %b: memref<?xf32>) attributes {{llvm.emit_c_interface}} {{\n"
            "  %c0 = arith.constant 0 : index\n"
            "  %c1 = arith.constant 1 : index\n"
            f"  %scale = arith.constant {index}.0 : f32\n"
            "  %one = arith.constant 1.0 : f32\n"
            "  %n = memref.dim %a, %c0 : memref<?xf32>\n"
            "  scf.for %i = %c0 to %n step %c1 {\n"
            "    %x = memref.load %a[%i] : memref<?xf32>\n"
            "    %y = arith.mulf %x, %scale : f32\n"
            "    %z = arith.addf %y, %one : f32\n"
            "    memref.store %z, %b[%i] : memref<?xf32>\n"
            "  }\n"
            "  return\n"
            "}\n"
        )


if __name__ == "__main__":
    main()
