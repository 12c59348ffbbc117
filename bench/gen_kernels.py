#!/usr/bin/env python3
"""Writes N kernels for the send_binary benchmark.

By default, a kernel module (MLIR): kernel i scales one memref<?xf32> into
another by i and adds 1 (a loop with loads, stores and arithmetic, and its C
interface: two functions per kernel), and an empty kernel `first` that a
launch without operands can run.

With --c SHAPE, C source of N kernels `k0` ... (named by their C interface,
`_mlir_ciface_kI`, so that a launch without operands runs them), for
`clang -c -ffunction-sections -fdata-sections`. SHAPE `shared`: every kernel
touches statics they all share: a counter, a state object and a constant
pool of doubles (in one `.rodata.cst8`). SHAPE `none`: each kernel its own
static counter, nothing shared.

    bench/gen_kernels.py N > kernels.mlir
    bench/gen_kernels.py --c shared N > kernels.c
"""
import argparse
import sys


def write_mlir(out, count: int) -> None:
    out.write("func.func @first() attributes {llvm.emit_c_interface} {\n  return\n}\n")
    for index in range(count):
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


def write_c(out, count: int, shape: str) -> None:
    if shape == "shared":
        out.write("struct state { long calls; double total; };\n"
                  "static long counter;\n"
                  "static struct state state = {0, 1.0};\n")
        for index in range(count):
            out.write(f"void _mlir_ciface_k{index}(void) {{ counter += {index}; state.calls++; "
                      f"state.total = state.total * {index}.25 + {index}.5; }}\n")
    else:
        for index in range(count):
            out.write(f"static long counter{index};\n"
                      f"void _mlir_ciface_k{index}(void) {{ counter{index} += {index}; }}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", type=int, help="number of kernels")
    parser.add_argument("--c", choices=("shared", "none"), help="C kernels of this shape instead of MLIR")
    args = parser.parse_args()
    if args.c:
        write_c(sys.stdout, args.kernels, args.c)
    else:
        write_mlir(sys.stdout, args.kernels)


if __name__ == "__main__":
    main()
