"""What every job of the benchmark shares: paths, tools, pipelines, the run
configuration, and running a command."""
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BIN = ROOT / "target" / "release"
# The LLVM/MLIR prefix that .cargo/config.toml names (or $EXECUTOR_LLVM_PREFIX).
LLVM = Path(subprocess.run(["bash", str(ROOT / "scripts" / "llvm-prefix")],
                           capture_output=True, text=True, check=True).stdout.strip())
LLVM_BIN = LLVM / "bin"
LLVM_LIB = LLVM / "lib"
WORK = ROOT / "target" / "bench"
RESULTS = WORK / "results.json"
# The page of a --transports-only run: the full report stays as it is.
TRANSPORTS_DOC = WORK / "transports.md"
DOC = ROOT / "docs" / "performance.md"
PLOTS = ROOT / "docs" / "performance"

EXECUTOR_OPT = BIN / "executor-opt"
EXECUTOR_SERVER = BIN / "executor-server"
RUNTIME_LIB = BIN / "libexecutor_runtime.so"
TCP_ECHO = BIN / "examples" / "tcp_echo_rtt"
MLIR_OPT = LLVM_BIN / "mlir-opt"
MLIR_TRANSLATE = LLVM_BIN / "mlir-translate"
LLC = LLVM_BIN / "llc"
CLANG = LLVM_BIN / "clang"
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

BULK_BYTES = 64 << 20

# How long the server is left idle before each first-launch run: a program that
# runs now and then finds the server's warm worker waiting (a start-up takes
# tens of milliseconds of CPU time, and starts 50 ms after a session took a
# worker); sessions opened faster than that are not what this measures.
FIRST_LAUNCH_PAUSE_S = 0.5

# How long the server is left idle after a run of round trips, before the next
# run: the warm worker its session took is replaced then (on a server confined
# to one CPU, only once the session's worker leaves the CPU idle), not during
# the next measured run (another server's, or the TCP echo's).
AFTER_SESSION_PAUSE_S = 0.5

# Where the processes of a run-time comparison may run: anywhere (the
# scheduler's choice over every CPU), or all on CPU 0 (`taskset -c 0`), which
# takes waking a thread on another, idle CPU out of the measurement.
PLACEMENTS = {"free": [], "pinned": ["taskset", "-c", "0"]}
PLACEMENT_LABELS = {"free": "free placement", "pinned": "pinned to one CPU"}


class Binaries:
    """The binaries of one revision that `--before` compares: executor-opt
    (the lowering), the runtime library mlir-runner loads and executor-server."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.executor_opt = directory / "executor-opt"
        self.executor_server = directory / "executor-server"
        self.runtime_lib = directory / "libexecutor_runtime.so"

    def missing(self) -> list:
        return [path for path in (self.executor_opt, self.executor_server, self.runtime_lib) if not path.exists()]


# This tree's binaries (`make build`).
CURRENT = Binaries(BIN)


class Config:
    def __init__(self, quick: bool):
        self.quick = quick
        self.sizes = [1000, 10000, 100000]
        # hyperfine runs (after one warm-up run) and --mlir-timing/peak-memory runs, per size.
        self.hyperfine_runs = {1000: 20, 10000: 10, 100000: 7}
        self.timing_runs = {1000: 9, 10000: 9, 100000: 5}
        self.local_launches = 1_000_000
        self.local_runs = 9
        self.async_iterations = 50_000
        self.async_runs = 7
        self.remote_round_trips = 10_000
        self.remote_runs = 9
        # Tracing's cost: launches per process, traced and untraced (each
        # traced launch writes its event to the trace file).
        self.trace_local_launches = 200_000
        self.bulk_launches = 6
        self.bulk_runs = 5
        self.handoff_iterations = 20_000
        self.handoff_runs = 3
        self.profile_async_iterations = 20_000
        self.strace_iterations = 2_000
        self.profile_bulk_launches = 4
        # Enough that the launches, not mlir-runner's start-up, fill the profile.
        self.profile_local_launches = 50_000_000
        self.profile_big_object_runs = 5
        # Criterion's own settings are in runtime/benches/*.rs; --quick shortens them.
        self.criterion_args = []
        # --before REV: runs of each revision, alternating: per module size for
        # the compile time, per figure and placement for the run time.
        self.before_compile_runs = {1000: 20, 10000: 12, 100000: 9}
        self.before_runs = 12
        # The first launch on a server: its runs spread by a third on this
        # kind of machine, and 12 pairs did not resolve a change of 10%.
        self.before_first_launch_runs = 25
        # First launches: process runs of each kind (one session each), and the
        # object of many kernels that send_binary links against its dlopen.
        self.first_launch_runs = 15
        self.big_object_kernels = 10_000
        self.big_object_runs = 9
        if quick:
            self.sizes = [1000, 10000]
            self.hyperfine_runs = {1000: 3, 10000: 2}
            self.timing_runs = {1000: 2, 10000: 2}
            self.local_runs = 2
            self.async_iterations = 10_000
            self.async_runs = 2
            self.remote_round_trips = 1_000
            self.remote_runs = 2
            self.trace_local_launches = 20_000
            self.bulk_launches = 2
            self.bulk_runs = 1
            self.handoff_iterations = 5_000
            self.handoff_runs = 1
            self.profile_async_iterations = 2_000
            self.strace_iterations = 200
            self.profile_bulk_launches = 1
            self.profile_local_launches = 5_000_000
            self.profile_big_object_runs = 1
            self.criterion_args = ["--warm-up-time", "0.1", "--measurement-time", "0.2", "--sample-size", "10"]
            # Six pairs: the fewest whose interval reaches 95% (verdicts.py).
            self.before_compile_runs = {1000: 6, 10000: 6}
            self.before_runs = 6
            self.before_first_launch_runs = 6
            self.first_launch_runs = 3
            self.big_object_kernels = 1000
            self.big_object_runs = 2

    def to_json(self) -> dict:
        return dict(vars(self))

    @classmethod
    def from_json(cls, recorded: dict) -> "Config":
        """The configuration a run recorded in results.json (JSON turns the
        sizes, the keys of the per-size run counts, into strings)."""
        config = cls(recorded["quick"])
        for name, value in recorded.items():
            if name in ("hyperfine_runs", "timing_runs", "before_compile_runs"):
                value = {int(size): runs for size, runs in value.items()}
            setattr(config, name, value)
        return config


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
