"""Summarizing: statistics over the raw samples of measure.py (pure
functions; the ratios of medians the targets are judged on are computed here,
the verdicts in verdicts.py)."""
import math
import statistics

from .common import BULK_BYTES, EXECUTOR_PASS, PLACEMENTS, UPSTREAM_PASS, Config


def stats(values) -> dict:
    values = list(values)
    return {
        "n": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
    }


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
    local = raw["local"]
    summary = {"local_ns": stats(local["local_ns"]), "direct_call_ns": stats(local["direct_call_ns"]),
               "first_launch": summarize_first_launch(raw["first_launch"])}
    summary["local_ratio"] = summary["local_ns"]["median"] / summary["direct_call_ns"]["median"]
    if "catalyst_ns" in local:
        summary["catalyst_ns"] = stats(local["catalyst_ns"])
        summary["catalyst_ratio"] = summary["catalyst_ns"]["median"] / summary["direct_call_ns"]["median"]
    for placement in PLACEMENTS:
        summary[placement] = summarize_placement(raw["async"][placement], raw["remote"][placement],
                                                 config.bulk_launches)
    return summary


# ---------------------------------------------------------------------------
# --before REV: each figure measured for both revisions in alternation


def median_interval(values, level: float) -> tuple:
    """A distribution-free confidence interval for the median of `values`
    (the sign test's): the k-th smallest to the k-th largest value, for the
    largest k whose interval covers the median with probability at least
    `level`, 1 - 2 P(Binomial(n, 1/2) < k). Returns (low, high, its level); when
    even the smallest to the largest value falls short of `level` (fewer than
    6 values for 95%), that interval with the level it has."""
    ordered = sorted(values)
    count = len(ordered)
    below = 0.0  # P(Binomial(count, 1/2) < k), for the k being tried
    chosen, chosen_level = 1, 1.0 - 2.0 * 0.5 ** count
    for k in range(1, count // 2 + 1):
        below += math.comb(count, k - 1) * 0.5 ** count
        if 1.0 - 2.0 * below < level:
            break
        chosen, chosen_level = k, 1.0 - 2.0 * below
    return ordered[chosen - 1], ordered[count - chosen], chosen_level


def summarize_before_after(raw: dict, level: float) -> list:
    """Each figure of measure.bench_before_after: its before and after
    samples' statistics, and after/before as the median of the ratios of the
    runs measured next to each other (the i-th after run over the i-th before
    run), with the interval of median_interval at `level`."""
    summary = []
    for figure in raw["figures"]:
        ratios = [after / before for after, before in zip(figure["after"], figure["before"])]
        low, high, reached = median_interval(ratios, level)
        summary.append({
            **{key: figure[key] for key in ("id", "measure", "size", "placement")},
            "before": stats(figure["before"]),
            "after": stats(figure["after"]),
            "ratio": statistics.median(ratios),
            "low": low,
            "high": high,
            "level": reached,
            "pairs": len(ratios),
        })
    return summary


# ---------------------------------------------------------------------------
# first launches

FIRST_LAUNCH_STEPS = ("open", "send_binary", "launch")


def summarize_steps(runs: list) -> dict:
    """Statistics of each step of first-launch runs (microseconds) and of
    their sum per run."""
    summary = {step: stats(run[index] for run in runs) for index, step in enumerate(FIRST_LAUNCH_STEPS)}
    summary["total"] = stats(sum(run) for run in runs)
    # send_binary and the first launch: loading the code and running it once.
    summary["load"] = stats(run[1] + run[2] for run in runs)
    return summary


def summarize_first_launch(raw: dict) -> dict:
    """Per placement, each kind's steps, the warm server's first launch over
    the cold one's and over the local one's, the local one over dlopen's, and
    the warm worker's memory; and the object of many kernels against its
    shared library."""
    summary = {}
    for placement, measured in raw["placements"].items():
        kinds = {kind: summarize_steps(runs) for kind, runs in measured["steps_us"].items()}
        total = {kind: entry["total"]["median"] for kind, entry in kinds.items()}
        summary[placement] = {
            "kinds": kinds,
            "warm_over_cold": total["warm"] / total["cold"],
            "warm_over_local": total["warm"] / total["local"],
            "local_over_dlopen": total["local"] / total["local_dlopen"],
            "warm_worker_kb": measured["warm_worker_kb"],
            # Absent from results recorded before it was measured.
            "tcp_first_contact_us": stats(measured["tcp_first_contact_us"])
            if measured.get("tcp_first_contact_us") else None,
        }
    big = raw["big_object"]
    kinds = {kind: summarize_steps(runs) for kind, runs in big["steps_us"].items()}
    summary["big_object"] = {
        "kernels": big["kernels"], "bytes": big["bytes"], "library_bytes": big["library_bytes"], "kinds": kinds,
        "whole_bytes": big.get("whole_bytes"), "saving_us": big.get("saving_us", {}),
        "libraries_linked_s": big.get("libraries_linked_s"),
        "ratio": kinds["object"]["load"]["median"] / kinds["library"]["load"]["median"],
        "whole_ratio": (kinds["object_whole"]["load"]["median"] / kinds["library"]["load"]["median"]
                        if "object_whole" in kinds else None),
        "send_ratio": kinds["object"]["send_binary"]["median"] / kinds["library"]["send_binary"]["median"],
        # The C kernels of each shape (measure.C_SHAPES) against their library.
        "c_ratios": {kind[2:]: kinds[kind]["load"]["median"] / kinds[f"{kind}_library"]["load"]["median"]
                     for kind in kinds if kind.startswith("c_") and f"{kind}_library" in kinds},
    }
    return summary


# ---------------------------------------------------------------------------
# transports (measure.bench_transports)


def summarize_rtt(rtt: dict, contender: str, baseline: str) -> dict:
    """Each transport's round trips by kind, and the contender's medians over
    the baseline's."""
    figures = {transport: {kind: stats(values) for kind, values in kinds.items()} for transport, kinds in rtt.items()}
    return {"rtt_us": figures,
            "rtt_ratio": {kind: figures[contender][kind]["median"] / figures[baseline][kind]["median"]
                          for kind in figures[contender]}}


def summarize_transports(raw: dict) -> dict:
    """Per placement: the Unix socket's round trips over TCP loopback's and,
    when TLS was measured, TLS's over plaintext's, the 64 MiB throughput over
    TLS over plaintext's, and the first launch over TLS minus plaintext's
    (medians of each)."""
    mib = BULK_BYTES / (1 << 20)
    placements = {}
    for placement, measured in raw["placements"].items():
        entry = {"unix": summarize_rtt(measured["unix"]["rtt_us"], "unix", "tcp")}
        if "tls" in measured:
            tls = measured["tls"]
            first = {transport: summarize_steps(runs) for transport, runs in tls["first_launch_us"].items()}
            entry["tls"] = {
                **summarize_rtt(tls["rtt_us"], "tls", "plain"),
                "bulk_s": {transport: stats(values) for transport, values in tls["bulk_s"].items()},
                "bulk_mib_s": {transport: stats(mib / value for value in values)
                               for transport, values in tls["bulk_s"].items()},
                "first_launch": first,
                "first_launch_extra_us": first["tls"]["total"]["median"] - first["plain"]["total"]["median"],
            }
            bulk = entry["tls"]["bulk_s"]
            # Throughput over TLS over plaintext's: the inverse of their times.
            entry["tls"]["bulk_ratio"] = bulk["plain"]["median"] / bulk["tls"]["median"]
        placements[placement] = entry
    return {"tls": raw["tls"], "placements": placements}


def summarize_trace_cost(raw: dict) -> dict:
    """Per measurement (local launch in ns, remote 1 KiB round trip in us):
    untraced and traced, and the cost per launch of tracing, the difference
    of their medians."""
    summarized = {}
    for measurement, modes in raw.items():
        figures = {mode: stats(values) for mode, values in modes.items()}
        summarized[measurement] = {**figures, "cost": figures["on"]["median"] - figures["off"]["median"]}
    return summarized
