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
    bench/run.py --transports-only [--quick]
                                # the transports alone: a report of them only

The transports (issue 29's costs; measure.bench_transports) are part of every
run: the 1 KiB remote round trips over a Unix socket against TCP loopback, and,
when executor-server's --help has --tls-cert, over TLS against plaintext TCP,
with the 64 MiB launches and the first launch over each (an identity from
executor-server --gen-identity, the client pinning its fingerprint in an
EXECUTOR_CONFIG file); each pair of servers in alternation, free and pinned.
Without TLS in the build, its targets are not measured (absent, not missed).
--transports-only measures them and nothing else and writes their page to
target/bench/transports.md (docs/performance.md stays as it is) and a
results.json of them alone (--report-only reads that back). On this 2-core machine under load (other builds running), with an
executor-server that has TLS: 15 s with --quick, 2.8 minutes with the full
counts (0.7 minutes without TLS). It needs executor-opt,
executor-server, libexecutor_runtime.so and LLVM's tools, not hyperfine,
tcp_echo_rtt or matplotlib.

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
64 MiB launches, the first launch on a server and of the many-kernel object)
for both revisions in alternation, and the report gets a
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
    ASYNC_RUNTIME, CURRENT, DOC, TRANSPORTS_DOC, EXECUTOR_OPT, EXECUTOR_SERVER, GNU_TIME, MLIR_OPT, MLIR_RUNNER, PLACEMENT_LABELS,
    PLACEMENTS, PLOTS, RESULTS, ROOT, RUNTIME_LIB, TCP_ECHO, WORK, Config, log,
)


def write_results(context: dict) -> None:
    """Writes the report from a run's context, after judging it."""
    if context.get("transports_only"):
        context.update({"verdicts": {}, "findings": {"other_load_noted": verdicts.other_load_noted(
            context["other_load"])}})
    else:
        context.update(verdicts.judge(context["compile"], context["runtime"], context["profiles"],
                                      context["other_load"]))
    if "transports" in context:
        context["verdicts"].update(verdicts.transport_verdicts(context["transports"]))
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


def check_required(required: list) -> None:
    for path in required:
        if not Path(path).exists():
            raise SystemExit(f"bench: {path} is missing (make bench builds and installs what it needs)")


def start_run() -> dict:
    """The machine, the processes busy at the start and the CPU counters a
    run's other load is computed from (other_load)."""
    start = {"started": time.time(), "busy_jiffies": measure.cpu_jiffies()[0], "own": measure.own_cpu_seconds(),
             "busy": measure.busy_processes(), "machine": measure.machine_info()}
    log(f"machine: {start['machine']['cpu']}, {start['machine']['cores']} cores")
    for entry in start["busy"]:
        log(f"note: another process is busy: pid {entry['pid']} {entry['pcpu']:.0f}% CPU: {entry['command']}")
    return start


def other_load(start: dict) -> dict:
    """The cores other processes kept busy on average since start_run, and
    the processes busy at its start."""
    busy = (measure.cpu_jiffies()[0] - start["busy_jiffies"]) / os.sysconf("SC_CLK_TCK")
    own = measure.own_cpu_seconds() - start["own"]
    return {"cores": max(0.0, (busy - own) / (time.time() - start["started"])), "busy": start["busy"]}


def log_verdicts(judged: dict, recorded: dict = None) -> None:
    """Each target's verdict; TLS's, when the run had no TLS to measure, as not measured."""
    for name, met in judged.items():
        changed = "" if recorded is None or recorded.get(name) == met else " (the run recorded otherwise)"
        log(f"target {name}: {'met' if met else 'missed'}{changed}")


def log_transports(summarized: dict) -> None:
    """The transports' ratios, on the terminal."""
    for placement, entry in summarized["placements"].items():
        log(f"transports, {PLACEMENT_LABELS[placement]}: unix/tcp 1 KiB round trip "
            + ", ".join(f"{kind} {value:.3f}x" for kind, value in entry["unix"]["rtt_ratio"].items()))
        if "tls" in entry:
            tls = entry["tls"]
            log(f"transports, {PLACEMENT_LABELS[placement]}: tls/plaintext 1 KiB round trip "
                + ", ".join(f"{kind} {value:.3f}x" for kind, value in tls["rtt_ratio"].items())
                + f"; 64 MiB throughput {tls['bulk_ratio']:.3f}x; first launch {tls['first_launch_extra_us']:+.0f} us")
    if not summarized["tls"]:
        log("target tls_rtt, tls_bulk, tls_first_launch: not measured: this build has no TLS")


def log_trace_cost(summarized: dict) -> None:
    local, remote = summarized["local_ns"], summarized["remote_us"]
    log(f"tracing costs {local['cost']:.0f} ns per local launch ({local['off']['median']:.1f} -> "
        f"{local['on']['median']:.1f} ns) and {remote['cost']:.1f} us per remote 1 KiB round trip "
        f"({remote['off']['median']:.1f} -> {remote['on']['median']:.1f} us), medians")


def measure_transports_only(config: Config) -> None:
    """--transports-only: the transports and nothing else, their report and results.json."""
    check_required([EXECUTOR_OPT, EXECUTOR_SERVER, RUNTIME_LIB, MLIR_OPT, MLIR_RUNNER])
    WORK.mkdir(parents=True, exist_ok=True)
    start = start_run()
    kernels = measure.compile_kernels()
    transports_raw = measure.bench_transports(config, kernels)
    context = {
        "transports_only": True,
        "machine": start["machine"],
        "config": config,
        "transports": summary.summarize_transports(transports_raw),
        "elapsed_min": (time.time() - start["started"]) / 60,
        "other_load": other_load(start),
    }
    write_results(context)
    RESULTS.write_text(json.dumps({
        "transports_only": True, "machine": context["machine"], "config": config.to_json(),
        "transports_raw": transports_raw, "transports": context["transports"], "verdicts": context["verdicts"],
        "other_load": context["other_load"], "elapsed_min": context["elapsed_min"],
    }, indent=1, default=str))
    log(f"wrote {TRANSPORTS_DOC.relative_to(ROOT)} (the transports only) in {context['elapsed_min']:.1f} minutes")
    log_transports(context["transports"])
    log_verdicts(context["verdicts"])


def measure_and_report(config: Config, before: str = None) -> None:
    check_required([EXECUTOR_OPT, EXECUTOR_SERVER, RUNTIME_LIB, TCP_ECHO, MLIR_OPT, MLIR_RUNNER, ASYNC_RUNTIME,
                    GNU_TIME])
    WORK.mkdir(parents=True, exist_ok=True)
    # The layouts `local` saves of large objects (docs/runtime-abi.md) go to
    # the bench's own cache, emptied by bench_big_object, not the user's.
    os.environ["XDG_CACHE_HOME"] = str(measure.LAYOUT_CACHE)
    if before is not None:
        before_binaries, before_recorded = revision.build(before)
    start = start_run()
    started, machine = start["started"], start["machine"]

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
    transports_raw = measure.bench_transports(config, kernels)
    trace_cost_raw = measure.bench_trace_cost(config, kernels)
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
        before_raw = measure.bench_before_after(config, kernels, big_object, before_binaries, CURRENT)
        before_recorded.update({
            "raw": before_raw,
            "summary": summary.summarize_before_after(before_raw, verdicts.BEFORE_AFTER_LEVEL),
            "elapsed_min": (time.time() - phase_started) / 60,
        })

    elapsed = time.time() - started
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
        "other_load": other_load(start),
        "sessions": session_passes.summarize(sessions_raw),
        "transports": summary.summarize_transports(transports_raw),
        "trace_cost": summary.summarize_trace_cost(trace_cost_raw),
    }
    if before is not None:
        context["before_after"] = before_recorded
    write_results(context)
    recorded = {
        "machine": machine, "config": config.to_json(), "compile_raw": compile_raw, "compile": compile_summary,
        "runtime_raw": runtime_raw, "runtime": runtime_summary, "criterion": criterion, "profiles": profiled,
        "verdicts": context["verdicts"], "findings": context["findings"],
        "other_load": context["other_load"], "sessions_raw": sessions_raw, "sessions": context["sessions"],
        "transports_raw": transports_raw, "transports": context["transports"],
        "trace_cost_raw": trace_cost_raw, "trace_cost": context["trace_cost"],
        "plots": {name: str(path.relative_to(ROOT)) for name, path in plots.items()},
        "elapsed_min": context["elapsed_min"], "elapsed_s": time.time() - started,
    }
    if before is not None:
        recorded["before_after"] = before_recorded
        recorded["before_after_verdicts"] = context["before_after_verdicts"]
    RESULTS.write_text(json.dumps(recorded, indent=1, default=str))
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOTS.relative_to(ROOT)}/*.png in {elapsed / 60:.1f} minutes")
    log_transports(context["transports"])
    log_trace_cost(context["trace_cost"])
    log_verdicts(context["verdicts"])
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
    if recorded.get("transports_only"):
        log(f"report only, from {RESULTS.relative_to(ROOT)} (--transports-only run of {recorded['machine']['date']}"
            + (", --quick" if config.quick else "") + ")")
        context = {key: recorded[key] for key in ("transports_only", "machine", "transports", "elapsed_min",
                                                   "other_load")}
        context["config"] = config
        write_results(context)
        log(f"wrote {TRANSPORTS_DOC.relative_to(ROOT)} (the transports only)")
        log_transports(context["transports"])
        log_verdicts(context["verdicts"], recorded["verdicts"])
        return
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
    if "transports" in recorded:
        context["transports"] = recorded["transports"]
    if "trace_cost" in recorded:
        context["trace_cost"] = recorded["trace_cost"]
    if "before_after" in recorded:
        context["before_after"] = recorded["before_after"]
    write_results(context)
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOTS.relative_to(ROOT)}/*.png")
    if "transports" in context:
        log_transports(context["transports"])
    log_verdicts(context["verdicts"], recorded["verdicts"])
    if "before_after" in context:
        log_before_after(context)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer and smaller runs, to try the script out")
    mode.add_argument("--report-only", action="store_true",
                      help=f"measure nothing: write the report and plots from {RESULTS.relative_to(ROOT)}")
    parser.add_argument("--transports-only", action="store_true",
                        help="measure the transports alone (a Unix socket against TCP loopback, TLS against "
                             "plaintext TCP when executor-server has TLS) and write a report of them alone; "
                             "with or without --quick")
    parser.add_argument("--before", metavar="REV",
                        help="also build REV (a commit, branch or tag) under target/bench/before/ and compare its "
                             "figures with this tree's, measured in alternation")
    args = parser.parse_args()
    if args.report_only:
        if args.before is not None:
            parser.error("--before measures: it does not go with --report-only (which reports what results.json "
                         "recorded, a --before run's comparison included)")
        if args.transports_only:
            parser.error("--transports-only measures: it does not go with --report-only (which reports what "
                         "results.json recorded, a --transports-only run's included)")
        report_only()
    elif args.transports_only:
        if args.before is not None:
            parser.error("--before compares the whole run's figures: it does not go with --transports-only")
        measure_transports_only(Config(args.quick))
    else:
        measure_and_report(Config(args.quick), args.before)


if __name__ == "__main__":
    main()
