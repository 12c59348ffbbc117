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
    bench/run.py --report-only  # no measuring: the report and plots again from
                                # target/bench/results.json
    bench/run.py --before REV   # also REV's binaries against this tree's
                                # (`make bench BEFORE=REV`; with or without --quick)

--before REV (figures no worse than before) first checks out REV in a
git worktree at target/bench/before/tree and builds its whole workspace there
(`cargo build --release`, CARGO_TARGET_DIR=target/bench/before/target, seeded
on first use with a copy of this tree's target/release/{deps,build,.fingerprint}
so that only the project's own crates and C++ are compiled: 1.0 minute for
f5e2cb3 with CARGO_BUILD_JOBS=1 on this project's 2-core machine, more where
REV's Cargo.lock differs, seconds when the build is kept from an earlier
--before run; without the seed every dependency is compiled too, which was not
timed). After the usual measurements it measures the compile-time series and
the run-time figures (local launch, launch_async, remote 1 KiB round trips,
64 MiB launches) for both revisions in alternation, and the report gets a
"Before and after" section: per figure, before, after, after/before with its
interval, and the verdict of verdicts.py (no worse, worse or inconclusive).
That took half a minute of a --quick run here; a full run's counts (Config)
should take about 3 minutes (estimated, not timed). Without --before nothing of
this runs and the report is unchanged.

Needs: target/release/{executor-opt,executor-server,libexecutor_runtime.so}
(`make build`), target/release/examples/tcp_echo_rtt (`cargo build --release -p
executor-runtime --example tcp_echo_rtt`), LLVM 22's mlir-opt, mlir-translate,
llc, mlir-runner and runner libraries, hyperfine, GNU time, rustc, matplotlib;
perf and strace for the profiles (skipped, and said so, when they fail).
--report-only needs matplotlib alone.

The work is in bench/harness/ (see its __init__.py): measure and profiles run
things, summary and verdicts are pure functions over what they recorded,
plots and report write the results.
"""
import argparse
import json
import os
import time
from pathlib import Path

from harness import measure, profiles, report, revision, session_passes, summary, verdicts
from harness.plots import plot
from harness.common import (
    ASYNC_RUNTIME, CURRENT, DOC, EXECUTOR_OPT, EXECUTOR_SERVER, GNU_TIME, MLIR_OPT, MLIR_RUNNER, PLACEMENTS, PLOTS,
    RESULTS, ROOT, RUNTIME_LIB, TCP_ECHO, WORK, Config, log,
)


def write_results(context: dict) -> None:
    """Writes the report from a run's context, after judging it."""
    context.update(verdicts.judge(context["compile"], context["runtime"], context["profiles"],
                                  context["other_load"]))
    if "sessions" in context:
        context["verdicts"].update(session_passes.verdicts(context["sessions"]))
    if "before_after" in context:
        context["before_after_verdicts"] = verdicts.before_after(context["before_after"]["summary"])
    report.write_report(context)


def log_before_after(context: dict) -> None:
    """Each figure of --before REV and its verdict, on the terminal."""
    judged = context["before_after_verdicts"]
    log(f"before ({context['before_after']['short']}) and after, medians, after/before (median of the pairs' "
        f"ratios) and its interval:")
    for figure in context["before_after"]["summary"]:
        log(f"  {figure['id']:<26} {figure['before']['median']:>12.6g} {figure['after']['median']:>12.6g}  "
            f"{figure['ratio']:.3f}x [{figure['low']:.3f}, {figure['high']:.3f}] ({figure['level']:.0%}, "
            f"{figure['pairs']} pairs): {judged['figures'][figure['id']]}")
    log(f"against {context['before_after']['short']}: {judged['overall']}")


def measure_and_report(config: Config, before: str = None) -> None:
    for required in [EXECUTOR_OPT, EXECUTOR_SERVER, RUNTIME_LIB, TCP_ECHO, MLIR_OPT, MLIR_RUNNER, ASYNC_RUNTIME,
                     GNU_TIME]:
        if not Path(required).exists():
            raise SystemExit(f"bench: {required} is missing (make bench builds and installs what it needs)")
    WORK.mkdir(parents=True, exist_ok=True)
    if before is not None:
        before_binaries, before_recorded = revision.build(before)
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
    runtime_raw = {"local": measure.bench_local(config, kernels), "async": {}, "remote": {},
                   "first_launch": {"placements": {}}}
    for placement in PLACEMENTS:
        runtime_raw["async"][placement] = measure.bench_async(config, kernels, placement)
        runtime_raw["remote"][placement] = measure.bench_remote(config, kernels, placement)
        runtime_raw["first_launch"]["placements"][placement] = measure.bench_first_launch(config, kernels, placement)
    big_object = measure.compile_big_object(config)
    runtime_raw["first_launch"]["big_object"] = measure.bench_big_object(config, big_object)
    runtime_summary = summary.summarize_runtime(runtime_raw, config)
    criterion = measure.bench_criterion(config)
    sessions_raw = session_passes.measure(config, kernels)
    profiled = {"async": profiles.profile_async(config, kernels), "remote": profiles.profile_remote(config, kernels)}
    verdict = verdicts.verdicts(compile_summary, runtime_summary)
    if verdicts.compile_missed(verdict):
        profiled["compile"] = profiles.profile_compile(config, compile_summary)
    if not verdict["local"]:
        profiled["local"] = profiles.profile_local_launch(config, kernels)
    if not verdict["first_launch"]:
        profiled["first_launch"] = profiles.profile_first_launch(config, kernels)
    if not verdict["big_object"]:
        profiled["big_object"] = profiles.profile_big_object(config, big_object)
    if before is not None:
        phase_started = time.time()
        before_raw = measure.bench_before_after(config, kernels, before_binaries, CURRENT)
        before_recorded.update({
            "raw": before_raw,
            "summary": summary.summarize_before_after(before_raw, verdicts.BEFORE_AFTER_LEVEL),
            "elapsed_min": (time.time() - phase_started) / 60,
        })

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
        "sessions": session_passes.summarize(sessions_raw),
    }
    if before is not None:
        context["before_after"] = before_recorded
    write_results(context)
    recorded = {
        "machine": machine, "config": config.to_json(), "compile_raw": compile_raw, "compile": compile_summary,
        "runtime_raw": runtime_raw, "runtime": runtime_summary, "criterion": criterion, "profiles": profiled,
        "verdicts": context["verdicts"], "findings": context["findings"],
        "other_load": context["other_load"], "sessions_raw": sessions_raw, "sessions": context["sessions"],
        "plots": {name: str(path.relative_to(ROOT)) for name, path in plots.items()},
        "elapsed_min": context["elapsed_min"], "elapsed_s": time.time() - started,
    }
    if before is not None:
        recorded["before_after"] = before_recorded
        recorded["before_after_verdicts"] = context["before_after_verdicts"]
    RESULTS.write_text(json.dumps(recorded, indent=1, default=str))
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOTS.relative_to(ROOT)}/*.png in {elapsed / 60:.1f} minutes")
    for name, met in context["verdicts"].items():
        log(f"target {name}: {'met' if met else 'missed'}")
    if before is not None:
        log_before_after(context)


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
    if "sessions" in recorded:
        context["sessions"] = recorded["sessions"]
    if "before_after" in recorded:
        context["before_after"] = recorded["before_after"]
    write_results(context)
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOTS.relative_to(ROOT)}/*.png")
    for name, met in context["verdicts"].items():
        changed = "" if recorded["verdicts"].get(name) == met else " (the run recorded otherwise)"
        log(f"target {name}: {'met' if met else 'missed'}{changed}")
    if "before_after" in context:
        log_before_after(context)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer and smaller runs, to try the script out")
    mode.add_argument("--report-only", action="store_true",
                      help=f"measure nothing: write the report and plots from {RESULTS.relative_to(ROOT)}")
    parser.add_argument("--before", metavar="REV",
                        help="also build REV (a commit, branch or tag) under target/bench/before/ and compare its "
                             "figures with this tree's, measured in alternation")
    args = parser.parse_args()
    if args.report_only:
        if args.before is not None:
            parser.error("--before measures: it does not go with --report-only (which reports what results.json "
                         "recorded, a --before run's comparison included)")
        report_only()
    else:
        measure_and_report(Config(args.quick), args.before)


if __name__ == "__main__":
    main()
