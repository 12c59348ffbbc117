"""Profiling: perf and strace profiles of the launches (always taken) and of
the executor pass (taken when a compile-time target is missed)."""
import os
import re
import struct
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from .common import (
    BULK_BYTES, PLACEMENT_LABELS, PLACEMENTS, ROOT, TCP_ECHO, WORK, Config, log, run,
)
from .measure import (
    HOST_LIBRARIES, Server, compile_commands, first_launch_program, first_launch_run, floats, lower_host,
    runner_command,
)
from .summary import stats


def perf_event_count(text: str) -> int:
    """The total period of a `perf report` (for cpu-clock: nanoseconds of CPU time)."""
    found = re.search(r"# Event count \(approx\.\): (\d+)", text)
    return int(found.group(1)) if found else 0


def time_filter(window) -> list:
    """`perf report`'s option keeping the samples within `window`, (start,
    end) as the perf.data's timestamps."""
    return ["--time", f"{window[0]:.6f},{window[1]:.6f}"]


def perf_top(data: Path, comm=None, limit: int = 12, window=None) -> dict:
    """Top symbols of a perf.data of cpu-clock samples (shares relative to
    `comm` when given; only the samples within `window`, (start, end) as its
    timestamps, when given), and the CPU time they cover."""
    command = ["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio", "--percentage", "relative"]
    if comm:
        command += ["--comm", comm]
    if window:
        command += time_filter(window)
    result = run(command, check=False)
    rows = []
    for line in result.stdout.splitlines():
        found = re.match(r"^\s+([0-9.]+)%\s+(\S+)\s+\[([.k])\]\s+(.+?)\s*$", line)
        if found:
            rows.append(
                {"percent": float(found.group(1)), "dso": found.group(2), "kernel": found.group(3) == "k",
                 "symbol": found.group(4)}
            )
    comms = perf_comms(data, window)
    share = comms["comms"].get(comm, 0.0) / 100 if comm else 1.0
    return {"rows": rows[:limit], "cpu_ms": comms["event_count"] * share / 1e6,
            "kernel_percent": sum(row["percent"] for row in rows if row["kernel"])}


def perf_comms(data: Path, window=None) -> dict:
    """Each command name's share (percent) of a perf.data's samples (within
    `window`, as perf_top's, when given)."""
    command = ["perf", "report", "-i", data, "--no-children", "--sort", "comm", "--stdio"]
    if window:
        command += time_filter(window)
    result = run(command, check=False)
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


# The system calls of a first launch that the report's timeline leaves out:
# memory management and locks, which say nothing about the steps.
TIMELINE_NOISE = ("mmap", "munmap", "mprotect", "brk", "madvise", "futex", "rt_sigprocmask", "rt_sigaction",
                  "sigaltstack", "getrandom", "sched_getaffinity", "gettid", "set_robust_list", "rseq", "prctl")
STRACE_TIMED_LINE = re.compile(r"^(\d+)\s+(\d+):(\d+):([0-9.]+) (.*)$")


def first_launch_timeline(trace: Path, limit: int = 40) -> list:
    """The server's system calls (`strace -f -tt`) from the accept of the
    session's connection to the worker's third reply (send_binary's, the
    launch's and close's), as (ms since the accept, pid, call), noise left out."""
    events, started, replies = [], None, 0
    for line in trace.read_text(errors="replace").splitlines():
        found = STRACE_TIMED_LINE.match(line)
        if not found:
            continue
        pid, call = int(found.group(1)), found.group(5)
        seconds = int(found.group(2)) * 3600 + int(found.group(3)) * 60 + float(found.group(4))
        if started is None:
            if "accept4" in call and "sin_port" in call:
                started = seconds
            else:
                continue
        named = re.match(r"(?:<\.\.\. )?(\w+)", call)
        if not named or named.group(1) in TIMELINE_NOISE:
            continue  # signals, exits, noise
        name = named.group(1)
        events.append({"ms": (seconds - started) * 1e3, "pid": pid, "call": call[:110]})
        # The worker's replies: frames of the session written on its TCP socket.
        if name == "sendto" and "<TCP" in call and "\\0\\0\\0\\1\\0" in call:
            replies += 1
            if replies == 2:
                break
    return events[:limit]


def profile_first_launch(config: Config, kernels: Path) -> dict:
    """Where a first launch on a warm server goes (taken when its target is
    missed): the server's system calls with their times, for one session
    opened after the server was idle (the client is not traced)."""
    if not available("strace"):
        return {}
    directory = WORK / "profile"
    directory.mkdir(parents=True, exist_ok=True)
    trace = directory / "first_launch_server.strace"
    log("profile: strace of the server during one first launch")
    server = Server("server-first-launch-strace", tracer=["strace", "-f", "-tt", "-y", "-o", trace])
    try:
        module = first_launch_program(server.address, kernels, "nothing", "first_launch_strace", directory)
        steps = first_launch_run([], module)
    finally:
        server.stop()
    return {"steps_us": steps, "timeline": first_launch_timeline(trace)}


def profile_local_launch(config: Config, kernels: Path) -> dict:
    """Where a local launch's time goes (taken when its target is missed): a
    perf profile of one process making config.profile_local_launches launches
    of the empty kernel, each top symbol's CPU time per launch."""
    if not available("perf"):
        return {}
    directory = WORK / "profile"
    directory.mkdir(parents=True, exist_ok=True)
    launches = config.profile_local_launches
    log(f"profile: perf record of {launches:,} local launches")
    module = lower_host(ROOT / "bench" / "local_launch.mlir", {"KERNELS": kernels, "LAUNCHES": launches},
                        directory / "local_launch_perf.llvm.mlir")
    data = directory / "local_launch.perf.data"
    # A sample every 250 us: a shorter period slows the launches themselves
    # down (each sample is a timer interrupt, costly on a virtual machine).
    recorded = run(["perf", "record", "-q", "-e", "cpu-clock", "-c", 250_000, "-o", data,
                    *runner_command(module, HOST_LIBRARIES)], check=False)
    if recorded.returncode != 0:
        return {}
    top = perf_top(data, limit=8)
    ns_per_launch = top["cpu_ms"] * 1e6 / launches
    rows = [{**row, "ns": row["percent"] / 100 * ns_per_launch} for row in top["rows"]]
    return {"launches": launches, "measured_ns": floats(recorded.stdout)[0], "cpu_ms": top["cpu_ms"],
            "ns_per_launch": ns_per_launch, "rows": rows}


def profile_big_object(config: Config, kernels: Path) -> dict:
    """Where send_binary + first launch of the object of many kernels spends
    CPU time on the embedded executor (taken when its target is missed): perf
    profiles of runs sending the object and runs sending the library, each
    cut to the two calls' own time (from the runtime's debug log, which says
    when each call ended and how long it took), so that mlir-runner's start-up
    and exit, which vary more between runs than these calls take, are left
    out; per symbol the mean CPU time of a run's two calls."""
    if not available("perf"):
        return {}
    directory = WORK / "profile"
    directory.mkdir(parents=True, exist_ok=True)
    runs = config.profile_big_object_runs
    log(f"profile: perf record of send_binary + first launch of {config.big_object_kernels:,} kernels, as an "
        f"object and as a shared library, {runs} runs each")
    measured = {}
    for kind, binary in [("object", kernels), ("library", kernels.with_suffix(".so"))]:
        module = first_launch_program("local", binary, "first", f"big_{kind}_perf", directory)
        data = directory / f"big_{kind}.perf.data"
        ms, cpu_ms, steps = {}, 0.0, []
        for _ in range(runs):
            # Realtime timestamps, the debug log's clock.
            recorded = run(["perf", "record", "-q", "-k", "CLOCK_REALTIME", "-e", "cpu-clock", "-c", 100_000,
                            "-o", data, *runner_command(module, HOST_LIBRARIES)],
                           check=False, env={**os.environ, "EXECUTOR_LOG": "debug"})
            windows = call_windows(recorded.stderr)
            if recorded.returncode != 0 or not {SEND_BINARY, LAUNCH} <= windows.keys():
                return {}
            top = perf_top(data, limit=10_000, window=(windows[SEND_BINARY][0], windows[LAUNCH][1]))
            steps.append(floats(recorded.stdout))
            cpu_ms += top["cpu_ms"] / runs
            for row in top["rows"]:
                key = (row["dso"], row["symbol"], row["kernel"])
                ms[key] = ms.get(key, 0.0) + row["percent"] / 100 * top["cpu_ms"] / runs
        counted = run(["perf", "stat", "-x", ",", "-e", "page-faults", *runner_command(module, HOST_LIBRARIES)],
                      check=False)
        faults = re.search(r"^(\d+),[^,]*,page-faults", counted.stderr, re.MULTILINE)
        measured[kind] = {"cpu_ms": cpu_ms, "ms": ms, "steps_us": steps,
                          "page_faults": int(faults.group(1)) if faults else None}
    rows = [{"dso": dso, "symbol": symbol, "kernel": kernel, "ms": value}
            for (dso, symbol, kernel), value in sorted(measured["object"]["ms"].items(), key=lambda item: -item[1])[:15]]
    return {"rows": rows, "runs": runs, "object_cpu_ms": measured["object"]["cpu_ms"],
            "library_cpu_ms": measured["library"]["cpu_ms"], "steps_us": measured["object"]["steps_us"],
            "page_faults": {kind: measured[kind]["page_faults"] for kind in measured},
            "tables": object_tables(kernels)}


SEND_BINARY = "__catalyst__executor__send_binary"
LAUNCH = "__catalyst__executor__launch"
DEBUG_CALL = re.compile(r'^(\S+Z)\s+DEBUG .*function="(\w+)".*elapsed_us=([0-9.]+)')


def call_windows(log_text: str) -> dict:
    """Each executor call of a run's debug log (EXECUTOR_LOG=debug): its
    (start, end) in seconds since the epoch."""
    windows = {}
    for line in log_text.splitlines():
        found = DEBUG_CALL.match(line)
        if found:
            end = datetime.fromisoformat(found.group(1).replace("Z", "+00:00")).timestamp()
            windows[found.group(2)] = (end - float(found.group(3)) / 1e6, end)
    return windows


SHT_SYMTAB = 2


def object_tables(path: Path) -> dict:
    """The tables of an ELF64 relocatable object that send_binary reads before
    it links anything (runtime/src/local/split_object/layout.rs), in bytes:
    the section headers, the symbol table, and `.eh_frame` with its
    relocations."""
    data = path.read_bytes()
    (header_offset,) = struct.unpack_from("<Q", data, 0x28)
    header_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, header_offset + index * header_size) for index in range(count)]
    names = headers[names_index][4]

    def name(header) -> bytes:
        start = names + header[0]
        return data[start:data.index(b"\0", start)]

    symbols = sum(header[5] for header in headers if header[1] == SHT_SYMTAB)
    unwind = sum(header[5] for header in headers if name(header) in (b".eh_frame", b".rela.eh_frame"))
    return {"file": len(data), "sections": count, "section_headers": count * header_size,
            "symbol_table": symbols, "symbols": symbols // 24, "unwind": unwind}
