"""The session passes in `make bench`: what executor-verify-sessions and
executor-optimize cost per op against upstream `--convert-func-to-llvm` on the
same module (scripts/gen_session_module.py), how their time grows from one
module size to the next (ten times more ops), and what
executor-optimize{reuse-sessions=true} saves on a host loop that opens, sends,
launches and closes a session against an executor-server in every iteration
(bench/reuse_sessions.mlir). Measuring, summarizing, judging and the report's
section of this part of the run, in one place; run.py calls it."""
import sys
from pathlib import Path

from .common import (
    BIN, EXECUTOR_OPT, HOST_PIPELINE, MLIR_OPT, ROOT, WORK, log, run,
)
from .measure import HOST_LIBRARIES, Server, floats, parse_timing, render, runner_command
from .summary import stats
from .text import fmt, mark, ratio

# The targets (issue 18): per op at most upstream's cost, time growing at most
# 11x for 10x the ops, and the loop at least 10x faster with reuse-sessions.
TARGET_PER_OP = 1.0
TARGET_SCALING = 11.0
TARGET_REUSE_SPEEDUP = 10.0

PLUGIN = BIN / "libexecutor_plugin.so"
# Each pass, as --mlir-timing names it, and the command-line flag that runs it.
PASSES = {
    "verify-sessions": ("VerifySessionsPass", "--executor-verify-sessions"),
    "optimize": ("OptimizeExecutorPass", "--executor-optimize"),
    "upstream": ("ConvertFuncToLLVMPass", "--convert-func-to-llvm"),
}
OPTIMIZED_PIPELINE = "builtin.module(executor-optimize{reuse-sessions=true},executor-llvm-lowering-stage)"


def sizes(config) -> list:
    return [1_000, 10_000] if config.quick else [10_000, 100_000]


def runs(config, size: int) -> int:
    # A pass takes 5-100 ms here: many runs are cheap, and fewer left the
    # medians of one run 30% apart from the next's on an idle machine.
    return 2 if config.quick else {10_000: 25, 100_000: 11}[size]


def loop_iterations(config) -> int:
    return 50 if config.quick else 1_000


def loop_runs(config) -> int:
    return 1 if config.quick else 3


def pass_command(name: str, module: Path) -> list:
    flag = PASSES[name][1]
    if name == "upstream":
        return [MLIR_OPT, f"--load-dialect-plugin={PLUGIN}", module, flag, "--mlir-timing", "-o", "/dev/null"]
    return [EXECUTOR_OPT, module, flag, "--mlir-timing", "-o", "/dev/null"]


def measure_compile(config) -> dict:
    """Per size: the module's op count and each pass's seconds per run (the
    passes run in alternation, so that load on the machine hits them alike)."""
    directory = WORK / "sessions"
    directory.mkdir(parents=True, exist_ok=True)
    measured = {}
    for size in sizes(config):
        module = directory / f"sessions_{size}.mlir"
        generated = run([sys.executable, ROOT / "scripts" / "gen_session_module.py", size])
        module.write_text(generated.stdout)
        ops = int(generated.stderr.strip())
        log(f"session passes, N = {size:,}: {runs(config, size)} runs of each pass, alternating")
        seconds = {name: [] for name in PASSES}
        for _ in range(runs(config, size)):
            for name, (timing_name, _) in PASSES.items():
                timings = parse_timing(run(pass_command(name, module)).stderr)
                if timing_name not in timings:
                    raise SystemExit(f"bench: --mlir-timing printed no {timing_name} for {name} at N = {size:,}")
                seconds[name].append(timings[timing_name])
        measured[size] = {"ops": ops, "seconds": seconds}
    return measured


def measure_reuse(config, kernels: Path) -> dict:
    """The host loop's seconds and printed sum, lowered as written and after
    executor-optimize{reuse-sessions=true}, run in alternation against one
    executor-server."""
    directory = WORK / "sessions"
    directory.mkdir(parents=True, exist_ok=True)
    server = Server("server-sessions")
    try:
        host = render(ROOT / "bench" / "reuse_sessions.mlir",
                      {"ADDRESS": server.address, "KERNELS": kernels, "N": loop_iterations(config)})
        lowered = {}
        for name, pipeline in [("as written", HOST_PIPELINE), ("reuse-sessions", OPTIMIZED_PIPELINE)]:
            path = directory / f"reuse_sessions_{name.replace(' ', '_')}.llvm.mlir"
            path.write_text(run([EXECUTOR_OPT, f"--pass-pipeline={pipeline}"], stdin=host).stdout)
            lowered[name] = path
        log(f"reuse-sessions: {loop_runs(config)} runs of each version of a {loop_iterations(config):,}-iteration "
            "loop, alternating")
        seconds = {name: [] for name in lowered}
        sums = {name: set() for name in lowered}
        for _ in range(loop_runs(config)):
            for name, path in lowered.items():
                printed = floats(run(runner_command(path, HOST_LIBRARIES)).stdout)
                if len(printed) != 2:
                    raise SystemExit(f"bench: reuse_sessions ({name}) printed {printed}, expected two numbers")
                seconds[name].append(printed[0])
                sums[name].add(int(printed[1]))
    finally:
        server.stop()
    return {"iterations": loop_iterations(config), "seconds": seconds,
            "sums": {name: sorted(values) for name, values in sums.items()}}


def measure(config, kernels: Path) -> dict:
    return {"compile": measure_compile(config), "reuse": measure_reuse(config, kernels)}


def summarize(raw: dict) -> dict:
    """Medians per op and their ratios to upstream's, by size in increasing
    order (a list: it reads back the same from results.json), the growth from
    the last size but one to the last, and the loop's speed-up."""
    compiled = []
    for size in sorted(raw["compile"], key=int):
        entry = raw["compile"][size]
        per_op = {name: stats(value / entry["ops"] * 1e9 for value in values)
                  for name, values in entry["seconds"].items()}
        compiled.append({
            "size": int(size),
            "ops": entry["ops"],
            "seconds": {name: stats(values) for name, values in entry["seconds"].items()},
            "per_op_ns": per_op,
            "ratio": {name: per_op[name]["median"] / per_op["upstream"]["median"]
                      for name in ("verify-sessions", "optimize")},
        })
    growth = {}
    if len(compiled) > 1:
        small, large = compiled[-2], compiled[-1]
        growth = {name: large["seconds"][name]["median"] / small["seconds"][name]["median"] for name in PASSES}
    reuse = raw["reuse"]
    seconds = {name: stats(values) for name, values in reuse["seconds"].items()}
    expected_sum = reuse["iterations"] * (reuse["iterations"] - 1) // 2
    return {
        "compile": compiled, "growth": growth,
        "reuse": {
            "iterations": reuse["iterations"], "seconds": seconds,
            "speedup": seconds["as written"]["median"] / seconds["reuse-sessions"]["median"],
            "expected_sum": expected_sum,
            "same_results": all(values == [expected_sum] for values in reuse["sums"].values()),
            "sums": reuse["sums"],
        },
    }


def verdicts(summary: dict) -> dict:
    """The three targets: met (True) or missed (False)."""
    ratios = [value for entry in summary["compile"] for value in entry["ratio"].values()]
    return {
        "sessions_per_op": all(value <= TARGET_PER_OP for value in ratios),
        "sessions_scaling": all(summary["growth"].get(name, 0.0) <= TARGET_SCALING
                                for name in ("verify-sessions", "optimize")),
        "reuse_sessions": summary["reuse"]["same_results"]
        and summary["reuse"]["speedup"] >= TARGET_REUSE_SPEEDUP,
    }


def report_section(summary: dict, judged: dict) -> list:
    """The report's section on the session passes."""
    lines = ["## Session passes", ""]
    lines.append(
        "`executor-verify-sessions` and `executor-optimize` (default rules) on host modules written by "
        "`scripts/gen_session_module.py N`, against upstream `mlir-opt --convert-func-to-llvm` (with the "
        "dialect plugin loaded) on the same module: each pass's own time from `--mlir-timing`, per op, the "
        "three commands in alternation. Targets: per op at most "
        f"{ratio(TARGET_PER_OP)} upstream's ({mark(judged['sessions_per_op'])}), time growing at most "
        f"{ratio(TARGET_SCALING)} for 10x the ops ({mark(judged['sessions_scaling'])}).")
    lines += ["", "| N (ops) | pass | median | per op | per op / upstream's |", "|---|---|---|---|---|"]
    for entry in summary["compile"]:
        for name in PASSES:
            shown = "—" if name == "upstream" else ratio(entry["ratio"][name])
            lines.append(f"| {entry['ops']:,} | {PASSES[name][1]} | {fmt(entry['seconds'][name]['median'] * 1e3)} ms "
                         f"| {fmt(entry['per_op_ns'][name]['median'])} ns | {shown} |")
    if summary["growth"]:
        small, large = summary["compile"][-2]["ops"], summary["compile"][-1]["ops"]
        lines += ["", f"Growth from {small:,} to {large:,} ops (median over median): "
                  + ", ".join(f"{PASSES[name][1]} {ratio(value)}" for name, value in summary["growth"].items())
                  + "."]
    reuse = summary["reuse"]
    lines += [
        "",
        f"`bench/reuse_sessions.mlir`: a loop of {reuse['iterations']:,} iterations, each opening a session to an "
        "executor-server on loopback, sending the kernels' object, launching the stateless `echo_1k` and closing "
        "the session; lowered as written and after `executor-optimize{reuse-sessions=true}` (one session for the "
        "whole loop), the two run in alternation. Target: at least "
        f"{ratio(TARGET_REUSE_SPEEDUP)} faster with the option, with the same results "
        f"({mark(judged['reuse_sessions'])}).",
        "",
        "| version | median | min | max | printed sum |",
        "|---|---|---|---|---|",
    ]
    for name, figure in reuse["seconds"].items():
        lines.append(f"| {name} | {fmt(figure['median'] * 1e3)} ms | {fmt(figure['min'] * 1e3)} ms "
                     f"| {fmt(figure['max'] * 1e3)} ms | {', '.join(str(s) for s in reuse['sums'][name])} |")
    lines += ["", f"Speed-up {ratio(reuse['speedup'])}; both versions "
              + ("print" if reuse["same_results"] else "do **not** all print")
              + f" the expected sum {reuse['expected_sum']:,}.", ""]
    return lines
