#!/usr/bin/env python3
"""`make bench`: measures this project's compile-time and run-time cost side by
side with the nearest upstream MLIR machinery, in one run, and writes
docs/performance.md with its tables and the PNG plots under docs/performance/.

Every number in the report is measured by this script in the same run, and
every ratio compares medians measured in that run. Raw data and intermediate
files go to target/bench/ (results.json there holds every sample, and what the
report is written from).

    bench/run.py                # what `make bench` runs (after bench/deps.sh)
    bench/run.py --quick        # fewer and smaller runs, to try the script out
    bench/run.py --report-only  # no measuring: the report, plots (and, after a
                                # full run, the README paragraph) again from
                                # target/bench/results.json

Needs: target/release/{executor-opt,executor-server,libexecutor_runtime.so}
(`make build`), target/release/examples/tcp_echo_rtt (`cargo build --release -p
executor-runtime --example tcp_echo_rtt`), LLVM 22's mlir-opt, mlir-translate,
llc, mlir-runner and runner libraries, hyperfine, GNU time, rustc, matplotlib;
perf and strace for the profiles (skipped, and said so, when they fail).
--report-only needs matplotlib alone.

The work is in bench/harness/ (see its __init__.py): measure and profiles run
things, summary and verdicts are pure functions over what they recorded,
plots, report and readme write the results.
"""
import argparse
import json
import os
import time
from pathlib import Path

from harness import measure, profiles, readme, report, summary, verdicts
from harness.plots import plot
from harness.common import (
    ASYNC_RUNTIME, DOC, EXECUTOR_OPT, EXECUTOR_SERVER, GNU_TIME, MLIR_OPT, MLIR_RUNNER, PLACEMENTS, PLOTS, RESULTS,
    ROOT, RUNTIME_LIB, TCP_ECHO, WORK, Config, log,
)


def write_results(context: dict) -> None:
    """Writes the report (and the README paragraph after a full run) from a
    run's context, after judging it."""
    context.update(verdicts.judge(context["compile"], context["runtime"], context["profiles"],
                                  context["other_load"]))
    report.write_report(context)
    if not context["config"].quick:
        readme.update_readme(context)


def measure_and_report(config: Config) -> None:
    for required in [EXECUTOR_OPT, EXECUTOR_SERVER, RUNTIME_LIB, TCP_ECHO, MLIR_OPT, MLIR_RUNNER, ASYNC_RUNTIME,
                     GNU_TIME]:
        if not Path(required).exists():
            raise SystemExit(f"bench: {required} is missing (make bench builds and installs what it needs)")
    WORK.mkdir(parents=True, exist_ok=True)
    started = time.time()
    busy_start, total_start = measure.cpu_jiffies()
    own_start = measure.own_cpu_seconds()
    busy_at_start = measure.busy_processes()
    machine = measure.machine_info()
    log(f"machine: {machine['cpu']}, {machine['cores']} cores")
    if busy_at_start:
        for entry in busy_at_start:
            log(f"note: another process is busy: pid {entry['pid']} {entry['pcpu']:.0f}% CPU: {entry['command']}")

    compile_raw = measure.bench_compile(config)
    compile_summary = summary.summarize_compile(compile_raw)
    kernels = measure.compile_kernels()
    runtime_raw = {"local": measure.bench_local(config, kernels), "async": {}, "remote": {}}
    for placement in PLACEMENTS:
        runtime_raw["async"][placement] = measure.bench_async(config, kernels, placement)
        runtime_raw["remote"][placement] = measure.bench_remote(config, kernels, placement)
    runtime_summary = summary.summarize_runtime(runtime_raw, config)
    criterion = measure.bench_criterion(config)
    profiled = {"async": profiles.profile_async(config, kernels), "remote": profiles.profile_remote(config, kernels)}
    if verdicts.compile_missed(verdicts.verdicts(compile_summary, runtime_summary)):
        profiled["compile"] = profiles.profile_compile(config, compile_summary)

    hertz = os.sysconf("SC_CLK_TCK")
    busy_end, total_end = measure.cpu_jiffies()
    elapsed = time.time() - started
    own = measure.own_cpu_seconds() - own_start
    other_cores = max(0.0, ((busy_end - busy_start) / hertz - own) / elapsed)
    plots = plot(compile_summary, compile_raw, runtime_raw, runtime_summary)
    context = {
        "machine": machine,
        "config": config,
        "compile": compile_summary,
        "runtime": runtime_summary,
        "profiles": profiled,
        "criterion": criterion,
        "plots": plots,
        "elapsed_min": (time.time() - started) / 60,
        "other_load": {"cores": other_cores, "busy": busy_at_start},
    }
    write_results(context)
    RESULTS.write_text(json.dumps(
        {"machine": machine, "config": config.to_json(), "compile_raw": compile_raw, "compile": compile_summary,
         "runtime_raw": runtime_raw, "runtime": runtime_summary, "criterion": criterion, "profiles": profiled,
         "verdicts": context["verdicts"], "headline": context["headline"], "findings": context["findings"],
         "other_load": context["other_load"],
         "plots": {name: str(path.relative_to(ROOT)) for name, path in plots.items()},
         "elapsed_min": context["elapsed_min"], "elapsed_s": time.time() - started},
        indent=1, default=str))
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOTS.relative_to(ROOT)}/*.png in {elapsed / 60:.1f} minutes")
    for name, met in context["verdicts"].items():
        log(f"target {name}: {'met' if met else 'missed'}")


def by_size(recorded: dict) -> dict:
    """A dict keyed by module size, as recorded (JSON turns int keys into strings)."""
    return {int(size): value for size, value in recorded.items()}


def report_only() -> None:
    """The report step of the run that wrote results.json, again."""
    if not RESULTS.exists():
        raise SystemExit(f"bench: {RESULTS.relative_to(ROOT)} is missing: run `make bench` (or bench/run.py --quick) "
                         "first")
    recorded = json.loads(RESULTS.read_text())
    if "config" not in recorded or "elapsed_min" not in recorded:
        raise SystemExit(f"bench: {RESULTS.relative_to(ROOT)} was written before --report-only existed (it has no "
                         "config): measure again")
    config = Config.from_json(recorded["config"])
    compile_raw, compile_summary = by_size(recorded["compile_raw"]), by_size(recorded["compile"])
    profiled = dict(recorded["profiles"])
    if "compile" in profiled:
        profiled["compile"] = by_size(profiled["compile"])
    log(f"report only, from {RESULTS.relative_to(ROOT)} (run of {recorded['machine']['date']}"
        + (", --quick" if config.quick else "") + ")")
    plots = plot(compile_summary, compile_raw, recorded["runtime_raw"], recorded["runtime"])
    context = {
        "machine": recorded["machine"],
        "config": config,
        "compile": compile_summary,
        "runtime": recorded["runtime"],
        "profiles": profiled,
        "criterion": recorded["criterion"],
        "plots": plots,
        "elapsed_min": recorded["elapsed_min"],
        "other_load": recorded["other_load"],
    }
    write_results(context)
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOTS.relative_to(ROOT)}/*.png"
        + ("" if config.quick else " and the README's paragraph"))
    for name, met in context["verdicts"].items():
        changed = "" if recorded["verdicts"].get(name) == met else " (the run recorded otherwise)"
        log(f"target {name}: {'met' if met else 'missed'}{changed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer and smaller runs, to try the script out")
    mode.add_argument("--report-only", action="store_true",
                      help=f"measure nothing: write the report and plots from {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args()
    if args.report_only:
        report_only()
    else:
        measure_and_report(Config(args.quick))


if __name__ == "__main__":
    main()
