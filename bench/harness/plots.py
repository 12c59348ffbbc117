"""Plotting: the PNG plots of docs/performance/ (matplotlib, imported only
when plotting)."""
from .common import BULK_BYTES, PLACEMENT_LABELS, PLACEMENTS, PLOTS
from .verdicts import TARGET_ASYNC, TARGET_BULK, TARGET_LOCAL, TARGET_RTT


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
    distribution(axes[0], {"executor.launch\n(local, empty kernel)": runtime_raw["local"]["local_ns"],
                           "direct call\n(shared library)": runtime_raw["local"]["direct_call_ns"]},
                 "local launch: ns per launch or call,\none point per process run",
                 "ns per launch or call", runtime_summary["direct_call_ns"]["median"] * TARGET_LOCAL,
                 f"target: {TARGET_LOCAL:g}x the direct call median")
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
            summary["tcp_echo_us"]["median"] * TARGET_RTT[placement],
            f"target: {TARGET_RTT[placement]:g}x the TCP echo median",
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
