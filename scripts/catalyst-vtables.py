#!/usr/bin/env python3
"""Compares the C++ virtual tables of the `catalyst` binary (LLVM 22.0.0git
8f264586) with those of Debian's libMLIR.so (22.1.8), the evidence behind the
header copies of build_script/catalyst.rs (docs/catalyst.md).

Every `vtable for X` both binaries define is read entry by entry (libMLIR.so's
through its relocations) and each entry named by the function it points to.
Printed: the classes whose tables have different lengths, then, for each
class named with --show, both tables side by side. Entries whose name differs
are not all real differences: identical functions folded into one (the
binary is linked with identical code folding) and functions libMLIR.so does
not export (shown as ?) differ too, which is why lengths are the summary.

Run from the repository root after `make catalyst`:
    python3 scripts/catalyst-vtables.py --show mlir::OpAsmPrinter --show mlir::Dialect
"""

import argparse
import bisect
import os
import re
import struct
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALYST = os.path.join(ROOT, "target/catalyst/bin/catalyst")
LIBMLIR = os.path.join(os.environ.get("EXECUTOR_LLVM_PREFIX", "/usr/lib/llvm-22"), "lib/libMLIR.so")


def run(*command):
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def vtables(binary, dynamic):
    """{class: [entry names]} for every vtable `binary` defines."""
    symbols = []
    for line in run("nm", "-C", "-S", *(["-D"] if dynamic else []), binary).splitlines():
        match = re.match(r"([0-9a-f]+) ([0-9a-f]+ )?(\w) (.*)", line)
        if match:
            size = int(match.group(2), 16) if match.group(2) else 0
            symbols.append((int(match.group(1), 16), size, match.group(3), match.group(4)))
    functions = sorted((address, name) for address, _, kind, name in symbols if kind in "tTWwi")
    addresses = [address for address, _ in functions]

    def name_at(address):
        index = bisect.bisect_right(addresses, address) - 1
        if index >= 0 and addresses[index] == address:
            return functions[index][1].replace(" [clone .localalias]", "")
        return "?"

    sections = []
    for line in run("readelf", "-SW", binary).splitlines():
        fields = line.strip().split("]", 1)[-1].split()
        if line.strip().startswith("[") and len(fields) >= 5:
            try:
                sections.append((int(fields[2], 16), int(fields[3], 16), int(fields[4], 16), fields[1]))
            except ValueError:
                pass
    relocations = {}
    mangled = []
    for line in run("readelf", "-rW", binary).splitlines():
        fields = line.split()
        if len(fields) >= 4 and re.fullmatch(r"[0-9a-f]{8,}", fields[0]):
            if fields[2] == "R_X86_64_RELATIVE":
                relocations[int(fields[0], 16)] = ("address", int(fields[3], 16))
            elif fields[2] == "R_X86_64_64" and len(fields) >= 5:
                symbol = fields[4].split("@")[0]
                relocations[int(fields[0], 16)] = ("symbol", symbol)
                mangled.append(symbol)
    names = sorted(set(mangled))
    filtered = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    demangled = dict(zip(names, filtered.stdout.splitlines()))

    with open(binary, "rb") as image:

        def word(address):
            for start, offset, size, kind in sections:
                if start and start <= address < start + size:
                    if kind == "NOBITS":
                        return 0
                    image.seek(offset + address - start)
                    return struct.unpack("<Q", image.read(8))[0]
            return 0

        tables = {}
        for address, size, _, name in symbols:
            if not name.startswith("vtable for ") or size == 0:
                continue
            entries = []
            for slot in range(address, address + size, 8):
                if slot in relocations:
                    kind, value = relocations[slot]
                    entries.append(name_at(value) if kind == "address" else demangled.get(value, value))
                else:
                    value = word(slot)
                    entries.append(name_at(value) if value else "0")
            tables[name[len("vtable for "):]] = entries
    return tables


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", action="append", default=[], help="a class whose two tables to print")
    args = parser.parse_args()
    catalyst = vtables(CATALYST, dynamic=False)
    debian = vtables(LIBMLIR, dynamic=True)
    common = sorted(set(catalyst) & set(debian))
    print(f"{len(common)} classes have a virtual table in both; of different length (22.1.8, catalyst):")
    for name in common:
        if len(catalyst[name]) != len(debian[name]):
            print(f"  {len(debian[name]):3} {len(catalyst[name]):3}  {name}")
    for name in args.show:
        ours, theirs = debian.get(name, []), catalyst.get(name, [])
        print(f"\n{name} (entry: 22.1.8 | catalyst; the first two are the offset and the typeinfo)")
        for index in range(max(len(ours), len(theirs))):
            left = ours[index] if index < len(ours) else ""
            right = theirs[index] if index < len(theirs) else ""
            print(f"{'*' if left != right else ' '}{index:3}  {left[:70]:70} | {right[:70]}")


if __name__ == "__main__":
    main()
