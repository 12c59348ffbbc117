"""Verdicts: the performance targets, whether a run met them, the other
findings the report's text depends on, and (with --before REV) whether each
figure is no worse than REV's. Pure functions over the summaries of
summary.py (and the profiles of profiles.py); no prose here, report.py says
what these decide. Standard library only (bench/test_verdicts.py imports this
module without the benchmark's virtualenv)."""
from .common import PLACEMENTS

# The performance targets.
TARGET_PER_OP = 1.0  # executor pass cost per op over upstream --convert-func-to-llvm, at most
TARGET_SCALING = 11.0  # time at the largest N over the time at the next (10x fewer ops), at most
TARGET_MEMORY = 1.5  # peak RSS over the baseline's, at most
TARGET_LOCAL = 2.5  # local launch of an empty kernel from a compiled host loop over a direct call of it, at most
TARGET_ASYNC = 1.0  # launch_async + await over async.execute + async.await, at most
# Remote launch with 1 KiB of inputs over a TCP echo of 1 KiB, at most, per
# placement: free, the launch stays ahead of the echo.
TARGET_RTT = {"free": 1.0, "pinned": 1.2}
TARGET_BULK = 0.5  # 64 MiB launch throughput over a loopback socket copy's, at least
TARGET_FIRST_LAUNCH_US = 1000.0  # open + send_binary + first launch on a fresh server session, median us, at most
TARGET_LOCAL_FIRST_LAUNCH = 2.0  # the same on `local` over the same with the code as a dlopen'ed library, at most
TARGET_BIG_OBJECT = 2.0  # send_binary + first launch of 10,000 kernels over the same as a shared library, at most

# The transports' targets (issue 29), each judged with both placements.
TARGET_UNIX_RTT = 0.7  # 1 KiB round trip over a Unix socket over the same over TCP loopback, at most
TARGET_TLS_RTT = 1.15  # 1 KiB round trip over TLS over the same over plaintext TCP, at most
TARGET_TLS_BULK = 0.7  # 64 MiB launch throughput over TLS over plaintext's, at least
TARGET_TLS_FIRST_LAUNCH_US = 1500.0  # first launch over TLS minus over plaintext, medians, us, at most

# The remote round trips judged against TARGET_RTT: 1 KiB in with 1 KiB back as
# the result, and 1 KiB in without a result.
RTT_KINDS = ("echo_1k", "sink_1k")

# Other load worth a paragraph in the report (cores busy with other processes).
OTHER_LOAD_NOTED = 0.25
# System calls per operation from which a call counts as made every time.
EVERY_TIME = 0.9


def largest_and_middle(cs: dict):
    """The largest module size measured, and the one before it (the same one
    when only one size was measured)."""
    sizes = sorted(cs)
    return sizes[-1], sizes[-2] if len(sizes) > 1 else sizes[-1]


def compile_targets(cs: dict) -> dict:
    sizes = sorted(cs)
    largest, middle = largest_and_middle(cs)
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


def rtt_met_in(placement_summary: dict, placement: str) -> bool:
    return all(placement_summary["rtt_ratio"][kind] <= TARGET_RTT[placement] for kind in RTT_KINDS)


def first_launch_us(fs: dict, placement: str, kind: str = "warm") -> float:
    """The median first launch (open + send_binary + first launch) of a kind of
    summary.summarize_first_launch, in us."""
    return fs[placement]["kinds"][kind]["total"]["median"]


def runtime_targets(rs: dict) -> dict:
    fs = rs["first_launch"]
    return {
        "local_met": rs["local_ratio"] <= TARGET_LOCAL,
        "async_met": all(rs[placement]["async_ratio"] <= TARGET_ASYNC for placement in PLACEMENTS),
        "rtt_met": all(rtt_met_in(rs[placement], placement) for placement in PLACEMENTS),
        "bulk_met": all(rs[placement]["bulk_ratio"] >= TARGET_BULK for placement in PLACEMENTS),
        "first_launch_met": all(first_launch_us(fs, placement) <= TARGET_FIRST_LAUNCH_US for placement in PLACEMENTS),
        "local_first_launch_met": all(fs[placement]["local_over_dlopen"] <= TARGET_LOCAL_FIRST_LAUNCH
                                      for placement in PLACEMENTS),
        "big_object_met": all(ratio <= TARGET_BIG_OBJECT
                              for ratio in [fs["big_object"]["ratio"], *fs["big_object"].get("c_ratios", {}).values()]),
    }


# The targets of `verdicts`, whose misses run.py profiles.
PROFILED_TARGETS = ("per_op", "scaling", "memory", "local", "async", "rtt", "bulk", "first_launch",
                    "local_first_launch", "big_object")


def verdicts(cs: dict, rs: dict) -> dict:
    """Each performance target: met (True) or missed (False), in the report's order."""
    compiled, ran = compile_targets(cs), runtime_targets(rs)
    return {"per_op": compiled["per_op_met"], "scaling": compiled["scaling_met"], "memory": compiled["memory_met"],
            "local": ran["local_met"], "async": ran["async_met"], "rtt": ran["rtt_met"], "bulk": ran["bulk_met"],
            "first_launch": ran["first_launch_met"], "local_first_launch": ran["local_first_launch_met"],
            "big_object": ran["big_object_met"]}


def transport_verdicts(ts: dict) -> dict:
    """The transports' targets (summary.summarize_transports), met (True) or
    missed (False) with both placements: the Unix socket's, and TLS's only
    when TLS was measured (absent otherwise, neither met nor missed)."""
    placements = list(ts["placements"].values())
    judged = {"unix_rtt": all(entry["unix"]["rtt_ratio"][kind] <= TARGET_UNIX_RTT
                              for entry in placements for kind in RTT_KINDS)}
    if ts["tls"]:
        tls = [entry["tls"] for entry in placements]
        judged.update({
            "tls_rtt": all(entry["rtt_ratio"][kind] <= TARGET_TLS_RTT for entry in tls for kind in RTT_KINDS),
            "tls_bulk": all(entry["bulk_ratio"] >= TARGET_TLS_BULK for entry in tls),
            "tls_first_launch": all(entry["first_launch_extra_us"] <= TARGET_TLS_FIRST_LAUNCH_US for entry in tls),
        })
    return judged


def other_load_noted(other_load: dict) -> bool:
    """Other processes kept enough of the machine busy for the report to say so."""
    return other_load["cores"] > OTHER_LOAD_NOTED


def missed(verdict: dict) -> list:
    return [name for name, met in verdict.items() if not met]


def profiled_missed(verdict: dict) -> list:
    """The missed targets of `verdicts` (those a missed one of gets a profile),
    not the session passes' or the transports' that the run's verdicts also hold."""
    return [name for name in missed(verdict) if name in PROFILED_TARGETS]


def compile_missed(verdict: dict) -> bool:
    """A compile-time target is missed: the executor pass gets a CPU profile."""
    return not verdict["per_op"] or not verdict["scaling"]


def async_findings(async_profile: dict) -> dict:
    """What the strace count of launch_async + await shows: the threads each
    launch starts, and whether every launch starts one."""
    syscalls = async_profile.get("syscalls", {})
    threads_per_launch = syscalls.get("clone3", 0.0) + syscalls.get("clone", 0.0)
    return {
        "threads_per_launch": threads_per_launch,
        "thread_per_launch": threads_per_launch >= EVERY_TIME,
    }


def remote_findings(rs: dict, remote_profile: dict) -> dict:
    """What the strace counts of the remote round trip show against the echo's,
    and where (placements) the round trip misses its target."""
    server = remote_profile.get("server_syscalls", {})
    launch_total = sum(server.values()) + sum(remote_profile.get("client_syscalls", {}).values())
    echo_total = sum(remote_profile.get("echo_syscalls", {}).values())
    status_pipe = server.get("write(pipe)", 0.0) >= EVERY_TIME
    free = rs["free"]
    return {
        "syscalls_per_launch": launch_total,
        "syscalls_per_echo": echo_total,
        # The worker announces every launch to its supervisor through a pipe.
        "status_pipe": status_pipe,
        # The launch makes the echo's system calls and no more.
        "same_as_echo": not status_pipe and launch_total <= echo_total + 0.5,
        "missed_where": [placement for placement in PLACEMENTS if not rtt_met_in(rs[placement], placement)],
        "echo_spread_wider_than_gap": free["tcp_echo_us"]["max"] - free["tcp_echo_us"]["min"]
        > free["rtt_us"]["echo_1k"]["median"] - free["tcp_echo_us"]["median"],
        # Free, the launch with a result is faster than the threads' echo.
        "faster_than_echo_free": free["rtt_ratio"]["echo_1k"] < 1.0,
    }


def bulk_findings(rs: dict, bulk_profile) -> dict:
    """The CPU time the bulk target allows a 64 MiB launch (its wall time at
    TARGET_BULK the socket copy's, free placement), which sides spend more than
    that per transfer, and whether postcard serializes the input byte by byte."""
    budget_ms = rs["free"]["copy_s"]["median"] * 1e3 / TARGET_BULK
    if not bulk_profile:
        return {"budget_ms": budget_ms, "over_budget": [], "bytewise_serialization": False}
    return {
        "budget_ms": budget_ms,
        "over_budget": [side for side in ("client", "worker")
                        if bulk_profile[f"{side}_cpu_ms_per_transfer"] > budget_ms],
        "bytewise_serialization": any("collect_seq" in row["symbol"] for row in bulk_profile["client"]["rows"]),
    }


def findings(rs: dict, profiles: dict, other_load: dict) -> dict:
    """Everything besides the targets that decides what the report says."""
    return {
        "other_load_noted": other_load_noted(other_load),
        "async": async_findings(profiles.get("async", {})),
        "remote": remote_findings(rs, profiles.get("remote", {})),
        "bulk": bulk_findings(rs, profiles.get("remote", {}).get("bulk")),
    }


def judge(cs: dict, rs: dict, profiles: dict, other_load: dict) -> dict:
    """All of the above for one run: what the report is written from."""
    return {"targets": compile_targets(cs), "verdicts": verdicts(cs, rs),
            "findings": findings(rs, profiles, other_load)}


# --before REV (the figures no worse than before). Every figure is
# measured for both revisions in alternation; summary.summarize_before_after
# pairs the runs measured next to each other and gives the median of their
# ratios after/before with a distribution-free interval at BEFORE_AFTER_LEVEL.
# A figure is no worse when the interval's upper end is at most
# BEFORE_AFTER_BOUND (slower by at most the tolerance, 5%: what the interval
# cannot see, such as code layout, is not judged finer than that), worse when
# its lower end is above it, and inconclusive otherwise (the run's noise is
# wider than the tolerance), or when the interval does not reach the level
# (fewer than 6 pairs).
BEFORE_AFTER_LEVEL = 0.95
BEFORE_AFTER_BOUND = 1.05
NO_WORSE, WORSE, INCONCLUSIVE = "no worse", "worse", "inconclusive"
# The fewest pairs whose interval can reach BEFORE_AFTER_LEVEL (the smallest to
# the largest ratio covers the median with probability 1 - 2 / 2**n).
BEFORE_AFTER_FEWEST_PAIRS = next(pairs for pairs in range(1, 64) if 1 - 2 * 0.5 ** pairs >= BEFORE_AFTER_LEVEL)


def before_after_verdict(figure: dict) -> str:
    """One figure of summary.summarize_before_after: NO_WORSE, WORSE or INCONCLUSIVE."""
    if figure["level"] < BEFORE_AFTER_LEVEL:
        return INCONCLUSIVE
    if figure["high"] <= BEFORE_AFTER_BOUND:
        return NO_WORSE
    if figure["low"] > BEFORE_AFTER_BOUND:
        return WORSE
    return INCONCLUSIVE


def before_after(summary: list) -> dict:
    """Every figure's verdict (by its id) and the run's: WORSE when a figure is
    worse, else INCONCLUSIVE when one is inconclusive, else NO_WORSE."""
    figures = {figure["id"]: before_after_verdict(figure) for figure in summary}
    worse = [name for name, verdict in figures.items() if verdict == WORSE]
    inconclusive = [name for name, verdict in figures.items() if verdict == INCONCLUSIVE]
    return {"figures": figures, "worse": worse, "inconclusive": inconclusive,
            "overall": WORSE if worse else INCONCLUSIVE if inconclusive else NO_WORSE}
