"""Report writing: the README's performance paragraph (between its
`<!-- bench:begin -->` and `<!-- bench:end -->` markers), from the headline
numbers and the verdicts of verdicts.py."""
import textwrap

from . import session_passes
from .common import README
from .text import fmt, ratio
from .verdicts import TARGET_BIG_OBJECT, TARGET_FIRST_LAUNCH_US, TARGET_LOCAL_FIRST_LAUNCH, TARGET_LOCAL_NS

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

def render_paragraph(context: dict) -> str:
    """The paragraph with its markers, for a run's context (see report.render_report)."""
    begin, end = BEGIN, END
    h = context["headline"]
    verdicts = context["verdicts"]
    claims = {
        "per_op": f"`convert-executor-to-llvm` costs at most {ratio(h['per_op_worst']['ratio'])} upstream "
                  f"`--convert-func-to-llvm` per op ({h['per_op_worst']['measured']}, at "
                  f"{h['per_op_worst']['size']:,} ops; target at most 1.0x at every size)",
        "scaling": f"its time grows {ratio(h['scaling_pass'])} from {h['middle']:,} to {h['largest']:,} ops "
                   "(at most 11x)",
        "memory": f"its peak memory is {ratio(h['memory_ratio'])} the baseline's (at most 1.5x)",
        "local": f"a local launch costs {fmt(h['local_ns'])} ns (at most {fmt(TARGET_LOCAL_NS)} ns)",
        "async": f"`launch_async` + `await` costs {ratio(h['async_ratio_free'])} / {ratio(h['async_ratio_pinned'])} "
                 "MLIR's `async.execute` + `async.await` (at most 1.0x)",
        "rtt": f"a remote launch with 1 KiB of inputs costs {ratio(h['rtt_ratio_free'])} / {ratio(h['rtt_ratio_pinned'])} a TCP "
               "echo of 1 KiB (at most 1.5x)",
        "bulk": f"a 64 MiB launch reaches {ratio(h['bulk_ratio_free'])} / {ratio(h['bulk_ratio_pinned'])} the "
                "throughput of a loopback socket copy (at least 0.5x)",
        "first_launch": f"the first launch of a program on an executor-server (open, send_binary, first launch) "
                        f"takes {fmt(h['first_launch_us_free'] / 1000)} / {fmt(h['first_launch_us_pinned'] / 1000)} "
                        f"ms with the warm worker it keeps (at most {fmt(TARGET_FIRST_LAUNCH_US / 1000)} ms; "
                        f"{fmt(h['cold_first_launch_us_free'] / 1000)} / {fmt(h['cold_first_launch_us_pinned'] / 1000)} "
                        "ms without)",
        "local_first_launch": f"the first launch of a program on `local` takes "
                              f"{fmt(h['local_first_launch_us_free'] / 1000)} / "
                              f"{fmt(h['local_first_launch_us_pinned'] / 1000)} ms, "
                              f"{ratio(h['local_first_launch_ratio_free'])} / "
                              f"{ratio(h['local_first_launch_ratio_pinned'])} the same with the code as a shared "
                              f"library (at most {ratio(TARGET_LOCAL_FIRST_LAUNCH)})",
        "big_object": f"`send_binary` and the first launch of an object of {h['big_object_kernels']:,} kernels take "
                      f"{ratio(h['big_object_ratio'])} the same as a shared library loaded with `dlopen` "
                      f"(at most {ratio(TARGET_BIG_OBJECT)})",
    }
    if "sessions" in context:
        claims.update(session_passes.claims(context["sessions"]))

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
    return paragraph


def update_readme(context: dict) -> None:
    """Rewrites the README's performance paragraph, between its markers."""
    begin, end = BEGIN, END
    text = README.read_text()
    if begin not in text or end not in text:
        return
    text = text[: text.index(begin)] + render_paragraph(context) + text[text.index(end) + len(end):]
    README.write_text(text)
