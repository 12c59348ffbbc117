"""Measuring: the machine, the compile-time commands (hyperfine, --mlir-timing,
GNU time), the run-time programs (local, asynchronous and remote launches
against their baselines, on executor-servers of their own), the Criterion
micro-benchmarks and, for --before REV, this tree's binaries and REV's in
alternation. Every function here returns raw samples; statistics and verdicts
over them are in summary.py and verdicts.py."""
import datetime
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import (
    AFTER_SESSION_PAUSE_S, ASYNC_PIPELINE, ASYNC_RUNTIME, BULK_BYTES, C_RUNNER_UTILS, CLANG, EXECUTOR_OPT,
    EXECUTOR_PASS, EXECUTOR_PIPELINE, EXECUTOR_SERVER, FIRST_LAUNCH_PAUSE_S, GNU_TIME, HOST_PIPELINE,
    KERNEL_PIPELINE, LLC, MLIR_OPT, MLIR_RUNNER, MLIR_TRANSLATE,
    PARSE_PRINT_PIPELINE, PLACEMENT_LABELS, PLACEMENTS, ROOT, RUNNER_UTILS, RUNTIME_LIB, TCP_ECHO, WORK, Binaries,
    Config, log, run,
)


def floats(text: str) -> list:
    values = []
    for line in text.splitlines():
        line = line.strip()
        if re.fullmatch(r"[-+0-9.eE]+", line):
            values.append(float(line))
    return values



def render(template: Path, substitutions: dict) -> str:
    text = template.read_text()
    for key, value in substitutions.items():
        text = text.replace(f"@{key}@", str(value))
    leftover = re.findall(r"@[A-Z]+@", text)
    if leftover:
        raise SystemExit(f"bench: {template} still has {sorted(set(leftover))} after substitution")
    return text


def lower_host(template: Path, substitutions: dict, output: Path, executor_opt: Path = EXECUTOR_OPT) -> Path:
    result = run([executor_opt, f"--pass-pipeline={HOST_PIPELINE}"], stdin=render(template, substitutions))
    output.write_text(result.stdout)
    return output


def runner_command(module: Path, libraries, optimization=None) -> list:
    command = [MLIR_RUNNER, module, "-e", "main", "-entry-point-result=void"]
    if optimization:
        command.append(optimization)
    command.append("-shared-libs=" + ",".join(str(library) for library in libraries))
    return command


def host_libraries(runtime_lib: Path) -> list:
    return [runtime_lib, C_RUNNER_UTILS, RUNNER_UTILS]


HOST_LIBRARIES = host_libraries(RUNTIME_LIB)
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
        # Not needed by --transports-only, which may run where it is missing.
        "hyperfine": (run(["hyperfine", "--version"], check=False).stdout.strip() if shutil.which("hyperfine")
                      else "no hyperfine"),
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

# ---------------------------------------------------------------------------
# run time


def compile_object(source: str, kernels: Path, function_sections=False) -> Path:
    """Kernels (MLIR text) to the relocatable object file `kernels`, with
    upstream tools; with `function_sections`, each function in a section of
    its own (which the executor links a piece at a time)."""
    kernels.parent.mkdir(parents=True, exist_ok=True)
    lowered = run([MLIR_OPT, f"--pass-pipeline={KERNEL_PIPELINE}"], stdin=source).stdout
    ir = run([MLIR_TRANSLATE, "--mlir-to-llvmir"], stdin=lowered).stdout
    sections = ["--function-sections"] if function_sections else []
    run([LLC, "-filetype=obj", "-relocation-model=pic", *sections, "-o", kernels], stdin=ir)
    return kernels


def compile_kernels() -> Path:
    return compile_object((ROOT / "bench" / "kernels.mlir").read_text(), WORK / "runtime" / "kernels.o")


def shared_library(kernels: Path) -> Path:
    """The same code as a shared library (`clang -shared`), for send_binary's
    format 2, which the embedded executor loads with dlopen."""
    library = kernels.with_suffix(".so")
    run([CLANG, "-shared", "-o", library, kernels])
    return library


# The server's readiness line, "listening on ADDRESS" (matched in any case).
LISTENING = re.compile(r"^listening on (\S+)", re.M | re.I)


class Server:
    """An executor-server on a free loopback port (or on `listen`, a
    unix:PATH address), optionally started through `prefix` (a command that
    execs it, e.g. taskset) or under `tracer` (a command that stays its
    parent, e.g. perf record or strace); `executable` is the executor-server
    to start (another revision's, for --before)."""

    def __init__(self, name: str, prefix=(), tracer=(), executable: Path = EXECUTOR_SERVER, args=(),
                 listen: str = "127.0.0.1:0"):
        self.log_path = WORK / "runtime" / f"{name}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_file = open(self.log_path, "w")
        self.wrapped = bool(tracer)
        command = [*tracer, *prefix, executable, "--listen", listen, *args]
        self.process = subprocess.Popen(
            [str(part) for part in command], stdout=self.log_file, stderr=subprocess.STDOUT, cwd=ROOT
        )
        self.address = None
        deadline = time.time() + 30
        while time.time() < deadline:
            found = LISTENING.search(self.log_path.read_text())
            if found:
                self.address = found.group(1)
                break
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        if not self.address:
            self.stop()
            raise SystemExit(f"bench: executor-server did not start:\n{self.log_path.read_text()}")
        if self.address != listen and not self.address.startswith("127.0.0.1:"):
            self.stop()
            raise SystemExit(f"bench: executor-server listens on {self.address}, not on loopback or {listen}")

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


def bench_local(config: Config, kernels: Path) -> dict:
    """Local launches of the empty kernel (bench/local_launch.mlir) against
    direct calls of the same kernel from the same code as a shared library
    (bench/direct_call.mlir), and the same launches as Catalyst's lowering
    makes them (bench/catalyst_launch.mlir), alternating processes: ns per
    launch or call."""
    directory = WORK / "runtime"
    launches = config.local_launches
    programs = {
        "local_ns": (lower_host(ROOT / "bench" / "local_launch.mlir", {"KERNELS": kernels, "LAUNCHES": launches},
                                directory / "local_launch.llvm.mlir"), HOST_LIBRARIES),
        "catalyst_ns": (lower_host(ROOT / "bench" / "catalyst_launch.mlir", {"KERNELS": kernels,
                                                                             "LAUNCHES": launches},
                                   directory / "catalyst_launch.llvm.mlir"), HOST_LIBRARIES),
        "direct_call_ns": (lower_host(ROOT / "bench" / "direct_call.mlir", {"LAUNCHES": launches},
                                      directory / "direct_call.llvm.mlir"), [shared_library(kernels), *HOST_LIBRARIES]),
    }
    log(f"local launch vs direct call: {config.local_runs} runs each of {launches:,}, alternating")
    samples = {name: [] for name in programs}
    for _ in range(config.local_runs):
        for name, (module, libraries) in programs.items():
            samples[name] += floats(run(runner_command(module, libraries)).stdout)
    return samples


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
            time.sleep(AFTER_SESSION_PAUSE_S)
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


# ---------------------------------------------------------------------------
# first launches: open + send_binary + the first launch, one session per process


# The kinds of first launch, and the executor each runs on: an executor-server
# with its default warm worker, the same with --warm-workers 0 (every session
# starts its worker, as all did before warm workers), the embedded executor
# linking the object with its JIT, and the embedded executor loading the same
# code as a shared library with dlopen (the floor of loading code at all).
FIRST_LAUNCH_KINDS = ("warm", "cold", "local", "local_dlopen")
WARM_SERVER_ARGS = {"warm": (), "cold": ("--warm-workers", "0")}


def first_launch_program(address: str, kernels: Path, entry: str, name: str, directory: Path) -> Path:
    """bench/first_launch.mlir for `address`, sending `kernels` (format 2, a
    shared library, for a .so) and launching its kernel `entry`."""
    return lower_host(ROOT / "bench" / "first_launch.mlir",
                      {"ADDRESS": address, "KERNELS": kernels, "FORMAT": 2 if kernels.suffix == ".so" else 0,
                       "ENTRY": entry},
                      directory / f"{name}.llvm.mlir")


def first_launch_run(prefix, module: Path, env=None) -> list:
    """One process run of a first-launch program after the executor has been
    idle for FIRST_LAUNCH_PAUSE_S: its three steps in microseconds (open,
    send_binary, the first launch)."""
    time.sleep(FIRST_LAUNCH_PAUSE_S)
    values = floats(run([*prefix, *runner_command(module, HOST_LIBRARIES)], env=env).stdout)
    if len(values) != 3:
        raise SystemExit(f"bench: {module.name} printed {values}, expected three numbers")
    return values


def bench_first_launch(config: Config, kernels: Path, placement: str) -> dict:
    """Per kind of FIRST_LAUNCH_KINDS, the steps of each run (alternating
    kinds), and the memory of the warm server's waiting worker."""
    directory = WORK / "first_launch"
    directory.mkdir(parents=True, exist_ok=True)
    prefix = PLACEMENTS[placement]
    library = shared_library(kernels)
    servers = {}
    try:
        for kind, args in WARM_SERVER_ARGS.items():
            servers[kind] = Server(f"first-launch-{kind}-{placement}", prefix, args=args)
        programs = {kind: first_launch_program(server.address, kernels, "nothing", f"{kind}_{placement}", directory)
                    for kind, server in servers.items()}
        programs["local"] = first_launch_program("local", kernels, "nothing", "local", directory)
        programs["local_dlopen"] = first_launch_program("local", library, "nothing", "local_dlopen", directory)
        log(f"first launch (open + send_binary + first launch), {PLACEMENT_LABELS[placement]}: "
            f"{config.first_launch_runs} runs of each kind ({', '.join(FIRST_LAUNCH_KINDS)}), alternating, "
            f"each after {FIRST_LAUNCH_PAUSE_S} s idle")
        steps = {kind: [] for kind in FIRST_LAUNCH_KINDS}
        contacts = []
        for _ in range(config.first_launch_runs):
            for kind in FIRST_LAUNCH_KINDS:
                steps[kind].append(first_launch_run(prefix, programs[kind]))
            contacts += tcp_first_contact(prefix)
        time.sleep(FIRST_LAUNCH_PAUSE_S)
        memory = warm_worker_memory(servers["warm"].server_pid())
    finally:
        for server in servers.values():
            server.stop()
    return {"steps_us": steps, "warm_worker_kb": memory, "tcp_first_contact_us": contacts}


def tcp_first_contact(prefix) -> list:
    """What the network alone costs a first launch's open, after the same idle
    time: a TCP connect to a process listening on loopback and a round trip
    of one byte (tcp_echo_rtt first-contact), in microseconds."""
    pause_ms = str(round(FIRST_LAUNCH_PAUSE_S * 1000))
    return floats(run([*prefix, TCP_ECHO, "1", "1", "first-contact", pause_ms]).stdout)


def children(parent: int) -> list:
    """The processes whose parent is `parent`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            found.append(int(stat.parent.name))
    return found


def warm_worker_memory(server_pid: int) -> dict:
    """The memory of the server's waiting workers (no session is open), KiB
    from /proc/PID/smaps_rollup: resident (Rss), proportional (Pss) and its
    own (Private_Dirty: written pages, which only the worker has; its other
    pages are files', libLLVM's above all, shared or in the page cache); the
    first worker's, with their count."""
    workers = children(server_pid)
    if not workers:
        return {"workers": 0}
    fields = {}
    for line in Path(f"/proc/{workers[0]}/smaps_rollup").read_text().splitlines():
        name, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            fields[name] = int(value.split()[0])
    return {"workers": len(workers), "rss": fields["Rss"], "pss": fields["Pss"],
            "private": fields["Private_Dirty"]}


# The shapes of C kernels (bench/gen_kernels.py --c) measured beside the
# MLIR ones: sharing statics (a counter, a state object, a constant pool) or
# sharing nothing, each compiled with function and data sections.
C_SHAPES = ("shared", "none")


def compile_big_object(config: Config) -> Path:
    """bench/gen_kernels.py's module of config.big_object_kernels kernels as an
    object file with function sections (and, beside it, shared_library's .so
    and the object without function sections, `whole_object`'s); and the C
    kernels of each of C_SHAPES, as objects (`c_object`'s) and libraries."""
    count = config.big_object_kernels
    log(f"send_binary of many kernels: compiling {count:,} kernels to object files and a shared library")
    source = run([sys.executable, ROOT / "bench" / "gen_kernels.py", count]).stdout
    kernels = compile_object(source, WORK / "first_launch" / f"kernels_{count}.o", function_sections=True)
    compile_object(source, whole_object(kernels))
    shared_library(kernels)
    for shape in C_SHAPES:
        c_source = c_object(kernels, shape).with_suffix(".c")
        c_source.write_text(run([sys.executable, ROOT / "bench" / "gen_kernels.py", "--c", shape, count]).stdout)
        run([CLANG, "-c", "-O2", "-fPIC", "-ffunction-sections", "-fdata-sections", "-o", c_object(kernels, shape),
             c_source])
        shared_library(c_object(kernels, shape))
    return kernels


def whole_object(kernels: Path) -> Path:
    """Where compile_big_object puts the object without function sections."""
    return kernels.with_name(f"{kernels.stem}_whole.o")


def c_object(kernels: Path, shape: str) -> Path:
    """Where compile_big_object puts the object of the C kernels of `shape`."""
    return kernels.with_name(f"{kernels.stem}_c_{shape}.o")


# Where the runs' `local` saves the layouts of large objects and the
# libraries it links them into (run.py sets XDG_CACHE_HOME to it). A regular
# file in its place leaves `local` no cache: the object's tables are read at
# each send_binary. A copy of its layouts alone has `local` link the object
# from its saved layout.
LAYOUT_CACHE = WORK / "layout_cache"
NO_LAYOUT_CACHE = WORK / "no_layout_cache"
LAYOUTS_ONLY_CACHE = WORK / "layouts_only_cache"
# How long the libraries may take to be linked in the background.
LIBRARY_LINK_TIMEOUT_S = 120
# How long an object file must not have changed for `local` to save its
# layout (runtime/src/local/split_object/layout_cache.rs's SETTLED), with a
# margin.
LAYOUT_SETTLED_S = 1.2


def save_layouts(programs: dict, objects: list) -> dict:
    """The object programs of `programs` run once each on an empty layout
    cache, once `objects` have settled: each saves its object's layout, as
    a build links a library before it is loaded. The steps of that run."""
    shutil.rmtree(LAYOUT_CACHE, ignore_errors=True)
    newest = max(path.stat().st_ctime for path in objects)
    time.sleep(max(0.0, newest + LAYOUT_SETTLED_S - time.time()))
    saving = {kind: first_launch_run([], module) for kind, module in programs.items()
              if not kind.endswith("_library") and kind not in ("library", "object_whole")}
    started = time.time()
    saved = list((LAYOUT_CACHE / "executor-mlir" / "layouts").glob("*.layout"))
    if len(saved) != len(saving):
        raise SystemExit(f"bench: {len(saving)} objects were sent to save their layouts, and "
                         f"{LAYOUT_CACHE} holds {len(saved)}")
    # Each saving run also started linking its object into a library.
    libraries = LAYOUT_CACHE / "executor-mlir" / "libraries"
    while len(list(libraries.glob("*.so"))) < len(saving):
        if time.time() - started > LIBRARY_LINK_TIMEOUT_S:
            raise SystemExit(f"bench: {len(saving)} objects were sent, and {libraries} holds "
                             f"{len(list(libraries.glob('*.so')))} libraries after {LIBRARY_LINK_TIMEOUT_S} s "
                             "(is `cc` on PATH?)")
        time.sleep(0.05)
    linked_s = time.time() - started
    shutil.rmtree(LAYOUTS_ONLY_CACHE, ignore_errors=True)
    shutil.copytree(LAYOUT_CACHE / "executor-mlir" / "layouts", LAYOUTS_ONLY_CACHE / "executor-mlir" / "layouts")
    os.chmod(LAYOUTS_ONLY_CACHE / "executor-mlir", 0o700)
    os.chmod(LAYOUTS_ONLY_CACHE, 0o700)
    return {"steps_us": saving, "libraries_linked_s": linked_s}


def bench_big_object(config: Config, kernels: Path) -> dict:
    """send_binary + first launch of the object of many kernels on the embedded
    executor (its JIT links the object) and of the same code as a shared
    library (dlopen), alternating; the steps of each run. The MLIR kernels'
    program launches the empty kernel; the C kernels' (`c_SHAPE` and
    `c_SHAPE_library`) the middle one, which touches their statics. The
    objects' layouts are saved first (`saving_us`: the steps of the run
    that saved each, and started linking it into a library); `object_saved_layout` is the object sent
    with its saved layout and no library, `object_read_anew` with no cache."""
    directory = WORK / "first_launch"
    programs = {"object": first_launch_program("local", kernels, "first", "big_object", directory),
                "object_whole": first_launch_program("local", whole_object(kernels), "first", "big_object_whole",
                                                     directory),
                "library": first_launch_program("local", kernels.with_suffix(".so"), "first", "big_library",
                                                directory)}
    middle = f"k{config.big_object_kernels // 2}"
    for shape in C_SHAPES:
        binary = c_object(kernels, shape)
        programs[f"c_{shape}"] = first_launch_program("local", binary, middle, f"big_c_{shape}", directory)
        programs[f"c_{shape}_library"] = first_launch_program("local", binary.with_suffix(".so"), middle,
                                                              f"big_c_{shape}_library", directory)
    log(f"send_binary of {config.big_object_kernels:,} kernels: object with and without function sections (JIT "
        f"link) vs shared library (dlopen), and C kernels ({', '.join(C_SHAPES)}), "
        f"{config.big_object_runs} runs each, alternating")
    saved = save_layouts(programs, [kernels, *(c_object(kernels, shape) for shape in C_SHAPES)])
    NO_LAYOUT_CACHE.write_text("not a directory: no layout cache\n")
    no_cache = {**os.environ, "XDG_CACHE_HOME": str(NO_LAYOUT_CACHE)}
    runs = {kind: (module, None) for kind, module in programs.items()}
    runs["object_saved_layout"] = (programs["object"], {**os.environ, "XDG_CACHE_HOME": str(LAYOUTS_ONLY_CACHE)})
    runs["object_read_anew"] = (programs["object"], no_cache)
    steps = {kind: [] for kind in runs}
    for _ in range(config.big_object_runs):
        for kind, (module, env) in runs.items():
            steps[kind].append(first_launch_run([], module, env))
    return {"kernels": config.big_object_kernels, "bytes": kernels.stat().st_size, "saving_us": saved["steps_us"],
            "libraries_linked_s": saved["libraries_linked_s"],
            "whole_bytes": whole_object(kernels).stat().st_size,
            "library_bytes": kernels.with_suffix(".so").stat().st_size, "steps_us": steps}


# ---------------------------------------------------------------------------
# transports: a Unix socket against TCP loopback, TLS against plaintext TCP

# What remote_launch.mlir prints, in its order (bench_remote reads the same).
RTT_PRINTED = ("echo_1k", "sink_1k", "nothing")
FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")


def has_tls(executable: Path = EXECUTOR_SERVER) -> bool:
    """Whether this executor-server serves TLS: its --help names --tls-cert."""
    return "--tls-cert" in run([executable, "--help"]).stdout


def tls_identity(directory: Path) -> dict:
    """A new identity from `executor-server --gen-identity` (which never
    replaces one, so an earlier run's is removed first): its certificate, its
    key and the fingerprint it printed."""
    shutil.rmtree(directory, ignore_errors=True)
    printed = run([EXECUTOR_SERVER, "--gen-identity", directory]).stdout
    found = FINGERPRINT.search(printed)
    if not found:
        raise SystemExit(f"bench: executor-server --gen-identity printed no sha256: fingerprint:\n{printed}")
    return {"cert": directory / "cert.pem", "key": directory / "key.pem", "fingerprint": found.group(0)}


def in_turn(runs: int, first: str, second: str):
    """The order of two transports in each of `runs` rounds, alternating which
    goes first (as `alternating` does for two revisions)."""
    for index in range(runs):
        yield (first, second) if index % 2 == 0 else (second, first)


def samples_in_turn(runs: int, transports, sample) -> dict:
    """`sample(transport)` for each of two transports, in turn, `runs` rounds:
    per transport, the values its samples returned, in order."""
    samples = {transport: [] for transport in transports}
    for order in in_turn(runs, *transports):
        for transport in order:
            samples[transport] += sample(transport)
    return samples


def transport_round_trips(config: Config, kernels: Path, servers: dict, prefix, env, label: str,
                          directory: Path) -> dict:
    """remote_launch.mlir against each of two servers (by transport), in turn:
    per transport and kind of round trip, the microseconds of each run."""
    programs = {transport: runner_command(lower_host(
        ROOT / "bench" / "remote_launch.mlir",
        {"ADDRESS": server.address, "KERNELS": kernels, "N": config.remote_round_trips},
        directory / f"remote_launch_{label}_{transport}.llvm.mlir"), HOST_LIBRARIES)
        for transport, server in servers.items()}
    rtt = {transport: {kind: [] for kind in RTT_PRINTED} for transport in servers}
    for order in in_turn(config.remote_runs, *servers):
        for transport in order:
            values = floats(run([*prefix, *programs[transport]], env=env).stdout)
            time.sleep(AFTER_SESSION_PAUSE_S)
            if len(values) != len(RTT_PRINTED):
                raise SystemExit(f"bench: remote_launch over {transport} printed {values}, expected three numbers")
            for kind, value in zip(RTT_PRINTED, values):
                rtt[transport][kind].append(value)
    return rtt


def bench_unix_socket(config: Config, kernels: Path, placement: str) -> dict:
    """The 1 KiB round trips of bench_remote on a server listening on a Unix
    socket and on one listening on TCP loopback, in turn."""
    directory = WORK / "transports"
    directory.mkdir(parents=True, exist_ok=True)
    prefix = PLACEMENTS[placement]
    # A short path: a socket's path is limited to 107 bytes.
    sockets = Path(tempfile.mkdtemp(prefix="executor-bench-"))
    servers = {}
    try:
        servers["tcp"] = Server(f"transports-tcp-{placement}", prefix)
        servers["unix"] = Server(f"transports-unix-{placement}", prefix, listen=f"unix:{sockets / 'x.sock'}")
        log(f"transports: 1 KiB round trips over a Unix socket vs TCP loopback, {PLACEMENT_LABELS[placement]}: "
            f"{config.remote_runs} runs each of {config.remote_round_trips:,}, alternating")
        rtt = transport_round_trips(config, kernels, servers, prefix, None, placement, directory)
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(sockets, ignore_errors=True)
    return {"rtt_us": rtt}


def bench_tls(config: Config, kernels: Path, placement: str, identity: dict) -> dict:
    """A plaintext server and a TLS one (--tls-cert, --tls-key) on loopback,
    the client pinning the TLS one's fingerprint in an EXECUTOR_CONFIG file
    (every client of this comparison runs with it): the 1 KiB round trips,
    the 64 MiB launches and the first launches (open + send_binary + first
    launch, after FIRST_LAUNCH_PAUSE_S idle) over each, in turn."""
    directory = WORK / "transports"
    directory.mkdir(parents=True, exist_ok=True)
    prefix = PLACEMENTS[placement]
    label = PLACEMENT_LABELS[placement]
    servers = {}
    try:
        servers["plain"] = Server(f"transports-plain-{placement}", prefix)
        servers["tls"] = Server(f"transports-tls-{placement}", prefix,
                                args=("--tls-cert", identity["cert"], "--tls-key", identity["key"]))
        config_file = directory / f"executors_{placement}.conf"
        config_file.write_text(f"[{servers['tls'].address}]\ntls_fingerprint = {identity['fingerprint']}\n")
        env = {**os.environ, "EXECUTOR_CONFIG": str(config_file)}
        log(f"transports: 1 KiB round trips over TLS vs plaintext TCP, {label}: {config.remote_runs} runs each of "
            f"{config.remote_round_trips:,}, alternating")
        rtt = transport_round_trips(config, kernels, servers, prefix, env, f"tls_{placement}", directory)
        bulk_programs = {transport: runner_command(lower_host(
            ROOT / "bench" / "remote_bulk.mlir",
            {"ADDRESS": server.address, "KERNELS": kernels, "N": config.bulk_launches, "ELEMENTS": BULK_BYTES // 4},
            directory / f"remote_bulk_{placement}_{transport}.llvm.mlir"), HOST_LIBRARIES)
            for transport, server in servers.items()}
        log(f"transports: 64 MiB launches over TLS vs plaintext TCP, {label}: {config.bulk_runs} runs each of "
            f"{config.bulk_launches}, alternating")
        def bulk_run(transport):
            values = floats(run([*prefix, *bulk_programs[transport]], env=env).stdout)
            if len(values) != config.bulk_launches:
                raise SystemExit(f"bench: remote_bulk over {transport} printed {values}, expected "
                                 f"{config.bulk_launches} numbers")
            return values

        bulk = samples_in_turn(config.bulk_runs, servers, bulk_run)
        first_programs = {transport: first_launch_program(server.address, kernels, "nothing",
                                                          f"first_launch_{placement}_{transport}", directory)
                          for transport, server in servers.items()}
        log(f"transports: first launch over TLS vs plaintext TCP, {label}: {config.first_launch_runs} runs each, "
            f"alternating, each after {FIRST_LAUNCH_PAUSE_S} s idle")
        first = samples_in_turn(config.first_launch_runs, servers,
                                lambda transport: [first_launch_run(prefix, first_programs[transport], env)])
    finally:
        for server in servers.values():
            server.stop()
    return {"rtt_us": rtt, "bulk_s": bulk, "first_launch_us": first}


def bench_transports(config: Config, kernels: Path) -> dict:
    """Per placement, the Unix socket against TCP loopback and, when this
    executor-server has TLS, TLS against plaintext TCP."""
    tls = has_tls()
    if not tls:
        log("transports: TLS not measured: this build has no TLS (executor-server --help has no --tls-cert)")
    identity = tls_identity(WORK / "transports" / "identity") if tls else None
    measured = {"tls": tls, "placements": {}}
    for placement in PLACEMENTS:
        measured["placements"][placement] = {"unix": bench_unix_socket(config, kernels, placement)}
        if tls:
            measured["placements"][placement]["tls"] = bench_tls(config, kernels, placement, identity)
    return measured


def bench_trace_cost(config: Config, kernels: Path) -> dict:
    """Tracing's cost (issue 33): the local launches of bench_local and the
    1 KiB round trips of bench_remote, each program run untraced and with
    EXECUTOR_TRACE (writing the trace file), in alternation, the two orders
    in turn (free placement)."""
    directory = WORK / "trace"
    directory.mkdir(parents=True, exist_ok=True)
    trace_file = directory / "trace.json"
    environments = {"off": None, "on": {**os.environ, "EXECUTOR_TRACE": str(trace_file)}}
    local = lower_host(ROOT / "bench" / "local_launch.mlir",
                       {"KERNELS": kernels, "LAUNCHES": config.trace_local_launches},
                       directory / "local_launch.llvm.mlir")
    measured = {"local_ns": {"off": [], "on": []}, "remote_us": {"off": [], "on": []}}
    log(f"tracing: local launches untraced vs traced: {config.local_runs} runs each of "
        f"{config.trace_local_launches:,}, alternating")
    for index in range(config.local_runs):
        for mode in ("off", "on") if index % 2 == 0 else ("on", "off"):
            measured["local_ns"][mode] += floats(run(runner_command(local, HOST_LIBRARIES),
                                                     env=environments[mode]).stdout)
    server = Server("trace", PLACEMENTS["free"])
    try:
        rtt = lower_host(ROOT / "bench" / "remote_launch.mlir",
                         {"ADDRESS": server.address, "KERNELS": kernels, "N": config.remote_round_trips},
                         directory / "remote_launch.llvm.mlir")
        log(f"tracing: remote 1 KiB round trips untraced vs traced: {config.remote_runs} runs each of "
            f"{config.remote_round_trips:,}, alternating")
        for index in range(config.remote_runs):
            for mode in ("off", "on") if index % 2 == 0 else ("on", "off"):
                values = floats(run(runner_command(rtt, HOST_LIBRARIES), env=environments[mode]).stdout)
                if len(values) != 3:
                    raise SystemExit(f"bench: remote_launch printed {values}, expected three numbers")
                # The first kind: echo_1k.
                measured["remote_us"][mode].append(values[0])
    finally:
        server.stop()
    trace_file.unlink(missing_ok=True)
    return measured


# ---------------------------------------------------------------------------
# Criterion micro-benchmarks (runtime/benches/*.rs)

CRITERION_BENCHES = ["local", "encoding"]
CRITERION_DIR = ROOT / "target" / "criterion"
# Each group of the benches (in the report's order) and the baseline its other
# benchmarks are compared with: the benchmark of that function id with the same
# input, or else without one. What each group measures is said in report.py.
CRITERION_GROUPS = {
    "local_launch": "baseline_direct_call",
    "launch_async_await": "baseline_mpsc_handoff",
    "frame_encode": "baseline_memcpy",
    "frame_decode": "baseline_memcpy",
    "call_buffers": "baseline_memcpy",
    "descriptor": "baseline_memcpy",
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
                     if other["group"] == entry["group"] and other["function"] == CRITERION_GROUPS[entry["group"]]]
        same_input = [other for other in baselines if other["input"] == entry["input"]]
        baseline = (same_input or baselines or [None])[0]
        is_baseline = entry["function"].startswith("baseline")
        entry["baseline"] = None if baseline is None or is_baseline else baseline["function"]
        entry["ratio"] = entry["median_ns"] / baseline["median_ns"] if entry["baseline"] else None
    return {"results": results}



# ---------------------------------------------------------------------------
# --before REV: this tree's binaries and REV's, in alternation

REVISIONS = ("before", "after")


def alternating(runs: int):
    """The order of the two revisions in each of `runs` rounds: after then
    before, then before then after, and so on, so that neither always runs
    first (a run's neighbour, the other revision's run in the same round, is
    the one it is compared with)."""
    for index in range(runs):
        yield ("after", "before") if index % 2 == 0 else ("before", "after")


def mean(values: list) -> float:
    return sum(values) / len(values)


def figure(figure_id: str, measure: str, samples: dict, size=None, placement=None) -> dict:
    return {"id": figure_id, "measure": measure, "size": size, "placement": placement,
            "before": samples["before"], "after": samples["after"]}


def compare_compile(config: Config, binaries: dict) -> list:
    """Per module size: the executor lowering of bench_compile's module by each
    revision's executor-opt under GNU time with --mlir-timing: the pass time,
    the process's wall time as timed around that command, and its peak RSS."""
    figures = []
    for size in config.sizes:
        launches = WORK / "compile" / f"launches_{size}.mlir"
        if not launches.exists():
            raise SystemExit(f"bench: {launches} is missing (bench_compile writes it)")
        runs = config.before_compile_runs[size]
        log(f"before and after, compile time, N = {size:,}: {runs} runs of each revision, alternating")
        samples = {measure: {revision: [] for revision in REVISIONS} for measure in ("pass_s", "process_s",
                                                                                     "peak_rss_kb")}
        for index, order in enumerate(alternating(runs + 1)):
            for revision in order:
                command = [GNU_TIME, "-v", binaries[revision].executor_opt, launches,
                           f"--pass-pipeline={EXECUTOR_PIPELINE}", "-o", "/dev/null", "--mlir-timing"]
                started = time.perf_counter()
                result = run(command)
                elapsed = time.perf_counter() - started
                if index == 0:
                    continue  # a warm-up run of each
                timing = parse_timing(result.stderr)
                if EXECUTOR_PASS not in timing:
                    raise SystemExit(f"bench: the {revision} executor-opt's --mlir-timing has no {EXECUTOR_PASS}")
                samples["pass_s"][revision].append(timing[EXECUTOR_PASS])
                samples["process_s"][revision].append(elapsed)
                samples["peak_rss_kb"][revision].append(timing["peak_rss_kb"])
        figures += [figure(f"compile {measure} {size}", measure, values, size=size)
                    for measure, values in samples.items()]
    return figures


def compare_runs(label: str, runs: int, commands: dict, prefix=(), expected: int = 1, pause: float = 0) -> dict:
    """The numbers each revision's command prints, `runs` times each in
    alternation, each run after `pause` seconds idle: per run, the list of the
    `expected` numbers it printed."""
    log(f"before and after, {label}: {runs} runs of each revision, alternating")
    printed = {revision: [] for revision in REVISIONS}
    for order in alternating(runs):
        for revision in order:
            time.sleep(pause)
            values = floats(run([*prefix, *commands[revision]]).stdout)
            if len(values) != expected:
                raise SystemExit(f"bench: the {revision} run of {label} printed {values}, expected {expected} numbers")
            printed[revision].append(values)
    return printed


def compare_runtime(config: Config, kernels: Path, binaries: dict) -> list:
    """The run-time programs of bench_local, bench_async and bench_remote (this
    tree's bench/*.mlir, with the same counts), each lowered by the
    revision's executor-opt and run with its runtime library, the remote ones
    on its executor-server: one number per process run (the 64 MiB launches'
    mean), with free placement and pinned to CPU 0 as the targets are judged,
    the local launch with free placement only."""
    directory = WORK / "before_after"
    directory.mkdir(parents=True, exist_ok=True)
    libraries = {revision: host_libraries(binaries[revision].runtime_lib) for revision in REVISIONS}

    def lowered(template: str, substitutions: dict, name: str) -> dict:
        return {revision: runner_command(
                    lower_host(ROOT / "bench" / template, substitutions, directory / f"{name}_{revision}.llvm.mlir",
                               binaries[revision].executor_opt),
                    libraries[revision], "-O0" if template == "async_launch.mlir" else None)
                for revision in REVISIONS}

    def first(printed: dict) -> dict:
        return {revision: [values[0] for values in per_run] for revision, per_run in printed.items()}

    runs = config.before_runs
    local = lowered("local_launch.mlir", {"KERNELS": kernels, "LAUNCHES": config.local_launches}, "local_launch")
    figures = [figure("local free", "local_ns", first(compare_runs("local launch", runs, local)), placement="free")]
    asynchronous = lowered("async_launch.mlir", {"KERNELS": kernels, "N": config.async_iterations}, "async_launch")
    for placement in PLACEMENTS:
        prefix = PLACEMENTS[placement]
        label = PLACEMENT_LABELS[placement]
        figures.append(figure(f"async {placement}", "async_ns",
                              first(compare_runs(f"launch_async+await, {label}", runs, asynchronous, prefix)),
                              placement=placement))
        servers = {}
        try:
            for revision in REVISIONS:
                servers[revision] = Server(f"before-after-{revision}-{placement}", prefix,
                                           executable=binaries[revision].executor_server)
            rtt, bulk = {}, {}
            for revision, server in servers.items():
                substitutions = {"ADDRESS": server.address, "KERNELS": kernels}
                rtt[revision] = lower_host(
                    ROOT / "bench" / "remote_launch.mlir", {**substitutions, "N": config.remote_round_trips},
                    directory / f"remote_launch_{placement}_{revision}.llvm.mlir", binaries[revision].executor_opt)
                bulk[revision] = lower_host(
                    ROOT / "bench" / "remote_bulk.mlir",
                    {**substitutions, "N": config.bulk_launches, "ELEMENTS": BULK_BYTES // 4},
                    directory / f"remote_bulk_{placement}_{revision}.llvm.mlir", binaries[revision].executor_opt)
            printed = compare_runs(f"remote 1 KiB round trips, {label}", runs,
                                   {revision: runner_command(module, libraries[revision])
                                    for revision, module in rtt.items()}, prefix, expected=3)
            # remote_launch.mlir prints the kinds in this order (bench_remote).
            for index, kind in enumerate(("echo_1k", "sink_1k")):
                figures.append(figure(f"rtt_{kind} {placement}", f"rtt_{kind}_us",
                                      {revision: [values[index] for values in per_run]
                                       for revision, per_run in printed.items()}, placement=placement))
            printed = compare_runs(f"remote 64 MiB launches, {label}", runs,
                                   {revision: runner_command(module, libraries[revision])
                                    for revision, module in bulk.items()}, prefix, expected=config.bulk_launches)
            figures.append(figure(f"bulk {placement}", "bulk_s",
                                  {revision: [mean(values) for values in per_run]
                                   for revision, per_run in printed.items()},
                                  placement=placement))
        finally:
            for server in servers.values():
                server.stop()
    return figures


def compare_first_launches(config: Config, kernels: Path, big_object: Path, binaries: dict) -> list:
    """bench/first_launch.mlir as bench_first_launch and bench_big_object run
    it, lowered by each revision's executor-opt and run with its runtime
    library, each run after FIRST_LAUNCH_PAUSE_S idle: open + send_binary +
    the first launch on its executor-server with a warm worker, free and
    pinned to CPU 0; send_binary + the first launch of big_object's empty
    kernel (`first`, as bench_big_object's) on `local`, free placement. Microseconds per process run."""
    directory = WORK / "before_after"
    libraries = {revision: host_libraries(binaries[revision].runtime_lib) for revision in REVISIONS}

    def commands(address_of, program: Path, entry: str, name: str) -> dict:
        return {revision: runner_command(lower_host(
                    ROOT / "bench" / "first_launch.mlir",
                    {"ADDRESS": address_of(revision), "KERNELS": program, "FORMAT": 0, "ENTRY": entry},
                    directory / f"{name}_{revision}.llvm.mlir", binaries[revision].executor_opt),
                    libraries[revision])
                for revision in REVISIONS}

    runs = config.before_runs
    figures = []
    for placement, prefix in PLACEMENTS.items():
        servers = {}
        try:
            for revision in REVISIONS:
                servers[revision] = Server(f"before-after-first-{revision}-{placement}", prefix,
                                           executable=binaries[revision].executor_server)
            printed = compare_runs(f"first launch on a server, {PLACEMENT_LABELS[placement]}",
                                   config.before_first_launch_runs,
                                   commands(lambda revision: servers[revision].address, kernels, "nothing",
                                            f"first_launch_{placement}"),
                                   prefix, expected=3, pause=FIRST_LAUNCH_PAUSE_S)
        finally:
            for server in servers.values():
                server.stop()
        figures.append(figure(f"first {placement}", "first_us",
                              {revision: [sum(steps) for steps in per_run] for revision, per_run in printed.items()},
                              placement=placement))
    printed = compare_runs(f"send_binary + first launch of {config.big_object_kernels:,} kernels, local", runs,
                           commands(lambda revision: "local", big_object, "first", "big_object"),
                           expected=3, pause=FIRST_LAUNCH_PAUSE_S)
    figures.append(figure("big_object free", "big_object_us",
                          {revision: [steps[1] + steps[2] for steps in per_run]
                           for revision, per_run in printed.items()}, placement="free"))
    return figures


def bench_before_after(config: Config, kernels: Path, big_object: Path, before: Binaries, after: Binaries) -> dict:
    """Every figure of --before REV: for each, the samples of both revisions,
    measured in alternation (the i-th of each measured next to each other)."""
    binaries = {"before": before, "after": after}
    return {"figures": compare_compile(config, binaries) + compare_runtime(config, kernels, binaries)
            + compare_first_launches(config, kernels, big_object, binaries)}
