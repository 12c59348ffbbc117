"""Report writing: docs/performance.md, from the summaries of summary.py and
what verdicts.py decided. Each section is a small function that returns its
lines; the prose is here and only formats numbers and verdicts, it decides
nothing (a branch here reads a verdict or a finding, or whether a profile was
taken)."""
import shlex
import statistics

from .common import (
    AFTER_SESSION_PAUSE_S, ASYNC_PIPELINE, BULK_BYTES, DOC, TRANSPORTS_DOC, EXECUTOR_PASS, FIRST_LAUNCH_PAUSE_S,
    PLACEMENT_LABELS, PLACEMENTS, ROOT, UPSTREAM_PASS,
)
from . import session_passes
from .measure import CRITERION_BENCHES, compile_commands
from .text import fmt, mark, ns, ratio
from .verdicts import (
    BEFORE_AFTER_BOUND, BEFORE_AFTER_FEWEST_PAIRS, BEFORE_AFTER_LEVEL, INCONCLUSIVE, NO_WORSE, RTT_KINDS,
    TARGET_BIG_OBJECT, TARGET_FIRST_LAUNCH_US, TARGET_LOCAL, TARGET_LOCAL_FIRST_LAUNCH, TARGET_MEMORY, TARGET_RTT,
    TARGET_SCALING, TARGET_TLS_BULK, TARGET_TLS_FIRST_LAUNCH_US, TARGET_TLS_RTT, TARGET_UNIX_RTT, WORSE,
    compile_missed, largest_and_middle, missed, profiled_missed,
)

# What each group of the Criterion benches measures (measure.CRITERION_GROUPS
# has their baselines).
CRITERION_DESCRIPTIONS = {
    "local_launch":
        "`LocalExecutor::launch` of a JIT-compiled kernel (empty: no arguments; memref_1KiB: one "
        "`memref<256xf32>` in and the same one back as the result), against calling the same entry through a "
        "function pointer with the same arguments",
    "launch_async_await":
        "`launch_async` + `await_launch` of an empty `void(void)` entry, against handing the same call to a "
        "parked thread through two `std::sync::mpsc` channels, and against a thread started and joined per call",
    "frame_encode":
        "a `Launch` request with one input of the given size encoded as one frame by postcard "
        "(`protocol::encode_frame`, still how every other message is sent) and as the client sends a launch "
        "(`LaunchFrame`: the bytes around the input encoded, then all written to `io::sink()` with vectored "
        "writes, the input's bytes from where they are), against copying the frame's bytes into a new `Vec`",
    "frame_decode":
        "the same frame read back from memory by `protocol::read_message` and as the worker reads a request "
        "(`protocol::read_request`, the input's bytes straight into the buffer of the previous launch), against "
        "the same copy",
    "call_buffers":
        "`executor.call`'s argument buffer of two 1 KiB buffers packed and unpacked (`buffers/src/packed.rs`), against a copy "
        "of its bytes",
    "descriptor":
        "a memref's elements gathered into a dense buffer (`Descriptor::to_dense`, contiguous and strided) and a "
        "result descriptor pointed at a `malloc`ed copy (`fill_from_dense`), against a copy of the same 1 KiB",
}

# The figures of --before REV (measure.bench_before_after), by measure: what
# each is, and the unit and scale its table shows it in.
BEFORE_AFTER_FIGURES = {
    "pass_s": ("`convert-executor-to-llvm` pass (`--mlir-timing`)", "s", 1),
    "process_s": ("whole process", "s", 1),
    "peak_rss_kb": ("peak RSS", "MiB", 1 / 1024),
    "local_ns": ("local `executor.launch` of an empty kernel (per process run)", "ns", 1),
    "async_ns": ("`launch_async` + `await` (per process run)", "us", 1e-3),
    "rtt_echo_1k_us": ("remote launch, 1 KiB in, 1 KiB result (per process run)", "us", 1),
    "rtt_sink_1k_us": ("remote launch, 1 KiB in, no result (per process run)", "us", 1),
    "bulk_s": ("remote launch, 64 MiB input (mean of a process run's launches)", "ms", 1e3),
    "first_us": ("first launch on a server: open + send_binary + first launch, warm worker (per process run)",
                 "us", 1),
    "big_object_us": ("send_binary + first launch of one kernel of the many-kernel object, `local` (per process run)",
                      "us", 1),
}
BEFORE_AFTER_MARKS = {NO_WORSE: "**no worse**", WORSE: "**worse**", INCONCLUSIVE: "inconclusive"}


def render_report(context: dict) -> str:
    """docs/performance.md of a run: `context` has the run's machine, config,
    compile and runtime summaries, profiles, criterion results, plots,
    elapsed_min and other_load, and what verdicts.judge made of them."""
    lines = []
    if context.get("transports_only"):
        sections = (title, machine, transports)
    else:
        sections = (title, summary, machine, commands, compile_time, run_time, first_launch, transports, tracing,
                    sessions, before_and_after, micro_benchmarks, where_the_time_goes)
    for section in sections:
        lines += section(context)
    return "\n".join(lines)


def sessions(context: dict) -> list:
    """The session passes' section (session_passes.py), when the run measured them."""
    if "sessions" not in context:
        return []
    return session_passes.report_section(context["sessions"], context["verdicts"])


def report_path(context: dict):
    """Where the run's page goes: docs/performance.md, or for a
    --transports-only run a page of its own under target/bench/."""
    return TRANSPORTS_DOC if context.get("transports_only") else DOC


def write_report(context: dict) -> None:
    path = report_path(context)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(context))


def both(rs: dict, render_one) -> str:
    """One text per placement, after the placement's label."""
    return "; ".join(f"{PLACEMENT_LABELS[placement]}: {render_one(rs[placement])}" for placement in PLACEMENTS)


def over_budget(sides: list) -> str:
    """The sides of a 64 MiB launch that alone spend more CPU time than the
    target allows the whole launch (verdicts.bulk_findings)."""
    names = {"client": "the client", "worker": "the server worker"}
    if len(sides) == 2:
        return ": each side of the launch spends more CPU time than that on its own"
    if sides:
        return f": {names[sides[0]]} alone spends more CPU time than that"
    return ""


def profile_table(rows) -> list:
    lines = ["| share | where | symbol |", "|---|---|---|"]
    lines += [f"| {row['percent']:.1f}% | {row['dso']} | `{row['symbol']}` |" for row in rows]
    return lines



def title(context: dict) -> list:
    """The title and what the page is."""
    machine, config = context["machine"], context["config"]
    lines = []
    add = lines.append
    add("# Performance")
    add("")
    add(f"Generated by `make bench` ([bench/run.py](../bench/run.py)) on {machine['date']}, commit "
        f"{machine['commit']}; the run took {context['elapsed_min']:.1f} minutes. Every number on this page "
        "was measured by that run, and every ratio compares medians measured in that same run (this "
        "project over the upstream baseline: below 1.0x is faster, except for throughput, where above "
        "1.0x is faster). Raw samples: `target/bench/results.json`.")
    add("")
    if config.quick:
        add("**This is a `--quick` run: fewer and smaller measurements than `make bench` takes.**")
        add("")
    if context.get("transports_only"):
        add("**This is a `--transports-only` run: it measured the transports and nothing else.**")
        add("")
    return lines


def summary(context: dict) -> list:
    """The performance targets, what was measured for each, and its verdict."""
    cs, rs, verdicts, targets = context["compile"], context["runtime"], context["verdicts"], context["targets"]
    sizes = sorted(cs)
    largest, middle = largest_and_middle(cs)
    per_op_ratios, pass_ratios = targets["per_op_ratios"], targets["pass_ratios"]
    lines = []
    add = lines.append
    add("## Summary: the performance targets")
    add("")
    add("| target | measured | verdict |")
    add("|---|---|---|")
    add("| pass cost per op at most 1.0x upstream `--convert-func-to-llvm` (ratio of medians, parse+print "
        "subtracted) | whole process minus parse+print: "
        + ", ".join(f"{ratio(per_op_ratios[size])} at {size:,}" for size in sizes)
        + "; pass alone (`--mlir-timing`): "
        + ", ".join(f"{ratio(pass_ratios[size])}" for size in sizes)
        + f" | {mark(verdicts['per_op'])} |")
    add(f"| time at {largest:,} ops at most {TARGET_SCALING:.0f}x the time at {middle:,} | pass alone "
        f"{ratio(targets['scaling_pass'])}, whole process minus parse+print {ratio(targets['scaling_process'])} (upstream pass: "
        f"{ratio(targets['scaling_upstream'])}) | {mark(verdicts['scaling'])} |")
    add(f"| peak memory at most {TARGET_MEMORY}x the baseline's | "
        + ", ".join(f"{ratio(targets['memory_ratios'][size])} at {size:,}" for size in sizes)
        + f" | {mark(verdicts['memory'])} |")
    add(f"| local launch of an empty kernel from a compiled host loop at most {ratio(TARGET_LOCAL)} a direct call of "
        f"it from a shared library | {ratio(rs['local_ratio'])} ({fmt(rs['local_ns']['median'])} ns vs "
        f"{fmt(rs['direct_call_ns']['median'])} ns) "
        f"| {mark(verdicts['local'])} |")
    add("| `launch_async` + `await` at most 1.0x MLIR's `async.execute` + `async.await` | "
        + both(rs, lambda r: f"{ratio(r['async_ratio'])} ({fmt(r['async_executor_ns']['median'] / 1000)} us vs "
                         f"{fmt(r['async_upstream_ns']['median'] / 1000)} us)")
        + f" | {mark(verdicts['async'])} |")
    add(f"| remote launch with 1 KiB of inputs over a TCP echo of 1 KiB: at most {rtt_bounds()} | "
        + both(rs, lambda r: f"{ratio(r['rtt_ratio']['echo_1k'])} with the 1 KiB echoed back as the result, "
                         f"{ratio(r['rtt_ratio']['sink_1k'])} without a result "
                         f"({fmt(r['rtt_us']['echo_1k']['median'])} / {fmt(r['rtt_us']['sink_1k']['median'])} us "
                         f"vs {fmt(r['tcp_echo_us']['median'])} us)")
        + f" | {mark(verdicts['rtt'])} |")
    add("| remote launch of a 64 MiB input at least 0.5x the throughput of a loopback socket copy | "
        + both(rs, lambda r: f"{ratio(r['bulk_ratio'])} ({fmt(r['bulk_mib_s']['median'])} MiB/s vs "
                         f"{fmt(r['copy_mib_s']['median'])} MiB/s)")
        + f" | {mark(verdicts['bulk'])} |")
    fs = rs["first_launch"]
    add(f"| first launch on a fresh executor-server session (open + send_binary of a small object + first launch) "
        f"at most {fmt(TARGET_FIRST_LAUNCH_US / 1000)} ms median | "
        + both(fs, lambda r: f"{fmt(r['kinds']['warm']['total']['median'] / 1000)} ms with a warm worker "
                         f"({ratio(r['warm_over_cold'])} the {fmt(r['kinds']['cold']['total']['median'] / 1000)} ms "
                         "of `--warm-workers 0`)")
        + f" | {mark(verdicts['first_launch'])} |")
    add(f"| first launch on `local` (the JIT created, the object linked) at most {ratio(TARGET_LOCAL_FIRST_LAUNCH)} "
        "the same with the code as a shared library (`dlopen`) | "
        + both(fs, lambda r: f"{ratio(r['local_over_dlopen'])} ({fmt(r['kinds']['local']['total']['median'])} us vs "
                         f"{fmt(r['kinds']['local_dlopen']['total']['median'])} us)")
        + f" | {mark(verdicts['local_first_launch'])} |")
    big = fs["big_object"]
    add(f"| send_binary + first launch of an object of {big['kernels']:,} kernels at most "
        f"{ratio(TARGET_BIG_OBJECT)} the same code as a shared library (`dlopen`) | {ratio(big['ratio'])} "
        f"({fmt(big['kinds']['object']['load']['median'] / 1000)} ms vs "
        f"{fmt(big['kinds']['library']['load']['median'] / 1000)} ms)"
        + "".join(f"; C kernels, {C_SHAPE_LABELS[shape]}: {ratio(value)}"
                  for shape, value in big.get("c_ratios", {}).items())
        + f" | {mark(verdicts['big_object'])} |")
    add("")
    add("The run-time comparisons between threads or processes were measured twice: with the processes free "
        "to run on any CPU, and all pinned to CPU 0 (`taskset -c 0`); a target counts as met when it is met "
        "both ways. See [Run time](#run-time) for why both.")
    add("")
    if profiled_missed(verdicts):
        add("Missed targets have their profile figures under "
            "[Where the time goes](#where-the-time-goes).")
        add("")
    if "before_after" in context:
        judged = context["before_after_verdicts"]
        counts = [list(judged["figures"].values()).count(verdict) for verdict in (NO_WORSE, INCONCLUSIVE, WORSE)]
        add(f"Against commit {context['before_after']['short']}: "
            f"{BEFORE_AFTER_MARKS[judged['overall']]}; of {len(judged['figures'])} figures, {counts[0]} no worse, "
            f"{counts[1]} inconclusive, {counts[2]} worse. See [Before and after](#before-and-after).")
        add("")
    return lines


def machine(context: dict) -> list:
    """The machine and the other load on it."""
    machine = context["machine"]
    lines = []
    add = lines.append
    add("## The machine")
    add("")
    add("| | |")
    add("|---|---|")
    add(f"| CPU | {machine['cpu']}, {machine['cores']} cores |")
    add(f"| memory | {machine['memory_gib']:.1f} GiB |")
    add(f"| system | {machine['os']}, Linux {machine['kernel']} |")
    add(f"| tools | {machine['llvm']}; {machine['rustc']}; {machine['hyperfine']}; Python {machine['python']} |")
    other = context["other_load"]
    add(f"| other load during the run | {other['cores']:.2f} cores busy on average with processes other than "
        f"this benchmark (from /proc/stat and the benchmark's own CPU time) |")
    if other["busy"]:
        busy = "; ".join(f"`{entry['command']}` (pid {entry['pid']}, {entry['pcpu']:.0f}% CPU over "
                         f"{entry['elapsed']})" for entry in other["busy"])
        add(f"| busy processes at the start | {busy} |")
    add("")
    if context["findings"]["other_load_noted"]:
        add(f"Another workload kept about {other['cores']:.1f} of the {machine['cores']} cores busy during this "
            "run, so absolute times (and the multi-process remote measurements most) are slower and noisier "
            "than on an idle machine. Contender and baseline were measured in alternation, so both saw the "
            "same load.")
        add("")
    return lines


def commands(context: dict) -> list:
    """The commands measured."""
    config, sizes = context["config"], sorted(context["compile"])
    lines = []
    add = lines.append
    add("## Commands")
    add("")
    add("Compile time, for N in " + ", ".join(f"{size:,}" for size in sizes) + " (modules written by "
        "[bench/gen_launches.py](../bench/gen_launches.py): N launches, two `memref<?xf32>` inputs and one "
        "result each, in functions of 100, with the session and binary ops around them; the baseline module "
        "has a `func.call` of an external function with the same operands and result instead):")
    add("")
    add("```sh")
    for name, command in compile_commands(sizes[-1]).items():
        text = shlex.join(str(part).replace(str(ROOT) + "/", "") for part in command)
        add(f"# {name}")
        add(text.replace(str(sizes[-1]), "N"))
    add("```")
    add("")
    add("Each command runs under `hyperfine -N --warmup 1 --runs R` (R = "
        + ", ".join(f"{config.hyperfine_runs[size]} at {size:,}" for size in sizes)
        + ") for whole-process time, then R' more times (R' = "
        + ", ".join(f"{config.timing_runs[size]}" for size in sizes)
        + ") under `/usr/bin/time -v` with `--mlir-timing` added, for the pass time and the peak resident "
          "memory. \"Minus parse+print\" is the median of the lowering command minus the median of its "
          "parse+print command, for each tool on its own module.")
    add("")
    add("Run time (the kernels are [bench/kernels.mlir](../bench/kernels.mlir), compiled to an object "
        "file with upstream `mlir-opt` (`%kernel_pipeline` of the lit suite), `mlir-translate` and `llc`; "
        "host programs are lowered with `executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)'` "
        "and run with `mlir-runner -e main -entry-point-result=void -shared-libs=libexecutor_runtime.so,"
        "libmlir_c_runner_utils.so,libmlir_runner_utils.so`; each program times its own loop with `rtclock`):")
    add("")
    add(f"- local launch: [bench/local_launch.mlir](../bench/local_launch.mlir), {config.local_launches:,} "
        f"launches of an empty kernel per process, against [bench/direct_call.mlir](../bench/direct_call.mlir), "
        f"as many calls of the same kernel's C interface from the kernels built as a shared library (`clang "
        f"-shared`, added to `-shared-libs`), and [bench/catalyst_launch.mlir](../bench/catalyst_launch.mlir), "
        f"the same launches as Catalyst's lowering makes them, {config.local_runs} processes each, alternating;")
    add(f"- asynchronous launch: [bench/async_launch.mlir](../bench/async_launch.mlir) against "
        f"[bench/async_execute.mlir](../bench/async_execute.mlir) (lowered by upstream `mlir-opt "
        f"--pass-pipeline='{ASYNC_PIPELINE}'`, run with `libmlir_async_runtime.so`), "
        f"{config.async_iterations:,} iterations per process, {config.async_runs} processes each, "
        "alternating; both with `mlir-runner -O0` (the coroutines of the baseline need it);")
    add(f"- remote round trips: `executor-server --listen 127.0.0.1:0` (the address read from its `Listening on` "
        f"line), [bench/remote_launch.mlir](../bench/remote_launch.mlir), {config.remote_round_trips:,} round "
        f"trips of each kind per process, against `target/release/examples/tcp_echo_rtt 1024 "
        f"{config.remote_round_trips}` ([runtime/examples/tcp_echo_rtt.rs](../runtime/examples/tcp_echo_rtt.rs): "
        "the echoing end a thread of the timing process), and for reference the same with `processes` added "
        f"(the echoing end a process of its own, as an executor-server's worker is), {config.remote_runs} "
        f"processes each, alternating, the executor left idle for {AFTER_SESSION_PAUSE_S} s after each "
        "session (its warm worker is replaced then, not in the next run);")
    add(f"- 64 MiB: [bench/remote_bulk.mlir](../bench/remote_bulk.mlir) on the same server, "
        f"{config.bulk_launches} launches per process timed one by one, against "
        f"[bench/socket_copy.py](../bench/socket_copy.py) `{BULK_BYTES} {config.bulk_launches}` (a loopback "
        f"TCP copy of the same bytes into a preallocated buffer, and a one-byte answer), {config.bulk_runs} "
        "processes each, alternating.")
    add("")
    return lines


def compile_time(context: dict) -> list:
    """The compile-time tables."""
    cs, targets = context["compile"], context["targets"]
    sizes = sorted(cs)
    largest, middle = largest_and_middle(cs)
    lines = []
    add = lines.append
    add("## Compile time")
    add("")
    add(f"![time and memory against N]({context['plots']['compile'].relative_to(DOC.parent)})")
    add("")
    add("Pass time (`--mlir-timing`), seconds:")
    add("")
    add("| N | pass | min | median | max | runs | per op (median) |")
    add("|---|---|---|---|---|---|---|")
    for size in sizes:
        for name, label in [("executor", "convert-executor-to-llvm"), ("upstream", "convert-func-to-llvm")]:
            entry = cs[size]["pass"][name]
            add(f"| {size:,} | {label} | {fmt(entry['min'])} | {fmt(entry['median'])} | {fmt(entry['max'])} "
                f"| {entry['n']} | {fmt(entry['median'] / size * 1e6)} us |")
    add("")
    add("Whole process (hyperfine), seconds:")
    add("")
    add("| N | command | min | median | max | runs |")
    add("|---|---|---|---|---|---|")
    for size in sizes:
        for name, entry in cs[size]["whole"].items():
            add(f"| {size:,} | {name} | {fmt(entry['min'])} | {fmt(entry['median'])} | {fmt(entry['max'])} "
                f"| {entry['n']} |")
    add("")
    add("Ratios (this project over the baseline, medians) and peak memory:")
    add("")
    add("| N | minus parse+print: executor / upstream (s) | ratio | pass alone: ratio | peak RSS executor / "
        "upstream (MiB) | ratio | parse+print alone (MiB) |")
    add("|---|---|---|---|---|---|---|")
    for size in sizes:
        entry = cs[size]
        add(f"| {size:,} | {fmt(entry['subtracted']['executor'])} / {fmt(entry['subtracted']['upstream'])} "
            f"| {ratio(entry['ratio_subtracted'])} | {ratio(entry['ratio_pass'])} "
            f"| {fmt(entry['rss_kb']['executor']['median'] / 1024)} / {fmt(entry['rss_kb']['upstream']['median'] / 1024)} "
            f"| {ratio(entry['ratio_memory'])} "
            f"| {fmt(entry['rss_kb']['executor parse+print']['median'] / 1024)} / "
            f"{fmt(entry['rss_kb']['upstream parse+print']['median'] / 1024)} |")
    add("")
    add(f"Scaling from {middle:,} to {largest:,} ops (10x the ops): executor pass {ratio(targets['scaling_pass'])}, "
        f"executor whole process minus parse+print {ratio(targets['scaling_process'])}, upstream pass "
        f"{ratio(targets['scaling_upstream'])}, upstream whole process minus parse+print "
        f"{ratio(cs[largest]['subtracted']['upstream'] / cs[middle]['subtracted']['upstream'])}.")
    add("")
    add(f"Where a lowering process spends its time at N = {largest:,} (`--mlir-timing` medians, seconds):")
    add("")
    add("| command | Parser | pass | Output (printing) | Total |")
    add("|---|---|---|---|---|")
    for name in ["executor", "upstream", "executor parse+print", "upstream parse+print"]:
        phases = cs[largest]["phases"][name]
        pass_name = EXECUTOR_PASS if name == "executor" else UPSTREAM_PASS if name == "upstream" else None
        pass_time = fmt(phases[pass_name]["median"]) if pass_name and pass_name in phases else "-"
        add(f"| {name} | {fmt(phases['Parser']['median'])} | {pass_time} | {fmt(phases['Output']['median'])} "
            f"| {fmt(phases['Total']['median'])} |")
    add("")
    add("Both passes rewrite one op into a call that passes memref descriptors. The baseline's "
        "`--convert-func-to-llvm` also converts every `func.func` signature (two memref arguments expanded "
        "into descriptor fields) and `return`; the executor pass leaves `func` ops alone and also lowers "
        "`executor.open`, `send_binary` and `close` and adds a shared prologue of constants and stack slots "
        "per function ([docs/runtime-abi.md](runtime-abi.md)).")
    add("")
    return lines


def run_time(context: dict) -> list:
    """The run-time tables."""
    machine, rs, plots = context["machine"], context["runtime"], context["plots"]
    free, pinned = rs["free"], rs["pinned"]
    lines = []
    add = lines.append
    add("## Run time")
    add("")
    add(f"![local launch distributions]({plots['local'].relative_to(DOC.parent)})")
    add("")
    add(f"![remote launch distributions]({plots['remote'].relative_to(DOC.parent)})")
    add("")
    if "catalyst_ns" in rs:
        add(f"Catalyst's own lowering calls `__catalyst__executor__launch` "
            "([bench/catalyst_launch.mlir](../bench/catalyst_launch.mlir)), which passes the kernel and object by "
            "name and no launch site: the runtime finds the entry in the calling thread's cache of the sites it "
            "ran, after comparing both names' text, since the caller may reuse their buffers. That launch of the "
            f"empty kernel takes {fmt(rs['catalyst_ns']['median'])} ns, {ratio(rs['catalyst_ratio'])} the direct "
            f"call, against {fmt(rs['local_ns']['median'])} ns through a launch site. No target is set for it: "
            "this is its cost.")
        add("")
    echo_free, echo_pinned = free["tcp_echo_us"]["median"], pinned["tcp_echo_us"]["median"]
    add(f"Placement matters on this machine. The TCP echo round trip takes {fmt(echo_free)} us when its two "
        f"threads may run on different CPUs and {fmt(echo_pinned)} us when both are pinned to one; MLIR's "
        f"`async.execute` + `async.await` {fmt(free['async_upstream_ns']['median'] / 1000)} us and "
        f"{fmt(pinned['async_upstream_ns']['median'] / 1000)} us. Free, the numbers also include waking an idle "
        f"virtual CPU of this virtual machine ({machine['cpu']}), for this project and its baseline alike. "
        "Pinned, every wake-up is a context switch on one "
        "CPU, and the numbers measure the software path: the system calls and switches each side makes.")
    add("")
    add("| measurement | placement | unit | min | median | max | samples |")
    add("|---|---|---|---|---|---|---|")
    local_rows = [("local `executor.launch` of an empty kernel (per process run)", rs["local_ns"]),
                  ("direct call of the same kernel from a shared library (per process run)", rs["direct_call_ns"])]
    if "catalyst_ns" in rs:
        local_rows.append(("the same launch through Catalyst's `__catalyst__executor__launch`, which has no launch "
                           "site (per process run)", rs["catalyst_ns"]))
    for label, entry in local_rows:
        add(f"| {label} | free | ns | {fmt(entry['min'])} | {fmt(entry['median'])} | {fmt(entry['max'])} "
            f"| {entry['n']} |")
    for placement in PLACEMENTS:
        r = rs[placement]
        for label, unit, entry, scale in [
            ("`launch_async` + `await`, embedded executor (per process run)", "us", r["async_executor_ns"], 1e-3),
            ("`async.execute` + `async.await`, MLIR async runtime (per process run)", "us",
             r["async_upstream_ns"], 1e-3),
            ("remote launch, 1 KiB in, 1 KiB result (per process run)", "us", r["rtt_us"]["echo_1k"], 1),
            ("remote launch, 1 KiB in, no result (per process run)", "us", r["rtt_us"]["sink_1k"], 1),
            ("remote launch, no data (per process run)", "us", r["rtt_us"]["nothing"], 1),
            ("TCP echo of 1 KiB, `tcp_echo_rtt` (per process run)", "us", r["tcp_echo_us"], 1),
            ("TCP echo of 1 KiB between two processes, `tcp_echo_rtt ... processes` (per process run)", "us",
             r["tcp_echo_processes_us"], 1),
            ("remote launch, 64 MiB input (per launch)", "ms", r["bulk_s"], 1e3),
            ("loopback socket copy, 64 MiB (per copy)", "ms", r["copy_s"], 1e3),
            ("remote launch, 64 MiB input: throughput", "MiB/s", r["bulk_mib_s"], 1),
            ("loopback socket copy, 64 MiB: throughput", "MiB/s", r["copy_mib_s"], 1),
        ]:
            add(f"| {label} | {placement} | {unit} | {fmt(entry['min'] * scale)} | {fmt(entry['median'] * scale)} "
                f"| {fmt(entry['max'] * scale)} | {entry['n']} |")
    add("")
    add("| ratio (medians) | free | pinned | target |")
    add("|---|---|---|---|")
    for label, value, target in [
        ("`launch_async` + `await` / `async.execute` + `async.await`", lambda r: r["async_ratio"], "at most 1.0x"),
        ("remote launch 1 KiB in + 1 KiB result / TCP echo 1 KiB", lambda r: r["rtt_ratio"]["echo_1k"],
         f"at most {rtt_bounds()}"),
        ("remote launch 1 KiB in, no result / TCP echo 1 KiB", lambda r: r["rtt_ratio"]["sink_1k"],
         f"at most {rtt_bounds()}"),
        ("remote launch without data / TCP echo 1 KiB", lambda r: r["rtt_ratio"]["nothing"], "(for reference)"),
        ("remote launch 1 KiB in + 1 KiB result / TCP echo 1 KiB between two processes",
         lambda r: r["rtt_us"]["echo_1k"]["median"] / r["tcp_echo_processes_us"]["median"], "(for reference)"),
        ("64 MiB launch throughput / socket copy throughput", lambda r: r["bulk_ratio"], "at least 0.5x"),
    ]:
        add(f"| {label} | {ratio(value(free))} | {ratio(value(pinned))} | {target} |")
    add("")
    add(f"The remote round trip's two ends are two processes (the client and the session's worker), the TCP "
        "echo's two threads of one process; the reference row with the echo between two processes shows what "
        f"that alone does: free, the launch costs {ratio(free['rtt_us']['echo_1k']['median'] / free['tcp_echo_processes_us']['median'])} "
        f"the two-process echo against {ratio(free['rtt_ratio']['echo_1k'])} the threads' echo (whose own runs "
        f"spread from {fmt(free['tcp_echo_us']['min'])} to {fmt(free['tcp_echo_us']['max'])} us), pinned "
        f"{ratio(pinned['rtt_us']['echo_1k']['median'] / pinned['tcp_echo_processes_us']['median'])} against "
        f"{ratio(pinned['rtt_ratio']['echo_1k'])}. With free placement the ratio to the threads' echo moves from run "
        "to run with where the wake-ups land; pinned, it is the software path.")
    add("")
    add("Between requests, the worker polls its socket for 50 us before it blocks on it "
        "([runtime/src/polling.rs](../runtime/src/polling.rs), the same poll as `launch_async`'s threads), so a "
        "client that launches in a loop finds the worker still on its CPU, where both ends of the echo block "
        "and are woken for every message"
        + (f": that is why, free, the launch takes {ratio(free['rtt_ratio']['echo_1k'])} the echo's time"
           if context["findings"]["remote"]["faster_than_echo_free"] else "")
        + ". The price is up to 50 us of the server's CPU after every response. Pinned, neither side polls a TCP "
        "connection (a process that may run on one CPU only blocks at once: the other side needs that CPU), so "
        "each side makes the echo's two system calls per round trip.")
    add("")
    if "bulk_first_s" in free:
        add("Of the 64 MiB launches, the first of each process takes longer than the later ones (medians, "
            + both(rs, lambda r: f"{fmt(r['bulk_first_s']['median'] * 1e3)} ms against "
                             f"{fmt(r['bulk_later_s']['median'] * 1e3)} ms")
            + "): the worker reads a launch's inputs into the buffers of the previous launch, so only the first "
            "reads into new memory (page faults and zeroed pages); on the client, the input goes out from the "
            "memref's own buffer either way.")
        add("")
    return lines


def figure_name(figure: dict) -> str:
    """A figure of --before REV as the verdict's sentence names it."""
    name = BEFORE_AFTER_FIGURES[figure["measure"]][0]
    if figure["size"] is not None:
        return f"{name} at N = {figure['size']:,}"
    return f"{name}, {PLACEMENT_LABELS[figure['placement']]}"


def before_after_verdict(context: dict) -> str:
    """The run's verdict against REV, in a sentence."""
    judged = context["before_after_verdicts"]
    names = {figure["id"]: figure_name(figure) for figure in context["before_after"]["summary"]}
    if judged["overall"] == NO_WORSE:
        return "**no worse** in every figure."
    if judged["overall"] == WORSE:
        return "**worse** in " + "; ".join(names[name] for name in judged["worse"]) + "."
    return ("no figure is worse beyond the noise, but these are inconclusive: "
            + "; ".join(names[name] for name in judged["inconclusive"]) + ".")


def interval(figure: dict) -> str:
    """A figure's interval of after/before, with its level when it falls short."""
    text = f"{ratio(figure['low'])} - {ratio(figure['high'])}"
    if figure["level"] < BEFORE_AFTER_LEVEL:
        text += f" (only {figure['level']:.0%})"
    return text


def before_and_after(context: dict) -> list:
    """With --before REV: each figure of this tree against REV's, measured in
    alternation in this run, and whether it is no worse."""
    if "before_after" not in context:
        return []
    compared, config, machine = context["before_after"], context["config"], context["machine"]
    judged = context["before_after_verdicts"]["figures"]
    sizes = sorted({figure["size"] for figure in compared["summary"] if figure["size"] is not None})
    bound, level = BEFORE_AFTER_BOUND, f"{BEFORE_AFTER_LEVEL:.0%}"
    lines = []
    add = lines.append
    add("## Before and after")
    add("")
    add(f"`bench/run.py --before {compared['revision']}` (`make bench BEFORE={compared['revision']}`) compares "
        f"this tree, \"after\" (commit {machine['commit']}), with commit {compared['short']}, \"before\" "
        f"({compared['subject']}), in this run: the compile-time and run-time figures no worse than "
        "before. The before revision was checked out in a git worktree at `target/bench/before/tree` and built "
        "there with `cargo build --release` (its whole workspace) into `target/bench/before/target`"
        + (", seeded with a copy of this tree's `target/release/{deps,build,.fingerprint}`" if compared["seeded"]
           else " (kept from an earlier `--before` run, so the build was incremental)")
        + f": {compared['build_s'] / 60:.1f} minutes"
        + (f" with `CARGO_BUILD_JOBS={compared['jobs']}`" if compared["jobs"] else "")
        + f", before the run started and not counted in its time; the measurements below took "
        f"{compared['elapsed_min']:.1f} minutes of the run.")
    add("")
    add(f"**Verdict:** {before_after_verdict(context)}")
    add("")
    add("Both revisions get the same inputs, this tree's: the modules of "
        "[bench/gen_launches.py](../bench/gen_launches.py) and the programs of [Commands](#commands) with the "
        "same counts. Each revision lowers them with its own `executor-opt` and runs them with its own "
        "`libexecutor_runtime.so` and `executor-server`. Compile time: `/usr/bin/time -v executor-opt "
        f"launches_N.mlir --pass-pipeline='builtin.module(convert-executor-to-llvm)' -o /dev/null --mlir-timing`, "
        + ", ".join(f"{config.before_compile_runs[size]} runs at {size:,}" for size in sizes)
        + " for each revision after a warm-up run of each: the pass time from `--mlir-timing`, the whole process "
        "as the harness times that command, the peak RSS from GNU time. Run time: "
        f"{config.before_runs} process runs of each program for each revision and placement "
        f"({config.before_first_launch_runs} of the first launch on a server; a first launch, on a "
        f"server or of the many-kernel object, runs after {FIRST_LAUNCH_PAUSE_S:g} s idle, as in "
        "[First launch](#first-launch)). The runs alternate "
        "between the revisions (after, before, then before, after, and so on), so that the machine's load hits "
        "both alike, and each run is paired with the other revision's run next to it.")
    add("")
    add(f"After/before is the median of the pairs' ratios (below 1.00x: faster now; the medians of each "
        f"revision's runs are there for scale), with the distribution-free {level} interval of that median (the "
        f"sign test's: from the k-th smallest to the k-th largest ratio). With fewer than "
        f"{BEFORE_AFTER_FEWEST_PAIRS} pairs no interval reaches {level}: the one from the smallest to the largest "
        f"ratio is shown with the level it has. A figure is **no worse** when its interval ends at or below "
        f"{ratio(bound)} (slower by at most {(bound - 1) * 100:.0f}%, the tolerance: differences finer than that, "
        f"such as from code layout, are not judged), **worse** when the interval starts above {ratio(bound)}, and "
        f"inconclusive otherwise: its noise in this run is wider than the tolerance, or the interval falls short "
        f"of {level} ([bench/harness/verdicts.py](../bench/harness/verdicts.py)). The after figures were "
        "measured again here, alternating with the before ones, and differ a little from those above.")
    add("")
    add("| N | measure | unit | before (median) | after (median) | after/before | interval | pairs | verdict |")
    add("|---|---|---|---|---|---|---|---|---|")
    for figure in compared["summary"]:
        if figure["size"] is None:
            continue
        name, unit, scale = BEFORE_AFTER_FIGURES[figure["measure"]]
        add(f"| {figure['size']:,} | {name} | {unit} | {fmt(figure['before']['median'] * scale)} "
            f"| {fmt(figure['after']['median'] * scale)} | {ratio(figure['ratio'])} | {interval(figure)} "
            f"| {figure['pairs']} | {BEFORE_AFTER_MARKS[judged[figure['id']]]} |")
    add("")
    add("| figure | placement | unit | before (median) | after (median) | after/before | interval | pairs "
        "| verdict |")
    add("|---|---|---|---|---|---|---|---|---|")
    for figure in compared["summary"]:
        if figure["size"] is not None:
            continue
        name, unit, scale = BEFORE_AFTER_FIGURES[figure["measure"]]
        add(f"| {name} | {figure['placement']} | {unit} | {fmt(figure['before']['median'] * scale)} "
            f"| {fmt(figure['after']['median'] * scale)} | {ratio(figure['ratio'])} | {interval(figure)} "
            f"| {figure['pairs']} | {BEFORE_AFTER_MARKS[judged[figure['id']]]} |")
    add("")
    return lines


def micro_benchmarks(context: dict) -> list:
    """The Criterion micro-benchmarks."""
    config, rs = context["config"], context["runtime"]
    lines = []
    add = lines.append
    criterion = context["criterion"]["results"]
    add("## In-process micro-benchmarks (Criterion)")
    add("")
    add("[runtime/benches/local.rs](../runtime/benches/local.rs) and "
        "[runtime/benches/encoding.rs](../runtime/benches/encoding.rs), run by `cargo bench -p executor-runtime "
        + " ".join(f"--bench {name}" for name in CRITERION_BENCHES)
        + "` through the runtime's Rust API (no C ABI, no MLIR program around it); each group has its baseline "
        "measured in the same run. Criterion settings: 0.3 s warm-up, 1 s of measurement, 30 samples"
        + (" (shortened by `--quick`)" if config.quick else "")
        + "; the median is Criterion's estimate of the median time per iteration, with its 95% confidence "
        "interval.")
    add("")
    for group, description in CRITERION_DESCRIPTIONS.items():
        add(f"- `{group}`: {description}.")
    add("")
    add("| group | benchmark | input | median | 95% interval | ratio to the baseline |")
    add("|---|---|---|---|---|---|")
    for entry in criterion:
        compared = f"{ratio(entry['ratio'])} (`{entry['baseline']}`)" if entry["baseline"] else "-"
        add(f"| {entry['group']} | `{entry['function']}` | {entry['input'] or '-'} | {ns(entry['median_ns'])} "
            f"| {ns(entry['low_ns'])} - {ns(entry['high_ns'])} | {compared} |")
    add("")
    launch = next((entry for entry in criterion
                   if entry["group"] == "local_launch" and entry["function"] == "executor" and entry["input"] == "empty"),
                  None)
    if launch:
        add(f"A launch of the empty kernel through `LocalExecutor::launch` takes {ns(launch['median_ns'])} here "
            f"against {fmt(rs['local_ns']['median'])} ns per `executor.launch` in the MLIR program above, which "
            "goes through the C ABI: after a site's first launch, `__executor__launch_at_site` runs it from the "
            "site's own cache (`runtime/src/c_api/site_cache.rs`: the session and the generation compared "
            "under a sequence lock, no lock, allocation, clock read or string work; the site holds what the "
            "launch passes unchanged, so the call takes four arguments, all in registers), so what remains is "
            "that check, the call into the runtime, the crash guard's record of the running kernel, found by the "
            "thread pointer (`runtime/src/local/crash/record.rs`), and the lowered host loop itself.")
        direct = next((entry for entry in criterion if entry["group"] == "local_launch"
                       and entry["function"] == "baseline_direct_call" and entry["input"] == "empty"), None)
        if direct:
            add(f"A direct call of the same empty entry through a function pointer takes {ns(direct['median_ns'])} "
                f"in this run: the launch from the MLIR program costs "
                f"{ratio(rs['local_ns']['median'] / direct['median_ns'])} that.")
        add("")
    return lines


def rtt_bounds() -> str:
    """The round trip's bounds, per placement."""
    return ", ".join(f"{ratio(bound)} {placement}" for placement, bound in TARGET_RTT.items())


def symbol_cells(row: dict) -> str:
    """A profile row's "where | symbol" cells (`[k]`: in the kernel)."""
    return f"{row['dso']} | `{row['symbol']}`{' [k]' if row['kernel'] else ''}"


def subsection(title: str):
    """A `###` section of "Where the time goes": its lines so far (the title)
    and the function that adds a line."""
    lines = [f"### {title}", ""]
    return lines, lines.append


def where_the_time_goes(context: dict) -> list:
    """The profile figures of the missed targets."""
    verdicts = context["verdicts"]
    lines = []
    add = lines.append
    add("## Where the time goes")
    add("")
    if profiled_missed(verdicts):
        add("A note on the CPU profiles below: on this virtual machine perf samples with the `cpu-clock` timer, "
            "and a sample that falls while the kernel has interrupts disabled is taken when they are enabled "
            "again, so kernel time spent with interrupts off (scheduling, waking threads, page allocation) shows "
            "up as `_raw_spin_unlock_irqrestore` and `_raw_spin_unlock_irq`.")
        add("")
    if not missed(verdicts):
        add("Every target is met.")
        add("")
    elif not profiled_missed(verdicts):
        add("Every target profiled here is met; the missed ones are judged in their sections: "
            + ", ".join(f"`{name}`" for name in missed(verdicts)) + ".")
        add("")
    if compile_missed(verdicts):
        lines += compile_notes(context)
    if not verdicts["memory"]:
        lines += memory_notes(context)
    if not verdicts["local"]:
        lines += local_launch_notes(context)
    if not verdicts["async"]:
        lines += async_notes(context)
    if not verdicts["rtt"]:
        lines += remote_notes(context)
    if not verdicts["bulk"]:
        lines += bulk_notes(context)
    if not verdicts["first_launch"]:
        lines += first_launch_notes(context)
    if not verdicts["local_first_launch"]:
        lines += local_first_launch_notes(context)
    if not verdicts["big_object"]:
        lines += big_object_notes(context)
    return lines


def compile_notes(context: dict) -> list:
    """CPU profiles of the executor pass."""
    lines, add = subsection("Compile time")
    add("The `--mlir-timing` table above splits each process into parsing, the pass and printing; the "
        "pass is the only part this project's Rust code runs in. CPU profiles of the executor lowering "
        "(`perf record -e cpu-clock`, whole process):")
    add("")
    compile_profile = context["profiles"].get("compile", {})
    for size, top in sorted(compile_profile.items()):
        add(f"N = {size:,} ({fmt(top['cpu_ms'])} ms of CPU time):")
        add("")
        lines += profile_table(top["rows"])
        add("")
    if not compile_profile:
        add("(perf was not available: no CPU profile.)")
        add("")
    return lines


def memory_notes(context: dict) -> list:
    """Where the peak memory is."""
    lines, add = subsection("Memory")
    add("See the peak RSS columns above: the parse+print column is what the input module alone costs.")
    add("")
    return lines


def async_notes(context: dict) -> list:
    """Why launch_async + await costs what it does."""
    config, rs = context["config"], context["runtime"]
    async_profile = context["profiles"].get("async", {})
    found = context["findings"]["async"]
    threads_per_launch = found["threads_per_launch"]
    lines, add = subsection("`launch_async` + `await`")
    if found["thread_per_launch"]:
        add(f"Every `executor.launch_async` on the embedded executor starts an OS thread of its own "
            f"({threads_per_launch:.2f} `clone3` per launch+await in the `strace` count below), which "
            "`executor.await` then joins; MLIR's async runtime hands the region to a thread pool that is "
            "already running.")
    else:
        add(f"The embedded executor does not start a thread per launch ({threads_per_launch:.2f} `clone3` "
            "per launch+await in the `strace` count below); the gap is in handing the entry over and "
            "waking the awaiting thread.")
    add(f"[bench/thread_handoff.rs](../bench/thread_handoff.rs) measures the two mechanisms alone, "
        f"without MLIR or the runtime ({config.handoff_runs} runs of {config.handoff_iterations:,}):")
    add("")
    add("| mechanism | placement | min | median | max | to compare with (median of the whole launch+await) |")
    add("|---|---|---|---|---|---|")
    for placement in PLACEMENTS:
        for key, label, who, measured in [
            ("spawn_ns", "spawn a named thread + join", "`launch_async` + `await`",
             rs[placement]["async_executor_ns"]),
            ("handoff_ns", "hand off to a parked worker + wait on a condvar (a pool)",
             "MLIR's `async.execute` + `async.await`", rs[placement]["async_upstream_ns"]),
        ]:
            entry = async_profile.get(f"{key}_{placement}")
            if entry:
                add(f"| {label} | {placement} | {fmt(entry['min'] / 1000)} us | {fmt(entry['median'] / 1000)} us "
                    f"| {fmt(entry['max'] / 1000)} us | {who}: {fmt(measured['median'] / 1000)} us |")
    add("")
    if async_profile.get("syscalls"):
        add(f"System calls per launch+await (`strace -f`, {async_profile['syscall_iterations']:,} iterations; "
            "calls made at least once every two iterations):")
        add("")
        add("| call | per launch+await |")
        add("|---|---|")
        for call, count in async_profile["syscalls"].items():
            add(f"| `{call}` | {count:.2f} |")
        add("")
    if async_profile.get("perf"):
        top = async_profile["perf"]
        add(f"CPU profile of the whole process (`perf record -e cpu-clock`, {async_profile['perf_iterations']:,} "
            f"iterations, {fmt(top['cpu_ms'])} ms of CPU time including start-up; "
            f"{top['kernel_percent']:.0f} of the 12 top percentage points in the kernel):")
        add("")
        lines += profile_table(top["rows"])
        add("")
    return lines


def remote_notes(context: dict) -> list:
    """Why the remote round trip costs what it does."""
    machine, rs = context["machine"], context["runtime"]
    free, pinned = rs["free"], rs["pinned"]
    remote_profile = context["profiles"].get("remote", {})
    found = context["findings"]["remote"]
    lines, add = subsection("Remote round trip")
    add(f"Without any data, a remote launch costs {fmt(free['rtt_us']['nothing']['median'])} us "
        f"({ratio(free['rtt_ratio']['nothing'])} the 1 KiB TCP echo) with free placement and "
        f"{fmt(pinned['rtt_us']['nothing']['median'])} us ({ratio(pinned['rtt_ratio']['nothing'])}) pinned: "
        "the gap is a fixed cost per request, not the bytes.")
    add("")
    if remote_profile.get("server_syscalls"):
        add(f"System calls per launch (`strace -f -y`, {remote_profile['syscall_launches']:,} launches of "
            f"the three kinds; the kind of descriptor in parentheses), against a round trip of the TCP echo "
            f"({remote_profile['syscall_iterations']:,} round trips, both ends in one process):")
        add("")
        add("| executor-server (supervisor and worker) | per launch | client (mlir-runner) | per launch "
            "| TCP echo (both ends) | per round trip |")
        add("|---|---|---|---|---|---|")
        columns = [list(remote_profile["server_syscalls"].items()),
                   list(remote_profile["client_syscalls"].items()),
                   list(remote_profile["echo_syscalls"].items())]
        for index in range(max(len(column) for column in columns)):
            cells = []
            for column in columns:
                if index < len(column):
                    cells += [f"`{column[index][0]}`", f"{column[index][1]:.2f}"]
                else:
                    cells += ["", ""]
            add("| " + " | ".join(cells) + " |")
        add("")
        add(f"In total {found['syscalls_per_launch']:.0f} system calls per launch against "
            f"{found['syscalls_per_echo']:.0f} per echo round trip.")
        if found["status_pipe"]:
            add(f"The `pipe` calls are the worker announcing every launch to its supervisor before and "
                f"after the call, so a third process is woken per launch on a machine with "
                f"{machine['cores']} cores.")
        elif found["same_as_echo"]:
            add("That is the echo's count: per launch the client sends one frame and reads one, the worker "
                "reads one and sends one, and nothing else runs (the supervisor sleeps on a pidfd of the "
                "worker, and crash attribution is a few stores into memory shared with it, "
                "`tools/executor-server/src/status.rs`).")
        add("")
        if found["same_as_echo"] and found["missed_where"] == ["free"]:
            add(f"Pinned to one CPU, where the numbers measure the software path, the launch meets the target "
                f"({ratio(pinned['rtt_ratio']['echo_1k'])} with a result, "
                f"{ratio(pinned['rtt_ratio']['sink_1k'])} without). Free, the ratio depends on where the "
                "scheduler wakes each side and how long a halted virtual CPU takes to wake (see "
                "[Run time](#run-time)): in this run the echo's processes took from "
                f"{fmt(free['tcp_echo_us']['min'])} to {fmt(free['tcp_echo_us']['max'])} us per round trip and "
                f"the launch's from {fmt(free['rtt_us']['echo_1k']['min'])} to "
                f"{fmt(free['rtt_us']['echo_1k']['max'])} us, and the echo between two processes (the reference "
                f"row above) from {fmt(free['tcp_echo_processes_us']['min'])} to "
                f"{fmt(free['tcp_echo_processes_us']['max'])} us (median "
                f"{fmt(free['tcp_echo_processes_us']['median'])} us: the launch costs "
                f"{ratio(free['rtt_us']['echo_1k']['median'] / free['tcp_echo_processes_us']['median'])} that)."
                + (" The spread of the baseline's own runs is wider than the gap between the medians."
                   if found["echo_spread_wider_than_gap"] else ""))
            add("")
    return lines


def bulk_notes(context: dict) -> list:
    """Where the CPU time of a 64 MiB launch goes."""
    free = context["runtime"]["free"]
    bulk = context["profiles"].get("remote", {}).get("bulk")
    found = context["findings"]["bulk"]
    lines, add = subsection("64 MiB launch")
    if bulk:
        add(f"CPU time per 64 MiB transfer (`perf record -e cpu-clock` of runs with 1 and with "
            f"{1 + bulk['launches']} transfers, difference divided by {bulk['launches']}, so without the "
            f"processes' start-up): client (mlir-runner) {fmt(bulk['client_cpu_ms_per_transfer'])} ms, server "
            f"worker {fmt(bulk['worker_cpu_ms_per_transfer'])} ms, server supervisor "
            f"{fmt(bulk['supervisor_cpu_ms_per_transfer'])} ms; socket copy (both ends, python3) "
            f"{fmt(bulk['copy_cpu_ms_per_transfer'])} ms. In wall time (medians, free placement) a launch takes "
            f"{fmt(free['bulk_s']['median'] * 1e3)} ms and a copy {fmt(free['copy_s']['median'] * 1e3)} ms, "
            f"so the target allows a launch {fmt(found['budget_ms'])} ms" + over_budget(found["over_budget"]) + ".")
        add("")
        for key, label in [("client", "client (mlir-runner with libexecutor_runtime.so)"),
                           ("worker", f"server worker (command name `{bulk['worker_comm']}`)"),
                           ("copy", "socket copy baseline (python3)")]:
            top = bulk.get(key)
            if not top:
                continue
            add(f"Top symbols, {label}, run with {1 + bulk['launches']} transfers "
                f"({top['kernel_percent']:.0f} of these percentage points in the kernel):")
            add("")
            lines += profile_table(top["rows"])
            add("")
        add("The kernel symbols `exc_page_fault`, `do_anonymous_page`, `clear_page_erms`, `*folio*` and "
            "`*memcg*` are first touches of freshly allocated memory, `free_*`/`unmap_page_range` its "
            "release; `_copy_from_iter`/`_copy_to_iter` are the socket copies themselves"
            + ("; `serde_core::ser::Serializer::collect_seq` is postcard serializing the input's `Vec<u8>` "
               "one byte at a time" if found["bytewise_serialization"] else "")
            + ".")
        add("")
    return lines


def first_launch(context: dict) -> list:
    """The first launch of a program: open, send_binary and the first launch,
    on a server with and without a warm worker and on `local`, and
    send_binary of many kernels against dlopen."""
    config, rs = context["config"], context["runtime"]
    fs = rs["first_launch"]
    lines = []
    add = lines.append
    add("## First launch")
    add("")
    add("What a program pays before its first kernel has run: [bench/first_launch.mlir](../bench/first_launch.mlir) "
        "times `executor.open`, `executor.send_binary` of bench/kernels.mlir's object and the first "
        "`executor.launch` of its empty kernel with `rtclock`, in a process of its own (`mlir-runner`, as above), "
        f"so each run's session is the first its program opens; {config.first_launch_runs} runs of each kind, "
        f"alternating, each after the executor was left idle for {FIRST_LAUNCH_PAUSE_S} s (a program that runs "
        "now and then). The kinds: an executor-server as started by default (one warm worker waiting: "
        "docs/protocol.md, \"Warm workers\"), one with `--warm-workers 0` (each session starts its worker "
        "process, which loads LLVM and creates its JIT), the embedded executor `local` (the JIT created and "
        "the object linked in the program's process), and `local` with the same code as a shared library "
        "(`clang -shared`, sent with `format = 2`: `dlopen` and `dlsym`, the floor of loading code at all). "
        "Medians in microseconds:")
    add("")
    add("| kind | placement | open | send_binary | first launch | total (min / median / max) |")
    add("|---|---|---|---|---|---|")
    labels = {"warm": "executor-server, warm worker", "cold": "executor-server, `--warm-workers 0`",
              "local": "`local`, object file (JIT)", "local_dlopen": "`local`, shared library (dlopen)"}
    for placement in PLACEMENTS:
        for kind, label in labels.items():
            entry = fs[placement]["kinds"][kind]
            add(f"| {label} | {placement} | {fmt(entry['open']['median'])} | {fmt(entry['send_binary']['median'])} "
                f"| {fmt(entry['launch']['median'])} | {fmt(entry['total']['min'])} / "
                f"**{fmt(entry['total']['median'])}** / {fmt(entry['total']['max'])} |")
    add("")
    if all(fs[placement].get("tcp_first_contact_us") for placement in PLACEMENTS):
        add("What the network alone costs a first contact, after the same idle time: a TCP connect to a process "
            "listening on loopback and a round trip of one byte (`tcp_echo_rtt 1 1 first-contact`, once after each "
            "round of the kinds above) took "
            + both(fs, lambda r: f"{fmt(r['tcp_first_contact_us']['median'])} us "
                                 f"({fmt(r['tcp_first_contact_us']['min'])} to {fmt(r['tcp_first_contact_us']['max'])})")
            + " (medians): what an executor-server's `open` pays before the server has done anything.")
        add("")
    add("| ratio (medians of the totals) | free | pinned |")
    add("|---|---|---|")
    for label, key in [("warm worker / `--warm-workers 0`", "warm_over_cold"),
                       ("warm worker / `local`", "warm_over_local"),
                       ("`local` / `local` with dlopen", "local_over_dlopen")]:
        add(f"| {label} | {ratio(fs['free'][key])} | {ratio(fs['pinned'][key])} |")
    add("")
    memory = fs["free"]["warm_worker_kb"]
    if memory.get("workers"):
        add(f"What the warm worker costs while it waits (`/proc/PID/smaps_rollup` of the free server's "
            f"{memory['workers']} waiting worker{'s' if memory['workers'] > 1 else ''}, after the runs): "
            f"{fmt(memory['private'] / 1024)} MiB of its own (pages it wrote, `Private_Dirty`), "
            f"{fmt(memory['rss'] / 1024)} MiB resident in all, the rest files' pages, libLLVM's above all, shared "
            f"with the server and other workers or in the page cache (proportional share "
            f"{fmt(memory['pss'] / 1024)} MiB); one idle process per `--warm-workers`.")
        add("")
    big = fs["big_object"]
    add(f"`send_binary` of many kernels: [bench/gen_kernels.py](../bench/gen_kernels.py) writes {big['kernels']:,} "
        "kernels (each a loop scaling one `memref<?xf32>` into another, with its C interface) and an empty one, "
        f"compiled as above with `llc --function-sections` to an object of {fmt(big['bytes'] / (1 << 20))} MiB "
        "(which the executor opens as the shared library it linked it into at its first `send_binary`, or else "
        "links a piece at a time, from the layout it saved of it: docs/runtime-abi.md), "
        + (f"without it to an object of {fmt(big['whole_bytes'] / (1 << 20))} MiB (linked whole), "
           if big.get("whole_bytes") else "")
        + f"and linked with `clang -shared` to a library of {fmt(big['library_bytes'] / (1 << 20))} MiB; the same "
        f"program on `local` sends each and launches the empty kernel, {config.big_object_runs} runs each, "
        "alternating (medians, us):")
    add("")
    add("| binary | send_binary | first launch | both (min / median / max) |")
    add("|---|---|---|---|")
    c_kinds = [(f"c_{shape}{suffix}", f"C kernels, {C_SHAPE_LABELS[shape]}: {label}")
               for shape in big.get("c_ratios", {})
               for suffix, label in [("", "object file (opened as the library linked from it)"),
                                     ("_library", "shared library (dlopen)")]]
    for kind, label in [("object", "object file with function sections (opened as the library linked from it)"),
                        ("object_saved_layout", "the same without that library (JIT, linked a piece at a time "
                                                "from its saved layout)"),
                        ("object_read_anew", "the same, its layout read anew (no cache)"),
                        ("object_whole", "object file without (JIT, linked whole)"),
                        ("library", "shared library (dlopen)"), *c_kinds]:
        entry = big["kinds"].get(kind)
        if entry is None:
            continue
        add(f"| {label} | {fmt(entry['send_binary']['median'])} | {fmt(entry['launch']['median'])} "
            f"| {fmt(entry['load']['min'])} / **{fmt(entry['load']['median'])}** / {fmt(entry['load']['max'])} |")
    add("")
    layout_only = big["kinds"].get("object_saved_layout")
    add(f"The object takes {ratio(big['ratio'])} the library's time for both steps ({ratio(big['send_ratio'])} "
        "for `send_binary` alone, which maps the object, finds the library linked from it and opens it)"
        + (f"; without that library, {ratio(layout_only['load']['median'] / big['kinds']['library']['load']['median'])} "
           "(`send_binary` maps the object and the layout saved of it, the first launch links the empty kernel's "
           "piece; read anew, it reads the object's section headers, symbols and unwind entries instead)"
           if layout_only else "")
        + (f"; linked whole, {ratio(big['whole_ratio'])}." if big.get("whole_ratio") else "."))
    saving = big.get("saving_us", {})
    if saving:
        add("")
        add("Before these runs, each object was sent once on an empty cache, once it had not changed for a "
            "second, and saved its layout: `send_binary` then took "
            + ", ".join(f"{fmt(steps[1])} us ({saving_label(kind)})" for kind, steps in saving.items())
            + ", once per version of each file, as a build links a library once"
            + (f"; the libraries each run started linking in the background were there "
               f"{fmt(big['libraries_linked_s'])} s later." if big.get("libraries_linked_s") is not None else "."))
    if big.get("c_ratios"):
        add("")
        add(f"The C kernels ([bench/gen_kernels.py](../bench/gen_kernels.py) `--c`, {big['kernels']:,} of them, "
            "`clang -c -O2 -fPIC -ffunction-sections -fdata-sections`, and the same linked with `clang -shared`) "
            "are launched in the middle, a kernel that touches what it shares: "
            + "; ".join(f"{C_SHAPE_LABELS[shape]}, {ratio(value)} the library's time for both steps"
                        for shape, value in big["c_ratios"].items())
            + ". Linked a piece at a time (without the library), a static shared by all kernels is linked once, "
            "with the first piece that uses it, and adds one name per section to the object's JITDylib, however "
            "many labels the section has.")
    add("")
    return lines


# The shapes of C kernels of the send_binary benchmark (measure.C_SHAPES).
C_SHAPE_LABELS = {"shared": "sharing statics (a counter, a state object, a constant pool)",
                  "none": "each its own static"}


TRANSPORT_LABELS = {"tcp": "TCP loopback", "unix": "Unix socket", "plain": "plaintext TCP", "tls": "TLS"}
RTT_LABELS = {"echo_1k": "1 KiB in, 1 KiB result", "sink_1k": "1 KiB in, no result", "nothing": "no data"}
# The round trips a transport target judges, as its cells name them.
RTT_TARGET_LABELS = {"echo_1k": "with the 1 KiB result", "sink_1k": "without"}


def transports(context: dict) -> list:
    """The transports' costs (issue 29): a Unix socket against TCP loopback,
    TLS against plaintext TCP, when the run measured them."""
    if "transports" not in context:
        return []
    config, ts, judged = context["config"], context["transports"], context["verdicts"]
    placements = ts["placements"]
    lines = []
    add = lines.append
    add("## Transports")
    add("")
    add("What the transport costs: each pair of servers measured in alternation (the two orders in turn), with "
        "the processes free to run on any CPU and all pinned to CPU 0 (`taskset -c 0`, servers and clients); a "
        "target counts as met when it is met both ways, for the round trips with and without a result. A "
        "Unix socket against TCP loopback: [bench/remote_launch.mlir](../bench/remote_launch.mlir) "
        f"({config.remote_round_trips:,} round trips of each kind per process, {config.remote_runs} processes "
        f"each, the servers left idle for {AFTER_SESSION_PAUSE_S} s after each) against "
        "`executor-server --listen unix:PATH` (the client's address `unix:PATH`) and "
        "`executor-server --listen 127.0.0.1:0`.")
    add("")
    if ts["tls"]:
        add("TLS against plaintext TCP: an identity from `executor-server --gen-identity DIR`, one server with "
            "`--tls-cert DIR/cert.pem --tls-key DIR/key.pem` and one without, both on `127.0.0.1:0`; every client "
            "of this comparison runs with `EXECUTOR_CONFIG` naming a file with the TLS server's section "
            "`[127.0.0.1:PORT]` and its `tls_fingerprint = sha256:...`. The same round trips; "
            f"[bench/remote_bulk.mlir](../bench/remote_bulk.mlir) ({config.bulk_launches} launches of a 64 MiB "
            f"input per process, {config.bulk_runs} processes each); and "
            f"[bench/first_launch.mlir](../bench/first_launch.mlir) (open + send_binary + first launch, one "
            f"session per process, after {FIRST_LAUNCH_PAUSE_S} s idle, on servers with their default warm worker, "
            f"{config.first_launch_runs} processes each).")
    else:
        add("TLS against plaintext TCP: not measured: this build has no TLS (`executor-server --help` has no "
            "`--tls-cert`).")
    add("")
    add("| target | free | pinned | verdict |")
    add("|---|---|---|---|")

    def rtt_cells(key: str) -> str:
        return " | ".join(
            ", ".join(f"{ratio(placements[placement][key]['rtt_ratio'][kind])} {RTT_TARGET_LABELS[kind]}"
                      for kind in RTT_KINDS)
            for placement in PLACEMENTS)

    add(f"| 1 KiB round trip over a Unix socket at most {ratio(TARGET_UNIX_RTT)} TCP loopback's | "
        f"{rtt_cells('unix')} | {mark(judged['unix_rtt'])} |")
    if ts["tls"]:
        add(f"| 1 KiB round trip over TLS at most {ratio(TARGET_TLS_RTT)} plaintext's | {rtt_cells('tls')} "
            f"| {mark(judged['tls_rtt'])} |")
        add(f"| 64 MiB launch throughput over TLS at least {ratio(TARGET_TLS_BULK)} plaintext's | "
            + " | ".join(f"{ratio(placements[placement]['tls']['bulk_ratio'])} "
                         f"({fmt(placements[placement]['tls']['bulk_mib_s']['tls']['median'])} MiB/s vs "
                         f"{fmt(placements[placement]['tls']['bulk_mib_s']['plain']['median'])} MiB/s)"
                         for placement in PLACEMENTS)
            + f" | {mark(judged['tls_bulk'])} |")
        add(f"| first launch over TLS at most {fmt(TARGET_TLS_FIRST_LAUNCH_US / 1000)} ms more than plaintext's "
            "(medians) | "
            + " | ".join(f"{fmt(placements[placement]['tls']['first_launch_extra_us'] / 1000)} ms more "
                         f"({fmt(placements[placement]['tls']['first_launch']['tls']['total']['median'] / 1000)} ms "
                         f"vs {fmt(placements[placement]['tls']['first_launch']['plain']['total']['median'] / 1000)}"
                         " ms)"
                         for placement in PLACEMENTS)
            + f" | {mark(judged['tls_first_launch'])} |")
    else:
        add("| TLS: 1 KiB round trip, 64 MiB throughput, first launch | not measured | not measured "
            "| not measured: this build has no TLS |")
    add("")
    add("| measurement | transport | placement | unit | min | median | max | samples |")
    add("|---|---|---|---|---|---|---|---|")
    for placement in PLACEMENTS:
        for key in ("unix", "tls"):
            if key not in placements[placement]:
                continue
            entry = placements[placement][key]
            for transport, kinds in entry["rtt_us"].items():
                for kind, figure in kinds.items():
                    add(f"| remote launch, {RTT_LABELS[kind]} (per process run) | {TRANSPORT_LABELS[transport]} "
                        f"| {placement} | us | {fmt(figure['min'])} | {fmt(figure['median'])} | {fmt(figure['max'])} "
                        f"| {figure['n']} |")
            if key != "tls":
                continue
            for transport, figure in entry["bulk_mib_s"].items():
                add(f"| remote launch, 64 MiB input: throughput (per launch) | {TRANSPORT_LABELS[transport]} "
                    f"| {placement} | MiB/s | {fmt(figure['min'])} | {fmt(figure['median'])} | {fmt(figure['max'])} "
                    f"| {figure['n']} |")
            for transport, steps in entry["first_launch"].items():
                for step, label in [("open", "open"), ("total", "open + send_binary + first launch")]:
                    figure = steps[step]
                    add(f"| first launch: {label} | {TRANSPORT_LABELS[transport]} | {placement} | us "
                        f"| {fmt(figure['min'])} | {fmt(figure['median'])} | {fmt(figure['max'])} | {figure['n']} |")
    add("")
    return lines


def tracing(context: dict) -> list:
    """Tracing's cost per launch (issue 33), when the run measured it."""
    if "trace_cost" not in context:
        return []
    config, cost = context["config"], context["trace_cost"]
    local, remote = cost["local_ns"], cost["remote_us"]
    lines = ["## Tracing", ""]
    lines.append(
        "What `EXECUTOR_TRACE` costs ([tracing.md](tracing.md)): the same programs untraced and traced, in "
        "alternation (the two orders in turn), free placement. Local: "
        f"[bench/local_launch.mlir](../bench/local_launch.mlir) ({config.trace_local_launches:,} launches of an "
        f"empty kernel per process, {config.local_runs} processes each); traced, every launch takes the general "
        "path and writes its event to the file. Remote: "
        f"[bench/remote_launch.mlir](../bench/remote_launch.mlir)'s 1 KiB round trips "
        f"({config.remote_round_trips:,} per process, {config.remote_runs} processes each); traced, every reply "
        "is followed by the server's steps. Untraced, the local launch is the fast path, whose target is the "
        "local launch's above. No target is set for a traced launch: this is what it costs.")
    lines.append("")
    lines.append("| measurement | untraced (median) | traced (median) | cost per launch |")
    lines.append("|---|---|---|---|")
    lines.append(f"| local launch of an empty kernel | {ns(local['off']['median'])} | {ns(local['on']['median'])} "
                 f"| {ns(local['cost'])} |")
    lines.append(f"| remote launch, 1 KiB in and out | {fmt(remote['off']['median'])} us "
                 f"| {fmt(remote['on']['median'])} us | {fmt(remote['cost'])} us |")
    lines.append("")
    return lines


def local_launch_notes(context: dict) -> list:
    """Where a local launch goes, when it misses its target."""
    local = context["runtime"]["local_ns"]
    profile = context["profiles"].get("local", {})
    lines, add = subsection("Local launch")
    add(f"The same program's runs took from {fmt(local['min'])} to {fmt(local['max'])} ns per launch (median "
        f"{fmt(local['median'])} ns), with the same binary and inputs in every run.")
    add("")
    if profile.get("rows"):
        add(f"A CPU profile (`perf record -e cpu-clock`) of one `mlir-runner` process making "
            f"{profile['launches']:,} launches ({fmt(profile['measured_ns'])} ns per launch by its own clock; "
            f"{fmt(profile['ns_per_launch'])} ns of CPU time per launch for the whole process, its start-up "
            "included), each top symbol's CPU time per launch:")
        add("")
        add("| ns per launch | where | symbol |")
        add("|---|---|---|")
        for row in profile["rows"]:
            add(f"| {fmt(row['ns'])} | {symbol_cells(row)} |")
        rest = profile["ns_per_launch"] - sum(row["ns"] for row in profile["rows"])
        add(f"| {fmt(rest)} | the rest | the lowered host loop and the kernel (JIT'd code, which perf does not "
            "name), and the start-up's other symbols |")
        add("")
    return lines


def first_launch_notes(context: dict) -> list:
    """Where a first launch on a server goes, when it misses its target."""
    fs = context["runtime"]["first_launch"]
    profile = context["profiles"].get("first_launch", {})
    lines, add = subsection("First launch on a server")
    add("Medians per step, warm worker: "
        + both(fs, lambda r: ", ".join(f"{step} {fmt(r['kinds']['warm'][step]['median'])} us"
                                   for step in ("open", "send_binary", "launch"))) + ".")
    add("")
    if profile.get("timeline"):
        add("The server's system calls during one first launch (`strace -f -tt -y` of the server, the client not "
            f"traced; its steps took {', '.join(fmt(value) for value in profile['steps_us'])} us under the trace), "
            "from the accept of the connection, memory management and locks left out:")
        add("")
        add("| ms | pid | call |")
        add("|---|---|---|")
        for event in profile["timeline"]:
            add(f"| {event['ms']:.3f} | {event['pid']} | `{event['call'].replace('|', '/')}` |")
        add("")
    return lines


def local_first_launch_notes(context: dict) -> list:
    """Where a first launch on `local` goes, when it misses its target."""
    fs = context["runtime"]["first_launch"]
    lines, add = subsection("First launch on `local`")
    add("Medians per step, object against shared library: "
        + both(fs, lambda r: ", ".join(f"{step} {fmt(r['kinds']['local'][step]['median'])} / "
                                   f"{fmt(r['kinds']['local_dlopen'][step]['median'])} us"
                                   for step in ("open", "send_binary", "launch"))) + ".")
    add("")
    return lines


def saving_label(kind: str) -> str:
    """What object measure.save_layouts's `kind` sends."""
    return "the MLIR kernels" if kind == "object" else f"C kernels, {C_SHAPE_LABELS[kind[2:]]}"


def big_object_notes(context: dict) -> list:
    """Where send_binary of many kernels goes, when it misses its target."""
    big = context["runtime"]["first_launch"]["big_object"]
    profile = context["profiles"].get("big_object", {})
    lines, add = subsection(f"`send_binary` of {big['kernels']:,} kernels")
    if profile.get("rows"):
        steps = [statistics.median(values) for values in zip(*profile["steps_us"])]
        add(f"CPU profiles (`perf record -e cpu-clock`) of {profile['runs']} `mlir-runner` runs sending the object "
            "and as many sending the library, each cut to its `send_binary` and first launch (the runtime's debug "
            "log says when each call ended and how long it took), so that the runner's start-up and exit are "
            f"left out. The object's two calls took {fmt(profile['object_cpu_ms'])} ms of CPU time per run (their "
            f"steps took {', '.join(fmt(value) for value in steps)} us, medians, slower under the profiler), the "
            f"library's {fmt(profile['library_cpu_ms'])} ms. The object's top symbols, CPU ms per run "
            "(`[k]`: in the kernel):")
        add("")
        add("| CPU ms per run | where | symbol |")
        add("|---|---|---|")
        for row in profile["rows"]:
            add(f"| {fmt(row['ms'])} | {symbol_cells(row)} |")
        add("")
    tables = profile.get("tables")
    faults = profile.get("page_faults", {})
    if tables:
        read = tables["section_headers"] + tables["symbol_table"] + tables["unwind"]
        add(f"With function sections, the section headers, symbol table and unwind tables are most of the object: of its {fmt(tables['file'] / (1 << 20))} MiB, "
            f"{fmt(tables['section_headers'] / (1 << 20))} MiB of section headers ({tables['sections']:,} sections), "
            f"{fmt(tables['symbol_table'] / (1 << 20))} MiB of symbol table ({tables['symbols']:,} symbols) and "
            f"{fmt(tables['unwind'] / (1 << 20))} MiB of `.eh_frame` and its relocations: {fmt(read / (1 << 20))} MiB that "
            "an object read anew reads before anything is linked, and one with a saved layout does not.")
        add("")
    if faults.get("object") and faults.get("library"):
        add(f"Each page read or written for the first time is a page fault: {faults['object']:,} in the whole "
            f"process sending the object against {faults['library']:,} sending the library "
            "(`perf stat -e page-faults`, one run each), the file's pages mapped up to 16 at a time, the "
            "indexes' one at a time.")
        add("")
    return lines
