#!/usr/bin/env python3
"""What a pass of the Catalyst plugin costs: the plugin's out-of-process
convert-executor-to-llvm and executor-llvm-lowering-stage inside `catalyst
--tool=opt` against the same passes in executor-opt's own process, by the
wall time MLIR's --mlir-timing reports for them, median of --runs runs, on
examples/host.mlir (bufferized) and on modules of N functions with an open, a
launch and a close each. Also the wall time of an executor-opt process that
only reads and prints a small module: the floor of every out-of-process run.

Run from the repository root after `make catalyst`:
    python3 scripts/catalyst-pass-cost.py [--runs 21]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALYST = os.path.join(ROOT, "target/catalyst/bin/catalyst")
PLUGIN = os.path.join(ROOT, "target/catalyst/build/release/libexecutor_plugin.so")
EXECUTOR_OPT = os.path.join(ROOT, "target/release/executor-opt")
BUFFERIZE = (
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}"
)
TIMING_LINE = re.compile(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*?)\s*$")
NOT_PASSES = {"root", "Parser", "Output", "Rest", "Total"}


def timing(command):
    """The --mlir-timing lines of one run: (seconds, name) in order."""
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    rows = []
    for line in result.stderr.splitlines():
        match = TIMING_LINE.match(line)
        if match:
            rows.append((float(match.group(1)), match.group(2)))
    return rows


def catalyst_pass_time(path, plugin_pass):
    rows = timing(
        [CATALYST, "--tool=opt", f"--load-dialect-plugin={PLUGIN}", f"--load-pass-plugin={PLUGIN}",
         path, f"--pass-pipeline=builtin.module({plugin_pass})", "--mlir-timing"]
    )
    return next(seconds for seconds, name in rows if name == plugin_pass)


def executor_opt_pass_time(path, pipeline):
    """The passes' own time: every row but parsing, printing and analyses."""
    rows = timing(
        [EXECUTOR_OPT, path, f"--pass-pipeline=builtin.module({pipeline})", "--mlir-timing",
         "--mlir-timing-display=list", "-o", os.devnull]
    )
    return sum(seconds for seconds, name in rows if name not in NOT_PASSES and not name.startswith("(A)"))


def process_time(command):
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True)
    return time.perf_counter() - start


def median_ms(measure, runs):
    return statistics.median(measure() for _ in range(runs)) * 1e3


def synthetic(functions):
    body = []
    for index in range(functions):
        body.append(
            f"""func.func @f{index}(%x: memref<4xf32>) -> memref<4xf32> {{
  %s = executor.open("local") : !executor.session
  %r = executor.launch %s("k", "k.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  executor.close %s : !executor.session
  return %r : memref<4xf32>
}}
"""
        )
    return "".join(body)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    for path in (CATALYST, PLUGIN, EXECUTOR_OPT):
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run `make catalyst` first")

    with tempfile.TemporaryDirectory() as work:
        inputs = []
        host = os.path.join(work, "host.mlir")
        subprocess.run(
            [EXECUTOR_OPT, os.path.join(ROOT, "examples/host.mlir"), f"--pass-pipeline=builtin.module({BUFFERIZE})",
             "-o", host],
            check=True,
        )
        inputs.append(("examples/host.mlir", host))
        for functions in (1, 100, 1000):
            path = os.path.join(work, f"f{functions}.mlir")
            with open(path, "w") as out:
                out.write(synthetic(functions))
            inputs.append((f"{functions} function(s)", path))

        print(f"Median of {args.runs} runs; machine load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs.\n")
        floor = median_ms(lambda: process_time([EXECUTOR_OPT, inputs[1][1], "-o", os.devnull]), args.runs)
        print(f"executor-opt reading and printing a 1-function module, as a process: {floor:.1f} ms\n")
        print("| input | pass | in catalyst, out of process (ms) | in executor-opt, in process (ms) | difference (ms) |")
        print("|---|---|---:|---:|---:|")
        for label, path in inputs:
            for plugin_pass, pipeline in (
                ("convert-executor-to-llvm", "convert-executor-to-llvm"),
                ("executor-llvm-lowering-stage", "executor-llvm-lowering-stage"),
            ):
                outside = median_ms(lambda: catalyst_pass_time(path, plugin_pass), args.runs)
                inside = median_ms(lambda: executor_opt_pass_time(path, pipeline), args.runs)
                print(f"| {label} | `{plugin_pass}` | {outside:.1f} | {inside:.1f} | {outside - inside:.1f} |")


if __name__ == "__main__":
    main()
