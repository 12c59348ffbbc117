#!/usr/bin/env python3
"""`make bench`: measures this project's compile-time and run-time cost side by
side with the nearest upstream MLIR machinery, in one run, and writes
docs/performance.md with its tables and the PNG plots under docs/performance/.

Every number in the report is measured by this script in the same run, and
every ratio compares medians measured in that run. Raw data and intermediate
files go to target/bench/ (results.json there holds every sample).

    bench/run.py            # what `make bench` runs (after bench/deps.sh)
    bench/run.py --quick    # fewer and smaller runs, to try the script out

Needs: target/release/{executor-opt,executor-server,libexecutor_runtime.so}
(`make build`), target/release/examples/tcp_echo_rtt (`cargo build --release -p
executor-runtime --example tcp_echo_rtt`), LLVM 22's mlir-opt, mlir-translate,
llc, mlir-runner and runner libraries, hyperfine, GNU time, rustc, matplotlib;
perf and strace for the profiles (skipped, and said so, when they fail).
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import resource
import shlex
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release"
LLVM = Path(os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-22"))
LLVM_BIN = LLVM / "bin"
LLVM_LIB = LLVM / "lib"
WORK = ROOT / "target" / "bench"
DOC = ROOT / "docs" / "performance.md"
PLOTS = ROOT / "docs" / "performance"
README = ROOT / "README.md"

EXECUTOR_OPT = BIN / "executor-opt"
EXECUTOR_SERVER = BIN / "executor-server"
RUNTIME_LIB = BIN / "libexecutor_runtime.so"
TCP_ECHO = BIN / "examples" / "tcp_echo_rtt"
MLIR_OPT = LLVM_BIN / "mlir-opt"
MLIR_TRANSLATE = LLVM_BIN / "mlir-translate"
LLC = LLVM_BIN / "llc"
MLIR_RUNNER = LLVM_BIN / "mlir-runner"
C_RUNNER_UTILS = LLVM_LIB / "libmlir_c_runner_utils.so"
RUNNER_UTILS = LLVM_LIB / "libmlir_runner_utils.so"
ASYNC_RUNTIME = LLVM_LIB / "libmlir_async_runtime.so"
GNU_TIME = Path("/usr/bin/time")

EXECUTOR_PIPELINE = "builtin.module(convert-executor-to-llvm)"
PARSE_PRINT_PIPELINE = "builtin.module()"
HOST_PIPELINE = "builtin.module(executor-llvm-lowering-stage)"
KERNEL_PIPELINE = (
    "builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,"
    "finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)"
)
ASYNC_PIPELINE = (
    "builtin.module(async-to-async-runtime,func.func(async-runtime-ref-counting,"
    "async-runtime-ref-counting-opt),convert-async-to-llvm,convert-scf-to-cf,convert-cf-to-llvm,"
    "convert-arith-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)"
)
EXECUTOR_PASS = "ConvertExecutorToLLVMPass"
UPSTREAM_PASS = "ConvertFuncToLLVMPass"

# The project's performance targets: the summary table of docs/performance.md
# says whether each is met.
TARGET_PER_OP = 1.0
TARGET_SCALING = 11.0
TARGET_MEMORY = 1.5
TARGET_LOCAL_NS = 1000.0
TARGET_ASYNC = 1.0
TARGET_RTT = 1.5
TARGET_BULK = 0.5

BULK_BYTES = 64 << 20


class Config:
    def __init__(self, quick: bool):
        self.quick = quick
        self.sizes = [1000, 10000, 100000]
        # hyperfine runs (after one warm-up run) and --mlir-timing/peak-memory runs, per size.
        self.hyperfine_runs = {1000: 20, 10000: 10, 100000: 7}
        self.timing_runs = {1000: 9, 10000: 9, 100000: 5}
        self.local_launches = 1_000_000  # fixed by bench/local_launch.mlir
        self.local_runs = 9
        self.async_iterations = 50_000
        self.async_runs = 7
        self.remote_round_trips = 10_000
        self.remote_runs = 9
        self.bulk_launches = 6
        self.bulk_runs = 5
        self.handoff_iterations = 20_000
        self.handoff_runs = 3
        self.profile_async_iterations = 20_000
        self.strace_iterations = 2_000
        self.profile_bulk_launches = 4
        # Criterion's own settings are in runtime/benches/*.rs; --quick shortens them.
        self.criterion_args = []
        if quick:
            self.sizes = [1000, 10000]
            self.hyperfine_runs = {1000: 3, 10000: 2}
            self.timing_runs = {1000: 2, 10000: 2}
            self.local_runs = 2
            self.async_iterations = 10_000
            self.async_runs = 2
            self.remote_round_trips = 1_000
            self.remote_runs = 2
            self.bulk_launches = 2
            self.bulk_runs = 1
            self.handoff_iterations = 5_000
            self.handoff_runs = 1
            self.profile_async_iterations = 2_000
            self.strace_iterations = 200
            self.profile_bulk_launches = 1
            self.criterion_args = ["--warm-up-time", "0.1", "--measurement-time", "0.2", "--sample-size", "10"]


# ---------------------------------------------------------------------------
# helpers


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def run(command, *, stdin=None, check=True, env=None, cwd=None) -> subprocess.CompletedProcess:
    command = [str(part) for part in command]
    result = subprocess.run(
        command, input=stdin, capture_output=True, text=True, env=env, cwd=cwd or ROOT
    )
    if check and result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"bench: `{shlex.join(command)}` failed with exit code {result.returncode}")
    return result


def floats(text: str) -> list:
    values = []
    for line in text.splitlines():
        line = line.strip()
        if re.fullmatch(r"[-+0-9.eE]+", line):
            values.append(float(line))
    return values


def stats(values) -> dict:
    values = list(values)
    return {
        "n": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
    }


def median(values) -> float:
    return statistics.median(values)


def fmt(value: float, digits: int = 3) -> str:
    """A number with `digits` significant digits, without scientific notation."""
    if value == 0 or value != value:
        return str(value)
    magnitude = abs(value)
    decimals = max(0, digits - 1 - int(math.floor(math.log10(magnitude))))
    return f"{value:,.{decimals}f}"


def ratio(value: float) -> str:
    return f"{value:.2f}x"


def verdict(met: bool) -> str:
    return "**met**" if met else "**missed**"


def render(template: Path, substitutions: dict) -> str:
    text = template.read_text()
    for key, value in substitutions.items():
        text = text.replace(f"@{key}@", str(value))
    leftover = re.findall(r"@[A-Z]+@", text)
    if leftover:
        raise SystemExit(f"bench: {template} still has {sorted(set(leftover))} after substitution")
    return text


def lower_host(template: Path, substitutions: dict, output: Path) -> Path:
    result = run([EXECUTOR_OPT, f"--pass-pipeline={HOST_PIPELINE}"], stdin=render(template, substitutions))
    output.write_text(result.stdout)
    return output


def runner_command(module: Path, libraries, optimization=None) -> list:
    command = [MLIR_RUNNER, module, "-e", "main", "-entry-point-result=void"]
    if optimization:
        command.append(optimization)
    command.append("-shared-libs=" + ",".join(str(library) for library in libraries))
    return command


HOST_LIBRARIES = [RUNTIME_LIB, C_RUNNER_UTILS, RUNNER_UTILS]
ASYNC_LIBRARIES = [ASYNC_RUNTIME, C_RUNNER_UTILS, RUNNER_UTILS]


def cpu_jiffies():
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    total = sum(fields[:8])
    return total - idle, total


def own_cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def busy_processes() -> list:
    """Other processes using a CPU right now (ps's lifetime %CPU over 20%)."""
    own = {os.getpid(), os.getppid()}
    result = run(["ps", "-eo", "pid=,ppid=,pcpu=,etime=,args="], check=False)
    busy = []
    for line in result.stdout.splitlines():
        parts = line.split(None, 4)
        if len(parts) < 5:
            continue
        pid, ppid, pcpu = int(parts[0]), int(parts[1]), float(parts[2])
        if pid in own or ppid == os.getpid() or pcpu < 20.0:
            continue
        busy.append({"pid": pid, "pcpu": pcpu, "elapsed": parts[3], "command": parts[4][:100]})
    return busy


# ---------------------------------------------------------------------------
# the machine


def machine_info() -> dict:
    lscpu = run(["lscpu"], check=False).stdout
    model = re.search(r"Model name:\s*(.+)", lscpu)
    hypervisor = re.search(r"Hypervisor vendor:\s*(.+)", lscpu)
    memory_kb = int(re.search(r"MemTotal:\s*(\d+)", Path("/proc/meminfo").read_text()).group(1))
    os_name = "unknown"
    os_release = Path("/etc/os-release")
    if os_release.exists():
        found = re.search(r'^PRETTY_NAME="?([^"\n]*)', os_release.read_text(), re.M)
        os_name = found.group(1) if found else os_name
    commit = run(["git", "rev-parse", "--short", "HEAD"], check=False).stdout.strip() or "unknown"
    dirty = run(["git", "status", "--porcelain", "--untracked-files=no"], check=False).stdout.strip()
    return {
        "cpu": (model.group(1).strip() if model else platform.processor())
        + (f" ({hypervisor.group(1).strip()} guest)" if hypervisor else ""),
        "cores": os.cpu_count(),
        "memory_gib": memory_kb / (1 << 20),
        "kernel": platform.release(),
        "os": os_name,
        "llvm": next((line.strip() for line in run([MLIR_OPT, "--version"], check=False).stdout.splitlines()
                      if "LLVM version" in line), "LLVM (unknown version)"),
        "rustc": run(["rustc", "--version"], check=False).stdout.strip(),
        "hyperfine": run(["hyperfine", "--version"], check=False).stdout.strip(),
        "python": platform.python_version(),
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


# ---------------------------------------------------------------------------
# compile time


TIMING_LINE = re.compile(r"^\s+([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*?)\s*$")


def parse_timing(stderr: str) -> dict:
    timings = {}
    for line in stderr.splitlines():
        found = TIMING_LINE.match(line)
        if found:
            timings[found.group(2)] = float(found.group(1))
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    timings["peak_rss_kb"] = int(rss.group(1)) if rss else None
    return timings


def compile_commands(size: int) -> dict:
    directory = WORK / "compile"
    launches = directory / f"launches_{size}.mlir"
    baseline = directory / f"baseline_{size}.mlir"
    return {
        "executor": [EXECUTOR_OPT, launches, f"--pass-pipeline={EXECUTOR_PIPELINE}", "-o", "/dev/null"],
        "executor parse+print": [EXECUTOR_OPT, launches, f"--pass-pipeline={PARSE_PRINT_PIPELINE}", "-o", "/dev/null"],
        "upstream": [MLIR_OPT, baseline, "--convert-func-to-llvm", "-o", "/dev/null"],
        "upstream parse+print": [MLIR_OPT, baseline, f"--pass-pipeline={PARSE_PRINT_PIPELINE}", "-o", "/dev/null"],
    }


def bench_compile(config: Config) -> dict:
    directory = WORK / "compile"
    directory.mkdir(parents=True, exist_ok=True)
    results = {}
    for size in config.sizes:
        for flag, name in [([], "launches"), (["--baseline"], "baseline")]:
            output = run([sys.executable, ROOT / "bench" / "gen_launches.py", size, *flag]).stdout
            (directory / f"{name}_{size}.mlir").write_text(output)
        commands = compile_commands(size)
        log(f"compile time, N = {size:,}: hyperfine, {config.hyperfine_runs[size]} runs per command")
        exported = directory / f"hyperfine_{size}.json"
        run(
            [
                "hyperfine", "-N", "--style", "none", "--warmup", "1",
                "--runs", config.hyperfine_runs[size], "--export-json", exported,
                *[shlex.join(str(part) for part in command) for command in commands.values()],
            ]
        )
        whole = {
            name: entry["times"]
            for name, entry in zip(commands, json.loads(exported.read_text())["results"])
        }
        log(f"compile time, N = {size:,}: --mlir-timing and peak memory, {config.timing_runs[size]} runs per command")
        timings = {name: [] for name in commands}
        for _ in range(config.timing_runs[size]):
            for name, command in commands.items():
                result = run([GNU_TIME, "-v", *command, "--mlir-timing"])
                timings[name].append(parse_timing(result.stderr))
        results[size] = {"whole": whole, "timing": timings}
    return results


def summarize_compile(raw: dict) -> dict:
    summary = {}
    for size, data in raw.items():
        whole = {name: stats(times) for name, times in data["whole"].items()}
        timing = data["timing"]
        passes = {
            "executor": stats(entry[EXECUTOR_PASS] for entry in timing["executor"]),
            "upstream": stats(entry[UPSTREAM_PASS] for entry in timing["upstream"]),
        }
        phases = {
            name: {
                phase: stats(entry.get(phase, 0.0) for entry in entries)
                for phase in ["Parser", "Output", "Total", EXECUTOR_PASS, UPSTREAM_PASS]
                if any(phase in entry for entry in entries)
            }
            for name, entries in timing.items()
        }
        rss = {name: stats(entry["peak_rss_kb"] for entry in entries) for name, entries in timing.items()}
        subtracted = {
            "executor": whole["executor"]["median"] - whole["executor parse+print"]["median"],
            "upstream": whole["upstream"]["median"] - whole["upstream parse+print"]["median"],
        }
        summary[size] = {
            "whole": whole,
            "pass": passes,
            "phases": phases,
            "rss_kb": rss,
            "subtracted": subtracted,
            "ratio_subtracted": subtracted["executor"] / subtracted["upstream"],
            "ratio_pass": passes["executor"]["median"] / passes["upstream"]["median"],
            "ratio_memory": rss["executor"]["median"] / rss["upstream"]["median"],
        }
    return summary


# ---------------------------------------------------------------------------
# run time


def compile_kernels() -> Path:
    directory = WORK / "runtime"
    directory.mkdir(parents=True, exist_ok=True)
    lowered = run([MLIR_OPT, ROOT / "bench" / "kernels.mlir", f"--pass-pipeline={KERNEL_PIPELINE}"]).stdout
    ir = run([MLIR_TRANSLATE, "--mlir-to-llvmir"], stdin=lowered).stdout
    kernels = directory / "kernels.o"
    run([LLC, "-filetype=obj", "-relocation-model=pic", "-o", kernels], stdin=ir)
    return kernels


class Server:
    """An executor-server on a free loopback port, optionally started through
    `prefix` (a command that execs it, e.g. taskset) or under `tracer` (a
    command that stays its parent, e.g. perf record or strace)."""

    def __init__(self, name: str, prefix=(), tracer=()):
        self.log_path = WORK / "runtime" / f"{name}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_file = open(self.log_path, "w")
        self.wrapped = bool(tracer)
        command = [*tracer, *prefix, EXECUTOR_SERVER, "--listen", "127.0.0.1:0"]
        self.process = subprocess.Popen(
            [str(part) for part in command], stdout=self.log_file, stderr=subprocess.STDOUT, cwd=ROOT
        )
        self.address = None
        deadline = time.time() + 30
        while time.time() < deadline:
            found = re.search(r"^listening on (\S+)", self.log_path.read_text(), re.M)
            if found:
                self.address = found.group(1)
                break
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        if not self.address:
            self.stop()
            raise SystemExit(f"bench: executor-server did not start:\n{self.log_path.read_text()}")
        if not self.address.startswith("127.0.0.1:"):
            self.stop()
            raise SystemExit(f"bench: executor-server listens on {self.address}, not on loopback")

    def server_pid(self) -> int:
        """executor-server's pid: the process itself, or the tracer's child."""
        if not self.wrapped:
            return self.process.pid
        children = []
        for task in Path(f"/proc/{self.process.pid}/task").glob("*"):
            try:
                children += [int(pid) for pid in (task / "children").read_text().split()]
            except OSError:
                pass
        return children[0] if children else self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            # SIGTERM to executor-server itself (it stops its sessions and
            # exits); a tracer around it then ends with it.
            try:
                os.kill(self.server_pid(), signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.server_pid(), signal.SIGKILL)
                self.process.kill()
                self.process.wait()
        self.log_file.close()


# Where the processes of a run-time comparison may run: anywhere (the
# scheduler's choice over every CPU), or all on CPU 0 (`taskset -c 0`), which
# takes waking a thread on another, idle CPU out of the measurement.
PLACEMENTS = {"free": [], "pinned": ["taskset", "-c", "0"]}
PLACEMENT_LABELS = {"free": "free placement", "pinned": "pinned to one CPU"}


def bench_local(config: Config, kernels: Path) -> dict:
    directory = WORK / "runtime"
    local = lower_host(ROOT / "bench" / "local_launch.mlir", {"KERNELS": kernels}, directory / "local_launch.llvm.mlir")
    log(f"local launch: {config.local_runs} runs of {config.local_launches:,} launches")
    local_ns = []
    for _ in range(config.local_runs):
        local_ns += floats(run(runner_command(local, HOST_LIBRARIES)).stdout)
    return {"local_ns": local_ns}


def bench_async(config: Config, kernels: Path, placement: str) -> dict:
    directory = WORK / "runtime"
    prefix = PLACEMENTS[placement]
    async_launch = lower_host(
        ROOT / "bench" / "async_launch.mlir",
        {"KERNELS": kernels, "N": config.async_iterations},
        directory / "async_launch.llvm.mlir",
    )
    async_execute = directory / "async_execute.llvm.mlir"
    lowered = run(
        [MLIR_OPT, f"--pass-pipeline={ASYNC_PIPELINE}"],
        stdin=render(ROOT / "bench" / "async_execute.mlir", {"N": config.async_iterations}),
    ).stdout
    async_execute.write_text(lowered)
    log(f"launch_async+await vs async.execute+await, {PLACEMENT_LABELS[placement]}: {config.async_runs} runs each "
        f"of {config.async_iterations:,}, alternating")
    executor_ns, upstream_ns = [], []
    for _ in range(config.async_runs):
        executor_ns += floats(run([*prefix, *runner_command(async_launch, HOST_LIBRARIES, "-O0")]).stdout)
        upstream_ns += floats(run([*prefix, *runner_command(async_execute, ASYNC_LIBRARIES, "-O0")]).stdout)
    return {"executor_ns": executor_ns, "upstream_ns": upstream_ns}


def bench_remote(config: Config, kernels: Path, placement: str) -> dict:
    directory = WORK / "runtime"
    prefix = PLACEMENTS[placement]
    server = Server(f"server-{placement}", prefix)
    try:
        substitutions = {"ADDRESS": server.address, "KERNELS": kernels}
        rtt = lower_host(
            ROOT / "bench" / "remote_launch.mlir",
            {**substitutions, "N": config.remote_round_trips},
            directory / f"remote_launch_{placement}.llvm.mlir",
        )
        bulk = lower_host(
            ROOT / "bench" / "remote_bulk.mlir",
            {**substitutions, "N": config.bulk_launches, "ELEMENTS": BULK_BYTES // 4},
            directory / f"remote_bulk_{placement}.llvm.mlir",
        )
        log(f"remote 1 KiB round trips vs TCP echo, {PLACEMENT_LABELS[placement]}: {config.remote_runs} runs each "
            f"of {config.remote_round_trips:,}, alternating")
        kinds = {"echo_1k": [], "sink_1k": [], "nothing": []}
        tcp_echo, tcp_echo_processes = [], []
        for _ in range(config.remote_runs):
            values = floats(run([*prefix, *runner_command(rtt, HOST_LIBRARIES)]).stdout)
            if len(values) != 3:
                raise SystemExit(f"bench: remote_launch printed {values}, expected three numbers")
            for kind, value in zip(kinds, values):
                kinds[kind].append(value)
            tcp_echo += floats(run([*prefix, TCP_ECHO, 1024, config.remote_round_trips]).stdout)
            tcp_echo_processes += floats(
                run([*prefix, TCP_ECHO, 1024, config.remote_round_trips, "processes"]).stdout)
        log(f"remote 64 MiB launches vs socket copy, {PLACEMENT_LABELS[placement]}: {config.bulk_runs} runs each "
            f"of {config.bulk_launches}, alternating")
        bulk_s, copy_s = [], []
        for _ in range(config.bulk_runs):
            bulk_s += floats(run([*prefix, *runner_command(bulk, HOST_LIBRARIES)]).stdout)
            copy_s += floats(run(
                [*prefix, sys.executable, ROOT / "bench" / "socket_copy.py", BULK_BYTES, config.bulk_launches]
            ).stdout)
    finally:
        server.stop()
    return {"rtt_us": kinds, "tcp_echo_us": tcp_echo, "tcp_echo_processes_us": tcp_echo_processes,
            "bulk_s": bulk_s, "copy_s": copy_s}


def summarize_placement(asynchronous: dict, remote: dict, launches: int) -> dict:
    summary = {
        "async_executor_ns": stats(asynchronous["executor_ns"]),
        "async_upstream_ns": stats(asynchronous["upstream_ns"]),
        "rtt_us": {kind: stats(values) for kind, values in remote["rtt_us"].items()},
        "tcp_echo_us": stats(remote["tcp_echo_us"]),
        "tcp_echo_processes_us": stats(remote["tcp_echo_processes_us"]),
        "bulk_s": stats(remote["bulk_s"]),
        "copy_s": stats(remote["copy_s"]),
    }
    summary["async_ratio"] = summary["async_executor_ns"]["median"] / summary["async_upstream_ns"]["median"]
    summary["rtt_ratio"] = {
        kind: values["median"] / summary["tcp_echo_us"]["median"] for kind, values in summary["rtt_us"].items()
    }
    mib = BULK_BYTES / (1 << 20)
    summary["bulk_mib_s"] = stats(mib / value for value in remote["bulk_s"])
    summary["copy_mib_s"] = stats(mib / value for value in remote["copy_s"])
    summary["bulk_ratio"] = summary["copy_s"]["median"] / summary["bulk_s"]["median"]
    # Each process times `launches` launches one after the other: its first
    # reads into new memory on the worker, the later ones into the same.
    if launches > 1:
        summary["bulk_first_s"] = stats(remote["bulk_s"][0::launches])
        summary["bulk_later_s"] = stats(value for index, value in enumerate(remote["bulk_s"]) if index % launches)
    return summary


def summarize_runtime(raw: dict, config: Config) -> dict:
    summary = {"local_ns": stats(raw["local"]["local_ns"])}
    for placement in PLACEMENTS:
        summary[placement] = summarize_placement(raw["async"][placement], raw["remote"][placement],
                                                 config.bulk_launches)
    return summary


# ---------------------------------------------------------------------------
# Criterion micro-benchmarks (runtime/benches/*.rs)

CRITERION_BENCHES = ["local", "encoding"]
CRITERION_DIR = ROOT / "target" / "criterion"
# Each group of the benches: what it measures, and the baseline its other
# benchmarks are compared with (the benchmark of that function id with the same
# input, or else without one).
CRITERION_GROUPS = {
    "local_launch": (
        "`LocalExecutor::launch` of a JIT-compiled kernel (empty: no arguments; memref_1KiB: one "
        "`memref<256xf32>` in and the same one back as the result), against calling the same entry through a "
        "function pointer with the same arguments", "baseline_direct_call"),
    "launch_async_await": (
        "`launch_async` + `await_launch` of an empty `void(void)` entry, against handing the same call to a "
        "parked thread through two `std::sync::mpsc` channels, and against a thread started and joined per call",
        "baseline_mpsc_handoff"),
    "frame_encode": (
        "a `Launch` request with one input of the given size encoded as one frame by postcard "
        "(`protocol::encode_frame`, still how every other message is sent) and as the client sends a launch "
        "(`LaunchFrame`: the bytes around the input encoded, then all written to `io::sink()` with vectored "
        "writes, the input's bytes from where they are), against copying the frame's bytes into a new `Vec`",
        "baseline_memcpy"),
    "frame_decode": (
        "the same frame read back from memory by `protocol::read_message` and as the worker reads a request "
        "(`protocol::read_request`, the input's bytes straight into the buffer of the previous launch), against "
        "the same copy", "baseline_memcpy"),
    "call_buffers": (
        "`executor.call`'s argument buffer of two 1 KiB buffers packed and unpacked (`packed.rs`), against a copy "
        "of its bytes", "baseline_memcpy"),
    "descriptor": (
        "a memref's elements gathered into a dense buffer (`Descriptor::to_dense`, contiguous and strided) and a "
        "result descriptor pointed at a `malloc`ed copy (`fill_from_dense`), against a copy of the same 1 KiB",
        "baseline_memcpy"),
}


def bench_criterion(config: Config) -> dict:
    """Runs the Criterion benches and reads each benchmark's median (and its
    95% confidence interval) from target/criterion/.../new/estimates.json."""
    cargo = os.environ.get("CARGO", "cargo")
    for group in CRITERION_GROUPS:
        # Results of a benchmark that no longer exists must not be reported.
        subprocess.run(["rm", "-rf", str(CRITERION_DIR / group)], check=True)
    log("Criterion micro-benchmarks: cargo bench -p executor-runtime " +
        " ".join(f"--bench {name}" for name in CRITERION_BENCHES))
    run([cargo, "bench", "-p", "executor-runtime", *[part for name in CRITERION_BENCHES for part in ("--bench", name)],
         "--", *config.criterion_args])
    results = []
    for benchmark in CRITERION_DIR.glob("**/new/benchmark.json"):
        info = json.loads(benchmark.read_text())
        if info["group_id"] not in CRITERION_GROUPS:
            continue
        estimates_path = benchmark.parent / "estimates.json"
        estimates = json.loads(estimates_path.read_text())["median"]
        results.append({
            "group": info["group_id"],
            "function": info["function_id"],
            "input": info.get("value_str"),
            "median_ns": estimates["point_estimate"],
            "low_ns": estimates["confidence_interval"]["lower_bound"],
            "high_ns": estimates["confidence_interval"]["upper_bound"],
            "order": estimates_path.stat().st_mtime,
        })
    groups = list(CRITERION_GROUPS)
    results.sort(key=lambda entry: (groups.index(entry["group"]), entry["order"]))
    for entry in results:
        baselines = [other for other in results
                     if other["group"] == entry["group"] and other["function"] == CRITERION_GROUPS[entry["group"]][1]]
        same_input = [other for other in baselines if other["input"] == entry["input"]]
        baseline = (same_input or baselines or [None])[0]
        is_baseline = entry["function"].startswith("baseline")
        entry["baseline"] = None if baseline is None or is_baseline else baseline["function"]
        entry["ratio"] = entry["median_ns"] / baseline["median_ns"] if entry["baseline"] else None
    return {"results": results}


def ns(value: float) -> str:
    """Nanoseconds in the unit that reads best."""
    for unit, scale in [("ms", 1e6), ("us", 1e3)]:
        if value >= scale:
            return f"{fmt(value / scale)} {unit}"
    return f"{fmt(value)} ns"


# ---------------------------------------------------------------------------
# profiles


def perf_event_count(text: str) -> int:
    """The total period of a `perf report` (for cpu-clock: nanoseconds of CPU time)."""
    found = re.search(r"# Event count \(approx\.\): (\d+)", text)
    return int(found.group(1)) if found else 0


def perf_top(data: Path, comm=None, limit: int = 12) -> dict:
    """Top symbols of a perf.data of cpu-clock samples (shares relative to
    `comm` when given), and the CPU time they cover."""
    command = ["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio", "--percentage", "relative"]
    if comm:
        command += ["--comm", comm]
    result = run(command, check=False)
    rows = []
    for line in result.stdout.splitlines():
        found = re.match(r"^\s+([0-9.]+)%\s+(\S+)\s+\[([.k])\]\s+(.+?)\s*$", line)
        if found:
            rows.append(
                {"percent": float(found.group(1)), "dso": found.group(2), "kernel": found.group(3) == "k",
                 "symbol": found.group(4)}
            )
    comms = perf_comms(data)
    share = comms["comms"].get(comm, 0.0) / 100 if comm else 1.0
    return {"rows": rows[:limit], "cpu_ms": comms["event_count"] * share / 1e6,
            "kernel_percent": sum(row["percent"] for row in rows if row["kernel"])}


def perf_comms(data: Path) -> dict:
    """Each command name's share (percent) of a perf.data's samples."""
    result = run(["perf", "report", "-i", data, "--no-children", "--sort", "comm", "--stdio"], check=False)
    comms = {}
    for line in result.stdout.splitlines():
        found = re.match(r"^\s+([0-9.]+)%\s+(.+?)\s*$", line)
        if found:
            comms[found.group(2)] = float(found.group(1))
    return {"comms": comms, "event_count": perf_event_count(result.stdout)}


STRACE_LINE = re.compile(r"^(\d+)\s+(\w+)\((.*)$")


def strace_counts(path: Path) -> dict:
    """Counts the system calls of an `strace -f -y -o` trace by (call, kind of
    the first descriptor: TCP socket, pipe, other)."""
    counts = {}
    for line in path.read_text(errors="replace").splitlines():
        found = STRACE_LINE.match(line)
        if not found:
            continue  # resumed calls, signals, exits
        call, arguments = found.group(2), found.group(3)
        descriptor = re.match(r"\[?\{?(?:fd=)?-?\d+<([^>]*)>", arguments)
        if descriptor:
            target = descriptor.group(1)
            kind = "TCP" if target.startswith(("TCP", "socket")) else "pipe" if target.startswith("pipe") else "file"
        else:
            kind = ""
        key = f"{call}({kind})" if kind else call
        counts[key] = counts.get(key, 0) + 1
    return counts


def per_operation(counts: dict, operations: int, threshold: float = 0.5) -> dict:
    return {
        call: count / operations
        for call, count in sorted(counts.items(), key=lambda item: -item[1])
        if count / operations >= threshold
    }


def available(tool: str) -> bool:
    try:
        return subprocess.run([tool, "--version"], capture_output=True).returncode == 0
    except OSError:
        return False


def profile_compile(config: Config, cs: dict) -> dict:
    """perf profiles of the executor pass at the two largest sizes (taken when
    a compile-time target is missed)."""
    if not available("perf"):
        return {}
    directory = WORK / "profile"
    directory.mkdir(parents=True, exist_ok=True)
    profile = {}
    for size in sorted(cs)[-2:]:
        log(f"profile: perf record of executor-opt at N = {size:,}")
        data = directory / f"compile_{size}.perf.data"
        command = compile_commands(size)["executor"]
        recorded = run(["perf", "record", "-q", "-e", "cpu-clock", "-c", 100_000, "-o", data, *command], check=False)
        if recorded.returncode == 0:
            profile[size] = perf_top(data, limit=15)
    return profile


def profile_async(config: Config, kernels: Path) -> dict:
    directory = WORK / "profile"
    directory.mkdir(parents=True, exist_ok=True)
    profile = {}
    handoff = directory / "thread_handoff"
    run(["rustc", "-O", "--edition", "2021", ROOT / "bench" / "thread_handoff.rs", "-o", handoff])
    for placement, prefix in PLACEMENTS.items():
        log(f"profile: thread spawn vs handoff, {PLACEMENT_LABELS[placement]}: {config.handoff_runs} runs of "
            f"{config.handoff_iterations:,}")
        spawn, handed = [], []
        for _ in range(config.handoff_runs):
            for line in run([*prefix, handoff, config.handoff_iterations]).stdout.splitlines():
                name, value = line.split()
                (spawn if name == "spawn" else handed).append(float(value))
        profile[f"spawn_ns_{placement}"] = stats(spawn)
        profile[f"handoff_ns_{placement}"] = stats(handed)

    module = lower_host(
        ROOT / "bench" / "async_launch.mlir",
        {"KERNELS": kernels, "N": config.strace_iterations},
        directory / "async_launch_strace.llvm.mlir",
    )
    if available("strace"):
        log("profile: strace of launch_async+await")
        trace = directory / "async_launch.strace"
        run(["strace", "-f", "-y", "-o", trace, *runner_command(module, HOST_LIBRARIES, "-O0")])
        profile["syscalls"] = per_operation(strace_counts(trace), config.strace_iterations)
        profile["syscall_iterations"] = config.strace_iterations
    if available("perf"):
        log("profile: perf record of launch_async+await")
        module = lower_host(
            ROOT / "bench" / "async_launch.mlir",
            {"KERNELS": kernels, "N": config.profile_async_iterations},
            directory / "async_launch_perf.llvm.mlir",
        )
        data = directory / "async_launch.perf.data"
        recorded = run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-c", "20000", "-o", data,
             *runner_command(module, HOST_LIBRARIES, "-O0")],
            check=False,
        )
        if recorded.returncode == 0:
            profile["perf"] = perf_top(data)
            profile["perf_iterations"] = config.profile_async_iterations
    return profile


def profile_bulk_run(kernels: Path, count: int, stem: Path):
    """perf profiles of `count` 64 MiB launches (a server and a client of their
    own) and of `count` socket copies; None when perf fails."""
    period_ns = 100_000
    record = ["perf", "record", "-q", "-e", "cpu-clock", "-c", period_ns, "-o"]
    server_data = Path(f"{stem}_server.perf.data")
    client_data = Path(f"{stem}_client.perf.data")
    copy_data = Path(f"{stem}_copy.perf.data")
    server = Server(f"server-perf-{count}", tracer=[*record, server_data])
    try:
        module = lower_host(
            ROOT / "bench" / "remote_bulk.mlir",
            {"ADDRESS": server.address, "KERNELS": kernels, "N": count, "ELEMENTS": BULK_BYTES // 4},
            Path(f"{stem}.llvm.mlir"),
        )
        client = run([*record, client_data, *runner_command(module, HOST_LIBRARIES)], check=False)
    finally:
        server.stop()
    copied = run([*record, copy_data, sys.executable, ROOT / "bench" / "socket_copy.py", BULK_BYTES, count],
                 check=False)
    if client.returncode != 0 or copied.returncode != 0 or not server_data.exists():
        return None
    server_comms = perf_comms(server_data)
    # The worker is executor-server re-executed (/proc/self/exe), so its
    # command name is "exe"; the supervisor's threads keep executor-server's.
    worker_comm = max(
        (comm for comm in server_comms["comms"] if not comm.startswith("executor-serv")),
        key=lambda comm: server_comms["comms"][comm],
        default=None,
    )
    if worker_comm is None:
        return None
    supervisor_share = sum(share for comm, share in server_comms["comms"].items() if comm != worker_comm)
    client_top, worker_top, copy_top = perf_top(client_data), perf_top(server_data, worker_comm), perf_top(copy_data)
    return {
        "client": client_top,
        "worker": worker_top,
        "copy": copy_top,
        "worker_comm": worker_comm,
        "client_cpu_ms": client_top["cpu_ms"],
        "worker_cpu_ms": worker_top["cpu_ms"],
        "supervisor_cpu_ms": server_comms["event_count"] * supervisor_share / 100 / 1e6,
        "copy_cpu_ms": copy_top["cpu_ms"],
    }


def profile_remote(config: Config, kernels: Path) -> dict:
    directory = WORK / "profile"
    directory.mkdir(parents=True, exist_ok=True)
    profile = {}
    if available("strace"):
        log("profile: strace of remote 1 KiB launches (server and client) and of the TCP echo")
        trace = directory / "server.strace"
        server = Server("server-strace", tracer=["strace", "-f", "-y", "-o", trace])
        try:
            module = lower_host(
                ROOT / "bench" / "remote_launch.mlir",
                {"ADDRESS": server.address, "KERNELS": kernels, "N": config.strace_iterations},
                directory / "remote_launch_strace.llvm.mlir",
            )
            client_trace = directory / "client.strace"
            run(["strace", "-f", "-y", "-o", client_trace, *runner_command(module, HOST_LIBRARIES)])
        finally:
            server.stop()
        launches = 3 * config.strace_iterations
        profile["server_syscalls"] = per_operation(strace_counts(trace), launches)
        profile["client_syscalls"] = per_operation(strace_counts(client_trace), launches)
        echo_trace = directory / "tcp_echo.strace"
        run(["strace", "-f", "-y", "-o", echo_trace, TCP_ECHO, 1024, config.strace_iterations])
        profile["echo_syscalls"] = per_operation(strace_counts(echo_trace), config.strace_iterations)
        profile["syscall_launches"] = launches
        profile["syscall_iterations"] = config.strace_iterations
    if available("perf"):
        # Two profiled runs of each side, with 1 and with 1 + K transfers: the
        # difference of their CPU times over K is the CPU time per transfer
        # without the processes' start-up; the symbols are the larger run's.
        extra = config.profile_bulk_launches
        bulk = {"launches": extra, "runs": {}}
        for count in (1, 1 + extra):
            log(f"profile: perf record of {count} 64 MiB launches (server and client) and socket copies")
            measured = profile_bulk_run(kernels, count, directory / f"bulk_{count}")
            if measured is None:
                bulk = None
                break
            bulk["runs"][count] = measured
        if bulk:
            small, large = bulk["runs"][1], bulk["runs"][1 + extra]
            for side in ("client", "worker", "supervisor", "copy"):
                bulk[f"{side}_cpu_ms_per_transfer"] = (large[f"{side}_cpu_ms"] - small[f"{side}_cpu_ms"]) / extra
            bulk.update({key: large[key] for key in ("client", "worker", "copy", "worker_comm")})
            profile["bulk"] = bulk
    return profile


# ---------------------------------------------------------------------------
# plots


def plot(compile_summary: dict, compile_raw: dict, runtime_raw: dict, runtime_summary: dict) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    PLOTS.mkdir(parents=True, exist_ok=True)
    files = {}
    sizes = sorted(compile_summary)
    colors = {"executor": "tab:blue", "upstream": "tab:orange"}
    labels = {"executor": "executor-opt convert-executor-to-llvm", "upstream": "mlir-opt --convert-func-to-llvm (baseline)"}

    figure, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    for name in ["executor", "upstream"]:
        passes = [compile_summary[size]["pass"][name] for size in sizes]
        medians = [entry["median"] for entry in passes]
        axes[0].errorbar(
            sizes, medians,
            yerr=[[m - e["min"] for m, e in zip(medians, passes)], [e["max"] - m for m, e in zip(medians, passes)]],
            marker="o", capsize=3, color=colors[name], label=labels[name],
        )
        subtracted = [compile_summary[size]["subtracted"][name] for size in sizes]
        axes[1].plot(sizes, subtracted, marker="o", color=colors[name], label=labels[name])
        rss = [compile_summary[size]["rss_kb"][name]["median"] / 1024 for size in sizes]
        axes[2].plot(sizes, rss, marker="o", color=colors[name], label=labels[name])
        parse = [compile_summary[size]["rss_kb"][f"{name} parse+print"]["median"] / 1024 for size in sizes]
        axes[2].plot(sizes, parse, marker=".", linestyle=":", color=colors[name], label=f"{name}: parse+print only")
    reference = compile_summary[sizes[0]]["pass"]["executor"]["median"]
    axes[0].plot(sizes, [reference * size / sizes[0] for size in sizes], linestyle="--", color="grey",
                 label="linear in N (from the executor pass at the smallest N)")
    axes[0].set_title("pass time (--mlir-timing), median, min-max bars")
    axes[1].set_title("whole process minus parse+print (hyperfine medians)")
    axes[2].set_title("peak resident memory (GNU time), median")
    for axis, unit in zip(axes, ["seconds", "seconds", "MiB"]):
        axis.set_xscale("log")
        if unit == "MiB":
            axis.set_ylim(bottom=0)
        else:
            axis.set_yscale("log")
        axis.set_xlabel("ops in the module (N)")
        axis.set_ylabel(unit)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    figure.tight_layout()
    files["compile"] = PLOTS / "compile_time.png"
    figure.savefig(files["compile"], dpi=110)
    plt.close(figure)

    def distribution(axis, groups, title, unit, target=None, target_label=None):
        names = list(groups)
        data = [groups[name] for name in names]
        axis.boxplot(data, showfliers=False, widths=0.5)
        for index, values in enumerate(data, start=1):
            spread = [index + (i - (len(values) - 1) / 2) * (0.25 / max(1, len(values))) for i in range(len(values))]
            axis.scatter(spread, values, s=14, alpha=0.7, zorder=3)
        axis.set_xticks(range(1, len(names) + 1))
        axis.set_xticklabels(names, fontsize=8)
        if target is not None:
            axis.axhline(target, color="red", linestyle="--", linewidth=1, label=target_label)
            axis.legend(fontsize=8)
        axis.set_title(title, fontsize=10)
        axis.set_ylabel(unit)
        axis.set_ylim(bottom=0)
        axis.grid(True, axis="y", alpha=0.3)

    figure, axes = plt.subplots(1, 3, figsize=(16, 4.8), gridspec_kw={"width_ratios": [1, 2, 2]})
    distribution(axes[0], {"executor.launch\n(local, empty kernel)": runtime_raw["local"]["local_ns"]},
                 "local launch: ns per launch,\none point per process run\n(1,000,000 launches each)",
                 "ns per launch", TARGET_LOCAL_NS, "target: 1 us")
    for axis, placement in zip(axes[1:], PLACEMENTS):
        raw, summary = runtime_raw["async"][placement], runtime_summary[placement]
        distribution(
            axis,
            {"executor.launch_async\n+ executor.await": [value / 1000 for value in raw["executor_ns"]],
             "async.execute\n+ async.await (MLIR)": [value / 1000 for value in raw["upstream_ns"]]},
            f"asynchronous launch of an empty entry, {PLACEMENT_LABELS[placement]}:\n"
            "us per launch+await, one point per process run",
            "us per launch+await",
            summary["async_upstream_ns"]["median"] / 1000 * TARGET_ASYNC, "target: 1.0x the MLIR median",
        )
    figure.tight_layout()
    files["local"] = PLOTS / "runtime_local.png"
    figure.savefig(files["local"], dpi=110)
    plt.close(figure)

    figure, axes = plt.subplots(2, 2, figsize=(13, 9), gridspec_kw={"width_ratios": [3, 2]})
    mib = BULK_BYTES / (1 << 20)
    for row, placement in zip(axes, PLACEMENTS):
        raw, summary = runtime_raw["remote"][placement], runtime_summary[placement]
        rtt = raw["rtt_us"]
        distribution(
            row[0],
            {"launch\n1 KiB in+out": rtt["echo_1k"], "launch\n1 KiB in": rtt["sink_1k"],
             "launch\nno data": rtt["nothing"], "TCP echo\n1 KiB": raw["tcp_echo_us"],
             "TCP echo, 1 KiB,\n2 processes": raw["tcp_echo_processes_us"]},
            f"remote round trip on loopback, {PLACEMENT_LABELS[placement]}:\n"
            "us, one point per process run (mean of its round trips)",
            "us per round trip",
            summary["tcp_echo_us"]["median"] * TARGET_RTT, "target: 1.5x the TCP echo median",
        )
        distribution(
            row[1],
            {"launch,\n64 MiB input": [mib / value for value in raw["bulk_s"]],
             "socket copy,\n64 MiB": [mib / value for value in raw["copy_s"]]},
            f"64 MiB over loopback, {PLACEMENT_LABELS[placement]}:\nMiB/s, one point per transfer",
            "MiB/s",
            summary["copy_mib_s"]["median"] * TARGET_BULK, "target: 0.5x the socket copy median",
        )
    figure.tight_layout()
    files["remote"] = PLOTS / "runtime_remote.png"
    figure.savefig(files["remote"], dpi=110)
    plt.close(figure)
    return files


# ---------------------------------------------------------------------------
# the report


def compile_targets(cs: dict) -> dict:
    sizes = sorted(cs)
    largest, middle = sizes[-1], sizes[-2] if len(sizes) > 1 else sizes[-1]
    per_op_ratios = {size: cs[size]["ratio_subtracted"] for size in sizes}
    pass_ratios = {size: cs[size]["ratio_pass"] for size in sizes}
    memory_ratios = {size: cs[size]["ratio_memory"] for size in sizes}
    scaling_pass = cs[largest]["pass"]["executor"]["median"] / cs[middle]["pass"]["executor"]["median"]
    scaling_process = cs[largest]["subtracted"]["executor"] / cs[middle]["subtracted"]["executor"]
    return {
        "per_op_ratios": per_op_ratios,
        "pass_ratios": pass_ratios,
        "memory_ratios": memory_ratios,
        "scaling_pass": scaling_pass,
        "scaling_process": scaling_process,
        "scaling_upstream": cs[largest]["pass"]["upstream"]["median"] / cs[middle]["pass"]["upstream"]["median"],
        "per_op_met": all(value <= TARGET_PER_OP for value in [*per_op_ratios.values(), *pass_ratios.values()]),
        "scaling_met": scaling_pass <= TARGET_SCALING and scaling_process <= TARGET_SCALING,
        "memory_met": all(value <= TARGET_MEMORY for value in memory_ratios.values()),
    }


def stats_row(label: str, unit: str, entry: dict, scale: float = 1.0) -> str:
    return (f"| {label} | {unit} | {fmt(entry['min'] * scale)} | {fmt(entry['median'] * scale)} "
            f"| {fmt(entry['max'] * scale)} | {entry['n']} |")


def over_budget(bulk: dict, budget_ms: float) -> str:
    over = [name for side, name in [("client", "the client"), ("worker", "the server worker")]
            if bulk[f"{side}_cpu_ms_per_transfer"] > budget_ms]
    if len(over) == 2:
        return ": each side of the launch spends more CPU time than that on its own"
    if over:
        return f": {over[0]} alone spends more CPU time than that"
    return ""


def write_report(context: dict) -> None:
    machine = context["machine"]
    config = context["config"]
    cs = context["compile"]
    rs = context["runtime"]
    profiles = context["profiles"]
    plots = context["plots"]
    sizes = sorted(cs)
    largest, middle = sizes[-1], sizes[-2] if len(sizes) > 1 else sizes[-1]
    lines = []
    add = lines.append

    # --- targets
    targets = compile_targets(cs)
    per_op_ratios, pass_ratios = targets["per_op_ratios"], targets["pass_ratios"]
    per_op_met, scaling_met, memory_met = targets["per_op_met"], targets["scaling_met"], targets["memory_met"]
    scaling_pass, scaling_process = targets["scaling_pass"], targets["scaling_process"]
    scaling_upstream = targets["scaling_upstream"]
    memory_ratios = targets["memory_ratios"]
    free, pinned = rs["free"], rs["pinned"]
    local_met = rs["local_ns"]["median"] <= TARGET_LOCAL_NS
    async_met = all(rs[placement]["async_ratio"] <= TARGET_ASYNC for placement in PLACEMENTS)
    rtt_met = all(rs[placement]["rtt_ratio"][kind] <= TARGET_RTT
                  for placement in PLACEMENTS for kind in ("echo_1k", "sink_1k"))
    bulk_met = all(rs[placement]["bulk_ratio"] >= TARGET_BULK for placement in PLACEMENTS)
    verdicts = {"per_op": per_op_met, "scaling": scaling_met, "memory": memory_met, "local": local_met,
                "async": async_met, "rtt": rtt_met, "bulk": bulk_met}
    context["verdicts"] = verdicts
    context["headline"] = {
        "per_op_ratio": per_op_ratios[largest], "pass_ratio": pass_ratios[largest], "largest": largest,
        "middle": middle, "scaling_pass": scaling_pass, "scaling_process": scaling_process,
        "memory_ratio": memory_ratios[largest], "local_ns": rs["local_ns"]["median"],
        **{f"{name}_{placement}": value for placement in PLACEMENTS for name, value in [
            ("async_ratio", rs[placement]["async_ratio"]),
            ("rtt_ratio", max(rs[placement]["rtt_ratio"]["echo_1k"], rs[placement]["rtt_ratio"]["sink_1k"])),
            ("bulk_ratio", rs[placement]["bulk_ratio"])]},
    }

    def both(render_one) -> str:
        return "; ".join(f"{PLACEMENT_LABELS[placement]}: {render_one(rs[placement])}" for placement in PLACEMENTS)

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
    add("## Summary: the performance targets")
    add("")
    add("| target | measured | verdict |")
    add("|---|---|---|")
    add(f"| pass cost per op at most 1.0x upstream `--convert-func-to-llvm` (ratio of medians, parse+print "
        f"subtracted) | whole process minus parse+print: "
        + ", ".join(f"{ratio(per_op_ratios[size])} at {size:,}" for size in sizes)
        + "; pass alone (`--mlir-timing`): "
        + ", ".join(f"{ratio(pass_ratios[size])}" for size in sizes)
        + f" | {verdict(per_op_met)} |")
    add(f"| time at {largest:,} ops at most {TARGET_SCALING:.0f}x the time at {middle:,} | pass alone "
        f"{ratio(scaling_pass)}, whole process minus parse+print {ratio(scaling_process)} (upstream pass: "
        f"{ratio(scaling_upstream)}) | {verdict(scaling_met)} |")
    add(f"| peak memory at most {TARGET_MEMORY}x the baseline's | "
        + ", ".join(f"{ratio(memory_ratios[size])} at {size:,}" for size in sizes)
        + f" | {verdict(memory_met)} |")
    add(f"| local launch of an empty kernel: median at most 1 us | {fmt(rs['local_ns']['median'])} ns "
        f"| {verdict(local_met)} |")
    add(f"| `launch_async` + `await` at most 1.0x MLIR's `async.execute` + `async.await` | "
        + both(lambda r: f"{ratio(r['async_ratio'])} ({fmt(r['async_executor_ns']['median'] / 1000)} us vs "
                         f"{fmt(r['async_upstream_ns']['median'] / 1000)} us)")
        + f" | {verdict(async_met)} |")
    add(f"| remote launch with 1 KiB of inputs at most 1.5x a TCP echo of 1 KiB | "
        + both(lambda r: f"{ratio(r['rtt_ratio']['echo_1k'])} with the 1 KiB echoed back as the result, "
                         f"{ratio(r['rtt_ratio']['sink_1k'])} without a result "
                         f"({fmt(r['rtt_us']['echo_1k']['median'])} / {fmt(r['rtt_us']['sink_1k']['median'])} us "
                         f"vs {fmt(r['tcp_echo_us']['median'])} us)")
        + f" | {verdict(rtt_met)} |")
    add(f"| remote launch of a 64 MiB input at least 0.5x the throughput of a loopback socket copy | "
        + both(lambda r: f"{ratio(r['bulk_ratio'])} ({fmt(r['bulk_mib_s']['median'])} MiB/s vs "
                         f"{fmt(r['copy_mib_s']['median'])} MiB/s)")
        + f" | {verdict(bulk_met)} |")
    add("")
    add("The run-time comparisons between threads or processes were measured twice: with the processes free "
        "to run on any CPU, and all pinned to CPU 0 (`taskset -c 0`); a target counts as met when it is met "
        "both ways. See [Run time](#run-time) for why both.")
    add("")
    missed = [name for name, met in verdicts.items() if not met]
    if missed:
        add("Missed targets have a profile and a closing note under "
            "[Where the time goes](#where-the-time-goes).")
        add("")

    # --- machine
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
    if other["cores"] > 0.25:
        add(f"Another workload kept about {other['cores']:.1f} of the {machine['cores']} cores busy during this "
            "run, so absolute times (and the multi-process remote measurements most) are slower and noisier "
            "than on an idle machine. Contender and baseline were measured in alternation, so both saw the "
            "same load.")
        add("")

    # --- commands
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
        f"launches of an empty kernel per process, {config.local_runs} processes;")
    add(f"- asynchronous launch: [bench/async_launch.mlir](../bench/async_launch.mlir) against "
        f"[bench/async_execute.mlir](../bench/async_execute.mlir) (lowered by upstream `mlir-opt "
        f"--pass-pipeline='{ASYNC_PIPELINE}'`, run with `libmlir_async_runtime.so`), "
        f"{config.async_iterations:,} iterations per process, {config.async_runs} processes each, "
        "alternating; both with `mlir-runner -O0` (the coroutines of the baseline need it);")
    add(f"- remote round trips: `executor-server --listen 127.0.0.1:0` (the address read from its `listening on` "
        f"line), [bench/remote_launch.mlir](../bench/remote_launch.mlir), {config.remote_round_trips:,} round "
        f"trips of each kind per process, against `target/release/examples/tcp_echo_rtt 1024 "
        f"{config.remote_round_trips}` ([runtime/examples/tcp_echo_rtt.rs](../runtime/examples/tcp_echo_rtt.rs): "
        "the echoing end a thread of the timing process), and for reference the same with `processes` added "
        f"(the echoing end a process of its own, as an executor-server's worker is), {config.remote_runs} "
        "processes each, alternating;")
    add(f"- 64 MiB: [bench/remote_bulk.mlir](../bench/remote_bulk.mlir) on the same server, "
        f"{config.bulk_launches} launches per process timed one by one, against "
        f"[bench/socket_copy.py](../bench/socket_copy.py) `{BULK_BYTES} {config.bulk_launches}` (a loopback "
        f"TCP copy of the same bytes into a preallocated buffer, and a one-byte answer), {config.bulk_runs} "
        "processes each, alternating.")
    add("")

    # --- compile tables
    add("## Compile time")
    add("")
    add(f"![time and memory against N]({plots['compile'].relative_to(DOC.parent)})")
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
    add(f"Scaling from {middle:,} to {largest:,} ops (10x the ops): executor pass {ratio(scaling_pass)}, "
        f"executor whole process minus parse+print {ratio(scaling_process)}, upstream pass "
        f"{ratio(scaling_upstream)}, upstream whole process minus parse+print "
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

    # --- runtime tables
    add("## Run time")
    add("")
    add(f"![local launch distributions]({plots['local'].relative_to(DOC.parent)})")
    add("")
    add(f"![remote launch distributions]({plots['remote'].relative_to(DOC.parent)})")
    add("")
    echo_free, echo_pinned = free["tcp_echo_us"]["median"], pinned["tcp_echo_us"]["median"]
    add(f"Placement matters on this machine. The TCP echo round trip takes {fmt(echo_free)} us when its two "
        f"threads may run on different CPUs and {fmt(echo_pinned)} us when both are pinned to one; MLIR's "
        f"`async.execute` + `async.await` {fmt(free['async_upstream_ns']['median'] / 1000)} us and "
        f"{fmt(pinned['async_upstream_ns']['median'] / 1000)} us. Free, a wake-up often lands on the other "
        f"CPU, and on this virtual machine ({machine['cpu']}) waking an idle virtual CPU most likely goes "
        "through the hypervisor (an idle virtual CPU is halted, and waking it takes an inter-processor interrupt that the hypervisor delivers), which adds a cost that is the same for this project and its baseline and varies from "
        "run to run (the spread in the free rows below). Pinned, every wake-up is a context switch on one "
        "CPU, and the numbers measure the software path: the system calls and switches each side makes.")
    add("")
    add("| measurement | placement | unit | min | median | max | samples |")
    add("|---|---|---|---|---|---|---|")
    add(f"| local `executor.launch` of an empty kernel (per process run) | free | ns "
        f"| {fmt(rs['local_ns']['min'])} | {fmt(rs['local_ns']['median'])} | {fmt(rs['local_ns']['max'])} "
        f"| {rs['local_ns']['n']} |")
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
         "at most 1.5x"),
        ("remote launch 1 KiB in, no result / TCP echo 1 KiB", lambda r: r["rtt_ratio"]["sink_1k"], "at most 1.5x"),
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
           if free["rtt_ratio"]["echo_1k"] < 1.0 else "")
        + ". The price is up to 50 us of the server's CPU after every response; pinned, where the poll yields the "
        "one CPU to the client, the launch pays for the extra system calls of the poll.")
    add("")
    if "bulk_first_s" in free:
        add("Of the 64 MiB launches, the first of each process takes longer than the later ones (medians, "
            + both(lambda r: f"{fmt(r['bulk_first_s']['median'] * 1e3)} ms against "
                             f"{fmt(r['bulk_later_s']['median'] * 1e3)} ms")
            + "): the worker reads a launch's inputs into the buffers of the previous launch, so only the first "
            "reads into new memory (page faults and zeroed pages); on the client, the input goes out from the "
            "memref's own buffer either way.")
        add("")

    # --- criterion
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
    for group, (description, _) in CRITERION_GROUPS.items():
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
            f"against {fmt(rs['local_ns']['median'])} ns per `executor.launch` in the MLIR program above: the "
            "difference is the C ABI around it (`__catalyst__executor__launch` in `runtime/src/abi.rs` finds the "
            "session by its handle under a lock and formats its address for error messages, checks the C "
            "strings, collects the descriptors into vectors and reads the clock for `EXECUTOR_LOG=debug`) and "
            "the lowered host loop itself.")
        add("")

    # --- profiles
    add("## Where the time goes")
    add("")
    if missed:
        add("A note on the CPU profiles below: on this virtual machine perf samples with the `cpu-clock` timer, "
            "and a sample that falls while the kernel has interrupts disabled is taken when they are enabled "
            "again, so kernel time spent with interrupts off (scheduling, waking threads, page allocation) shows "
            "up as `_raw_spin_unlock_irqrestore` and `_raw_spin_unlock_irq`.")
        add("")
    if not missed:
        add("Every target is met.")
        add("")
    if not verdicts["per_op"] or not verdicts["scaling"]:
        add("### Compile time")
        add("")
        add("The `--mlir-timing` table above splits each process into parsing, the pass and printing; the "
            "pass is the only part this project's Rust code runs in. CPU profiles of the executor lowering "
            "(`perf record -e cpu-clock`, whole process):")
        add("")
        compile_profile = profiles.get("compile", {})
        for size, top in sorted(compile_profile.items()):
            add(f"N = {size:,} ({fmt(top['cpu_ms'])} ms of CPU time):")
            add("")
            add("| share | where | symbol |")
            add("|---|---|---|")
            for row in top["rows"]:
                add(f"| {row['percent']:.1f}% | {row['dso']} | `{row['symbol']}` |")
            add("")
        if not compile_profile:
            add("(perf was not available: no CPU profile.)")
            add("")
    if not verdicts["memory"]:
        add("### Memory")
        add("")
        add("See the peak RSS columns above: the parse+print column is what the input module alone costs.")
        add("")
    async_profile = profiles.get("async", {})
    if not verdicts["async"]:
        add("### `launch_async` + `await`")
        add("")
        syscalls = async_profile.get("syscalls", {})
        threads_per_launch = syscalls.get("clone3", 0.0) + syscalls.get("clone", 0.0)
        if threads_per_launch >= 0.9:
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
            add("| share | where | symbol |")
            add("|---|---|---|")
            for row in top["rows"]:
                add(f"| {row['percent']:.1f}% | {row['dso']} | `{row['symbol']}` |")
            add("")
        per_thread = [f"`{call}`" for call in syscalls if call not in ("futex", "rt_sigprocmask")]
        if threads_per_launch < 0.9:
            add("**What would close it:** the handoff measured above is the floor on this machine: wake a "
                "parked worker with one futex and let the awaiting thread spin briefly before it sleeps, so "
                "that an empty entry completes without two context switches.")
        else:
            add("**What would close it:** run async launches on a pool of worker threads started with the "
                "session (or on first use) in `LocalExecutor::launch_async`, with the token awaiting a "
                "completion flag and condition variable instead of `JoinHandle::join`; `close` then waits for "
                "the pool's outstanding work. That removes the thread's creation and exit from every launch"
                + (f" (the {', '.join(per_thread)} above)" if per_thread else "")
                + " and brings the cost to a handoff, as measured above.")
        add("")
    remote_profile = profiles.get("remote", {})
    if not verdicts["rtt"]:
        add("### Remote round trip")
        add("")
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
            server_total = sum(remote_profile["server_syscalls"].values())
            client_total = sum(remote_profile["client_syscalls"].values())
            echo_total = sum(remote_profile["echo_syscalls"].values())
            pipe_writes = remote_profile["server_syscalls"].get("write(pipe)", 0.0)
            add(f"In total {server_total + client_total:.0f} system calls per launch against {echo_total:.0f} per "
                "echo round trip.")
            same_as_echo = pipe_writes < 0.9 and server_total + client_total <= echo_total + 0.5
            if pipe_writes >= 0.9:
                add(f"The `pipe` calls are the worker announcing every launch to its supervisor before and "
                    f"after the call, so a third process is woken per launch on a machine with "
                    f"{machine['cores']} cores.")
            elif same_as_echo:
                add("That is the echo's count: per launch the client sends one frame and reads one, the worker "
                    "reads one and sends one, and nothing else runs (the supervisor sleeps on a pidfd of the "
                    "worker, and crash attribution is a few stores into memory shared with it, "
                    "`runtime/src/server/status.rs`).")
            add("")
            missed_where = [placement for placement in PLACEMENTS
                            if max(rs[placement]["rtt_ratio"][kind] for kind in ("echo_1k", "sink_1k")) > TARGET_RTT]
            if pipe_writes >= 0.9:
                add("**What would close it:** take the status pipe off the launch path (a table in memory "
                    "shared with the supervisor, read only after the worker died).")
            elif same_as_echo and missed_where == ["free"]:
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
                       if free['tcp_echo_us']['max'] - free['tcp_echo_us']['min']
                       > free['rtt_us']['echo_1k']['median'] - free['tcp_echo_us']['median'] else ""))
                add("")
                two_processes = free["rtt_us"]["echo_1k"]["median"] / free["tcp_echo_processes_us"]["median"]
                processes_cost_more = free["tcp_echo_processes_us"]["median"] > 1.2 * free["tcp_echo_us"]["median"]
                add("**What would close it:** nothing is left in the request path to remove: the launch makes the "
                    f"same system calls as the echo, costs {ratio(pinned['rtt_ratio']['echo_1k'])} of it pinned (the "
                    f"software path) and {ratio(two_processes)} the echo between two processes free. "
                    + ("What remains is that its two ends are two processes (the session's worker is a process of "
                       "its own so that a crashing kernel ends only its session), and free, on this virtual "
                       "machine, a round trip between two processes costs more than one between two threads of a "
                       f"process (the two echo rows: {fmt(free['tcp_echo_processes_us']['median'])} against "
                       f"{fmt(free['tcp_echo_us']['median'])} us). " if processes_cost_more else
                       "What remains is the wake-ups themselves. ")
                    + "Closing it would take giving up the worker process, or spinning on the socket before "
                    "sleeping on both ends (as `launch_async`'s threads do between entries), which burns a CPU on "
                    "the client for every request to a remote executor, where a real network round trip is longer "
                    "than any useful spin. Neither is done.")
            else:
                add("**What would close it:** the system calls above against the echo's, and the user-space "
                    "work around them (encoding, decoding, the call itself) in the worker and the client.")
            add("")
    if not verdicts["bulk"]:
        add("### 64 MiB launch")
        add("")
        bulk = remote_profile.get("bulk")
        if bulk:
            add(f"CPU time per 64 MiB transfer (`perf record -e cpu-clock` of runs with 1 and with "
                f"{1 + bulk['launches']} transfers, difference divided by {bulk['launches']}, so without the "
                f"processes' start-up): client (mlir-runner) {fmt(bulk['client_cpu_ms_per_transfer'])} ms, server "
                f"worker {fmt(bulk['worker_cpu_ms_per_transfer'])} ms, server supervisor "
                f"{fmt(bulk['supervisor_cpu_ms_per_transfer'])} ms; socket copy (both ends, python3) "
                f"{fmt(bulk['copy_cpu_ms_per_transfer'])} ms. In wall time (medians, free placement) a launch takes "
                f"{fmt(free['bulk_s']['median'] * 1e3)} ms and a copy {fmt(free['copy_s']['median'] * 1e3)} ms, "
                f"so the target allows a launch {fmt(free['copy_s']['median'] * 1e3 / TARGET_BULK)} ms"
                + over_budget(bulk, free['copy_s']['median'] * 1e3 / TARGET_BULK) + ".")
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
                add("| share | where | symbol |")
                add("|---|---|---|")
                for row in top["rows"]:
                    add(f"| {row['percent']:.1f}% | {row['dso']} | `{row['symbol']}` |")
                add("")
            client_symbols = {row["symbol"] for row in bulk["client"]["rows"]}
            add("The kernel symbols `exc_page_fault`, `do_anonymous_page`, `clear_page_erms`, `*folio*` and "
                "`*memcg*` are first touches of freshly allocated memory, `free_*`/`unmap_page_range` its "
                "release; `_copy_from_iter`/`_copy_to_iter` are the socket copies themselves"
                + ("; `serde_core::ser::Serializer::collect_seq` is postcard serializing the input's `Vec<u8>` "
                   "one byte at a time" if any("collect_seq" in symbol for symbol in client_symbols) else "")
                + ".")
            add("")
        add("**What would close it:** the bytes are already copied once per side (the client writes the "
            "frame with vectored writes from the memref's own buffer, the worker reads each input into the buffer "
            "of the previous launch); the profiles above show what is left on each side against the copy's.")
        add("")

    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text("\n".join(lines))


def update_readme(context: dict) -> None:
    """Rewrites the README's performance paragraph, between its markers."""
    begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
    text = README.read_text()
    if begin not in text or end not in text:
        return
    h = context["headline"]
    verdicts = context["verdicts"]
    claims = {
        "per_op": f"`convert-executor-to-llvm` costs {ratio(h['per_op_ratio'])} upstream `--convert-func-to-llvm` "
                  f"per op at {h['largest']:,} ops (target at most 1.0x)",
        "scaling": f"its time grows {ratio(h['scaling_pass'])} from {h['middle']:,} to {h['largest']:,} ops "
                   "(at most 11x)",
        "memory": f"its peak memory is {ratio(h['memory_ratio'])} the baseline's (at most 1.5x)",
        "local": f"a local launch costs {fmt(h['local_ns'])} ns (at most 1 us)",
        "async": f"`launch_async` + `await` costs {ratio(h['async_ratio_free'])} / {ratio(h['async_ratio_pinned'])} "
                 "MLIR's `async.execute` + `async.await` (at most 1.0x)",
        "rtt": f"a remote launch with 1 KiB of inputs costs {ratio(h['rtt_ratio_free'])} / {ratio(h['rtt_ratio_pinned'])} a TCP "
               "echo of 1 KiB (at most 1.5x)",
        "bulk": f"a 64 MiB launch reaches {ratio(h['bulk_ratio_free'])} / {ratio(h['bulk_ratio_pinned'])} the "
                "throughput of a loopback socket copy (at least 0.5x)",
    }

    def sentence(names) -> str:
        parts = [claims[name] for name in names]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

    met = [name for name in claims if verdicts[name]]
    missed = [name for name in claims if not verdicts[name]]
    paragraph = (
        f"{begin}\n"
        f"`make bench` (about {max(1, round(context['elapsed_min']))} minutes on this project's 2-core machine) "
        "measures compile and run time against upstream MLIR baselines in one run and writes "
        "[docs/performance.md](docs/performance.md): tables, plots and profiles. In the latest run"
        + (f", these targets are met: {sentence(met)}." if met and missed else "")
        + (f" every target is met: {sentence(met)}." if not missed else "")
        + (f"{',' if not met else ''} Not met yet (free placement / pinned to one CPU; the report profiles each "
           f"gap): {sentence(missed)}." if missed else "")
    )
    paragraph = f"{begin}\n" + textwrap.fill(paragraph[len(begin) + 1:], width=84, break_on_hyphens=False,
                                              break_long_words=False) + f"\n{end}"
    text = text[: text.index(begin)] + paragraph + text[text.index(end) + len(end):]
    README.write_text(text)


# ---------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer and smaller runs, to try the script out")
    args = parser.parse_args()
    config = Config(args.quick)

    for required in [EXECUTOR_OPT, EXECUTOR_SERVER, RUNTIME_LIB, TCP_ECHO, MLIR_OPT, MLIR_RUNNER, ASYNC_RUNTIME,
                     GNU_TIME]:
        if not Path(required).exists():
            raise SystemExit(f"bench: {required} is missing (make bench builds and installs what it needs)")
    WORK.mkdir(parents=True, exist_ok=True)
    started = time.time()
    busy_start, total_start = cpu_jiffies()
    own_start = own_cpu_seconds()
    busy_at_start = busy_processes()
    machine = machine_info()
    log(f"machine: {machine['cpu']}, {machine['cores']} cores")
    if busy_at_start:
        for entry in busy_at_start:
            log(f"note: another process is busy: pid {entry['pid']} {entry['pcpu']:.0f}% CPU: {entry['command']}")

    compile_raw = bench_compile(config)
    compile_summary = summarize_compile(compile_raw)
    kernels = compile_kernels()
    runtime_raw = {"local": bench_local(config, kernels), "async": {}, "remote": {}}
    for placement in PLACEMENTS:
        runtime_raw["async"][placement] = bench_async(config, kernels, placement)
        runtime_raw["remote"][placement] = bench_remote(config, kernels, placement)
    runtime_summary = summarize_runtime(runtime_raw, config)
    criterion = bench_criterion(config)
    profiles = {"async": profile_async(config, kernels), "remote": profile_remote(config, kernels)}
    targets = compile_targets(compile_summary)
    if not (targets["per_op_met"] and targets["scaling_met"]):
        profiles["compile"] = profile_compile(config, compile_summary)

    hertz = os.sysconf("SC_CLK_TCK")
    busy_end, total_end = cpu_jiffies()
    elapsed = time.time() - started
    own = own_cpu_seconds() - own_start
    other_cores = max(0.0, ((busy_end - busy_start) / hertz - own) / elapsed)
    plots = plot(compile_summary, compile_raw, runtime_raw, runtime_summary)
    context = {
        "machine": machine,
        "config": config,
        "compile": compile_summary,
        "runtime": runtime_summary,
        "profiles": profiles,
        "criterion": criterion,
        "plots": plots,
        "elapsed_min": (time.time() - started) / 60,
        "other_load": {"cores": other_cores, "busy": busy_at_start},
    }
    write_report(context)
    if not config.quick:
        update_readme(context)
    (WORK / "results.json").write_text(json.dumps(
        {"machine": machine, "compile_raw": compile_raw, "compile": compile_summary, "runtime_raw": runtime_raw,
         "runtime": runtime_summary, "criterion": criterion, "profiles": profiles, "verdicts": context["verdicts"],
         "headline": context["headline"], "other_load": context["other_load"],
         "elapsed_s": time.time() - started},
        indent=1, default=str))
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOTS.relative_to(ROOT)}/*.png in {elapsed / 60:.1f} minutes")
    for name, met in context["verdicts"].items():
        log(f"target {name}: {'met' if met else 'missed'}")


if __name__ == "__main__":
    main()
