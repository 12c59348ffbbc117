"""Unit tests of the benchmark's verdicts (bench/harness/verdicts.py): each
performance target met exactly at its bound and missed just past it, the
findings that choose the report's text at theirs, and the before-and-after
comparison of --before REV (its interval in bench/harness/summary.py, and the
verdict at its bound).

Standard library only, well under a second, and measuring nothing; run from the
repository's root with either of

    python3 bench/test_verdicts.py
    python3 -m unittest discover -s bench -p 'test_*.py'

(`make test` does not run them.)
"""
import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import measure, session_passes, summary, verdicts  # noqa: E402
from harness.verdicts import (  # noqa: E402
    TARGET_ASYNC, TARGET_BIG_OBJECT, TARGET_BULK, TARGET_FIRST_LAUNCH_US, TARGET_LOCAL_FIRST_LAUNCH, TARGET_LOCAL,
    TARGET_MEMORY, TARGET_PER_OP, TARGET_RTT, TARGET_SCALING, TARGET_TLS_BULK, TARGET_TLS_FIRST_LAUNCH_US,
    TARGET_TLS_RTT, TARGET_UNIX_RTT,
)


def above(value: float) -> float:
    """The next float after `value`: just past a bound."""
    return math.nextafter(value, math.inf)


def below(value: float) -> float:
    return math.nextafter(value, -math.inf)


def compile_summary(per_op=0.5, pass_ratio=0.5, memory=1.0, scaling_pass=10.0, scaling_process=10.0,
                    sizes=(1000, 10000)) -> dict:
    """A summary.summarize_compile result with the given ratios at the largest
    size (and comfortable ones below it); the executor's time at the smallest
    size is 1, so the scaling ratios are its times at the largest."""
    summary = {}
    for index, size in enumerate(sizes):
        last = index == len(sizes) - 1
        summary[size] = {
            "ratio_subtracted": per_op if last else 0.5,
            "ratio_pass": pass_ratio if last else 0.5,
            "ratio_memory": memory if last else 1.0,
            "pass": {"executor": {"median": scaling_pass if last else 1.0},
                     "upstream": {"median": 10.0 if last else 1.0}},
            "subtracted": {"executor": scaling_process if last else 1.0, "upstream": 10.0 if last else 1.0},
        }
    return summary


def placement(async_ratio=0.5, echo=1.0, sink=1.0, bulk=1.0) -> dict:
    """One placement of a summary.summarize_runtime result."""
    return {
        "async_ratio": async_ratio,
        "rtt_ratio": {"echo_1k": echo, "sink_1k": sink, "nothing": 0.9},
        "bulk_ratio": bulk,
        "tcp_echo_us": {"min": 20.0, "median": 25.0, "max": 30.0},
        "rtt_us": {"echo_1k": {"median": 30.0}},
        "copy_s": {"median": 0.02},
    }


def first_launch_placement(warm_us=1000.0, local_ratio=1.0) -> dict:
    """One placement of a summary.summarize_first_launch result."""
    kinds = {kind: {"total": {"median": median}}
             for kind, median in [("warm", warm_us), ("cold", 20000.0), ("local", 500.0), ("local_dlopen", 400.0)]}
    return {"kinds": kinds, "local_over_dlopen": local_ratio}


def first_launch_summary(free=None, pinned=None, big_ratio=1.0, c_ratios=None) -> dict:
    return {"free": free or first_launch_placement(), "pinned": pinned or first_launch_placement(),
            "big_object": {"ratio": big_ratio, "kernels": 10000,
                           "c_ratios": c_ratios if c_ratios is not None else {"shared": 1.0, "none": 1.0}}}


def runtime_summary(local_ratio=2.0, free=None, pinned=None, first_launch=None) -> dict:
    return {"local_ratio": local_ratio, "free": free or placement(), "pinned": pinned or placement(),
            "first_launch": first_launch or first_launch_summary()}


class CompileTargets(unittest.TestCase):
    def judge(self, **ratios) -> dict:
        return verdicts.verdicts(compile_summary(**ratios), runtime_summary())

    def test_all_met(self):
        self.assertEqual(verdicts.missed(self.judge()), [])

    def test_per_op_at_the_bound_is_met(self):
        self.assertTrue(self.judge(per_op=TARGET_PER_OP, pass_ratio=TARGET_PER_OP)["per_op"])

    def test_per_op_past_the_bound_is_missed(self):
        # Either measure of the cost per op misses it: whole process minus
        # parse+print, or the pass alone.
        self.assertFalse(self.judge(per_op=above(TARGET_PER_OP))["per_op"])
        self.assertFalse(self.judge(pass_ratio=above(TARGET_PER_OP))["per_op"])

    def test_per_op_is_judged_at_every_size(self):
        summary = compile_summary()
        summary[1000]["ratio_pass"] = above(TARGET_PER_OP)
        self.assertFalse(verdicts.verdicts(summary, runtime_summary())["per_op"])

    def test_scaling_at_the_bound_is_met(self):
        verdict = self.judge(scaling_pass=TARGET_SCALING, scaling_process=TARGET_SCALING)
        self.assertTrue(verdict["scaling"])

    def test_scaling_past_the_bound_is_missed(self):
        self.assertFalse(self.judge(scaling_pass=above(TARGET_SCALING))["scaling"])
        self.assertFalse(self.judge(scaling_process=above(TARGET_SCALING))["scaling"])

    def test_scaling_compares_the_two_largest_sizes(self):
        summary = compile_summary(scaling_pass=100.0, sizes=(100, 1000, 10000))
        summary[1000]["pass"]["executor"]["median"] = 10.0
        targets = verdicts.compile_targets(summary)
        self.assertEqual(targets["scaling_pass"], 10.0)
        self.assertTrue(targets["scaling_met"])

    def test_one_size_scales_by_one(self):
        targets = verdicts.compile_targets(compile_summary(sizes=(1000,)))
        self.assertEqual((targets["scaling_pass"], targets["scaling_process"]), (1.0, 1.0))

    def test_memory_at_the_bound_is_met(self):
        self.assertTrue(self.judge(memory=TARGET_MEMORY)["memory"])

    def test_memory_past_the_bound_is_missed(self):
        self.assertFalse(self.judge(memory=above(TARGET_MEMORY))["memory"])

    def test_a_missed_compile_target_asks_for_a_profile(self):
        self.assertFalse(verdicts.compile_missed(self.judge()))
        self.assertTrue(verdicts.compile_missed(self.judge(per_op=above(TARGET_PER_OP))))
        self.assertTrue(verdicts.compile_missed(self.judge(scaling_pass=above(TARGET_SCALING))))
        self.assertFalse(verdicts.compile_missed(self.judge(memory=above(TARGET_MEMORY))))


class RuntimeTargets(unittest.TestCase):
    def judge(self, **summary) -> dict:
        return verdicts.verdicts(compile_summary(), runtime_summary(**summary))

    def test_local_at_the_bound_is_met(self):
        self.assertTrue(self.judge(local_ratio=TARGET_LOCAL)["local"])

    def test_local_past_the_bound_is_missed(self):
        self.assertFalse(self.judge(local_ratio=above(TARGET_LOCAL))["local"])

    def test_async_at_the_bound_in_both_placements_is_met(self):
        verdict = self.judge(free=placement(async_ratio=TARGET_ASYNC), pinned=placement(async_ratio=TARGET_ASYNC))
        self.assertTrue(verdict["async"])

    def test_async_past_the_bound_in_one_placement_is_missed(self):
        self.assertFalse(self.judge(pinned=placement(async_ratio=above(TARGET_ASYNC)))["async"])
        self.assertFalse(self.judge(free=placement(async_ratio=above(TARGET_ASYNC)))["async"])

    def test_rtt_at_the_bound_is_met(self):
        free = placement(echo=TARGET_RTT["free"], sink=TARGET_RTT["free"])
        pinned = placement(echo=TARGET_RTT["pinned"], sink=TARGET_RTT["pinned"])
        self.assertTrue(self.judge(free=free, pinned=pinned)["rtt"])

    def test_rtt_past_the_bound_with_or_without_a_result_is_missed(self):
        self.assertFalse(self.judge(free=placement(echo=above(TARGET_RTT["free"])))["rtt"])
        self.assertFalse(self.judge(pinned=placement(sink=above(TARGET_RTT["pinned"])))["rtt"])

    def test_rtt_free_is_held_to_the_echo_itself(self):
        # Pinned's bound, free: behind the echo.
        self.assertFalse(self.judge(free=placement(echo=TARGET_RTT["pinned"]))["rtt"])

    def test_rtt_without_data_is_for_reference_only(self):
        free = placement()
        free["rtt_ratio"]["nothing"] = 10.0
        self.assertTrue(self.judge(free=free)["rtt"])

    def test_bulk_at_the_bound_is_met(self):
        self.assertTrue(self.judge(free=placement(bulk=TARGET_BULK), pinned=placement(bulk=TARGET_BULK))["bulk"])

    def test_bulk_below_the_bound_is_missed(self):
        # Throughput: the bound is a floor.
        self.assertFalse(self.judge(free=placement(bulk=below(TARGET_BULK)))["bulk"])
        self.assertFalse(self.judge(pinned=placement(bulk=below(TARGET_BULK)))["bulk"])

    def test_first_launch_at_the_bound_in_both_placements_is_met(self):
        bound = first_launch_placement(warm_us=TARGET_FIRST_LAUNCH_US)
        self.assertTrue(self.judge(first_launch=first_launch_summary(free=bound, pinned=bound))["first_launch"])

    def test_first_launch_past_the_bound_in_one_placement_is_missed(self):
        past = first_launch_placement(warm_us=above(TARGET_FIRST_LAUNCH_US))
        self.assertFalse(self.judge(first_launch=first_launch_summary(free=past))["first_launch"])
        self.assertFalse(self.judge(first_launch=first_launch_summary(pinned=past))["first_launch"])

    def test_first_launch_is_judged_with_the_warm_worker(self):
        # Without one (--warm-workers 0) it is for reference only.
        summary = first_launch_summary()
        summary["free"]["kinds"]["cold"]["total"]["median"] = 1e9
        self.assertTrue(self.judge(first_launch=summary)["first_launch"])

    def test_local_first_launch_at_the_bound_is_met_and_past_it_missed(self):
        bound = first_launch_placement(local_ratio=TARGET_LOCAL_FIRST_LAUNCH)
        self.assertTrue(self.judge(first_launch=first_launch_summary(free=bound, pinned=bound))["local_first_launch"])
        past = first_launch_placement(local_ratio=above(TARGET_LOCAL_FIRST_LAUNCH))
        self.assertFalse(self.judge(first_launch=first_launch_summary(pinned=past))["local_first_launch"])

    def test_big_object_at_the_bound_is_met_and_past_it_missed(self):
        self.assertTrue(self.judge(first_launch=first_launch_summary(big_ratio=TARGET_BIG_OBJECT))["big_object"])
        self.assertFalse(self.judge(first_launch=first_launch_summary(big_ratio=above(TARGET_BIG_OBJECT)))
                         ["big_object"])

    def test_big_object_counts_each_shape_of_c_kernels(self):
        bound = {"shared": TARGET_BIG_OBJECT, "none": TARGET_BIG_OBJECT}
        self.assertTrue(self.judge(first_launch=first_launch_summary(c_ratios=bound))["big_object"])
        past = {"shared": above(TARGET_BIG_OBJECT), "none": 1.0}
        self.assertFalse(self.judge(first_launch=first_launch_summary(c_ratios=past))["big_object"])
        # A run from before the C kernels were measured: the MLIR kernels alone.
        self.assertTrue(self.judge(first_launch=first_launch_summary(c_ratios={}))["big_object"])

    def test_verdicts_in_the_report_order(self):
        self.assertEqual(list(self.judge()), ["per_op", "scaling", "memory", "local", "async", "rtt", "bulk",
                                              "first_launch", "local_first_launch", "big_object"])

    def test_missed_names_the_missed(self):
        verdict = self.judge(local_ratio=above(TARGET_LOCAL), free=placement(bulk=below(TARGET_BULK)))
        self.assertEqual(verdicts.missed(verdict), ["local", "bulk"])


class Findings(unittest.TestCase):
    def test_a_thread_per_launch_from_every_launch_on(self):
        every = verdicts.async_findings({"syscalls": {"clone3": verdicts.EVERY_TIME, "futex": 3.0, "mmap": 1.0}})
        self.assertTrue(every["thread_per_launch"])
        some = verdicts.async_findings({"syscalls": {"clone3": below(verdicts.EVERY_TIME)}})
        self.assertFalse(some["thread_per_launch"])
        self.assertFalse(verdicts.async_findings({})["thread_per_launch"])

    def remote(self, server, client, echo, rs=None) -> dict:
        profile = {"server_syscalls": server, "client_syscalls": client, "echo_syscalls": echo}
        return verdicts.remote_findings(rs or runtime_summary(), profile)

    def test_status_pipe_from_one_write_per_launch_on(self):
        self.assertTrue(self.remote({"write(pipe)": verdicts.EVERY_TIME}, {}, {})["status_pipe"])
        found = self.remote({"write(pipe)": below(verdicts.EVERY_TIME)}, {}, {"sendto(TCP)": 1.0})
        self.assertFalse(found["status_pipe"])
        self.assertTrue(found["same_as_echo"])

    def test_same_as_echo_within_half_a_call(self):
        self.assertTrue(self.remote({"read(TCP)": 2.0}, {"write(TCP)": 2.5}, {"sendto(TCP)": 4.0})["same_as_echo"])
        self.assertFalse(self.remote({"read(TCP)": 2.0}, {"write(TCP)": 2.75}, {"sendto(TCP)": 4.0})["same_as_echo"])

    def test_missed_where_names_the_placements(self):
        rs = runtime_summary(free=placement(echo=above(TARGET_RTT["free"])), pinned=placement(sink=TARGET_RTT["pinned"]))
        self.assertEqual(self.remote({}, {}, {}, rs)["missed_where"], ["free"])

    def test_faster_than_echo_below_one(self):
        self.assertFalse(self.remote({}, {}, {}, runtime_summary(free=placement(echo=1.0)))["faster_than_echo_free"])
        self.assertTrue(self.remote({}, {}, {}, runtime_summary(free=placement(echo=below(1.0))))
                        ["faster_than_echo_free"])

    def test_echo_spread_against_the_gap(self):
        free = placement()  # echo 20 to 30 us, median 25; the launch's median 30: spread 10, gap 5
        self.assertTrue(self.remote({}, {}, {}, runtime_summary(free=free))["echo_spread_wider_than_gap"])
        free["rtt_us"]["echo_1k"]["median"] = 35.0  # gap 10: not wider
        self.assertFalse(self.remote({}, {}, {}, runtime_summary(free=free))["echo_spread_wider_than_gap"])

    def test_over_budget_past_the_budget(self):
        rs = runtime_summary()
        budget = rs["free"]["copy_s"]["median"] * 1e3 / TARGET_BULK
        bulk = {"client_cpu_ms_per_transfer": budget, "worker_cpu_ms_per_transfer": above(budget),
                "client": {"rows": [{"symbol": "memcpy"}]}}
        found = verdicts.bulk_findings(rs, bulk)
        self.assertEqual(found["budget_ms"], budget)
        self.assertEqual(found["over_budget"], ["worker"])
        self.assertFalse(found["bytewise_serialization"])
        bulk["client"]["rows"].append({"symbol": "serde_core::ser::Serializer::collect_seq"})
        self.assertTrue(verdicts.bulk_findings(rs, bulk)["bytewise_serialization"])
        self.assertEqual(verdicts.bulk_findings(rs, None)["over_budget"], [])

    def test_other_load_noted_past_a_quarter_core(self):
        rs = runtime_summary()
        noted = verdicts.findings(rs, {}, {"cores": verdicts.OTHER_LOAD_NOTED})["other_load_noted"]
        self.assertFalse(noted)
        self.assertTrue(verdicts.findings(rs, {}, {"cores": above(verdicts.OTHER_LOAD_NOTED)})["other_load_noted"])


class BeforeAfterInterval(unittest.TestCase):
    def test_the_widest_interval_below_six_values_and_its_level(self):
        low, high, level = summary.median_interval([3.0, 1.0, 2.0, 5.0, 4.0], 0.95)
        self.assertEqual((low, high), (1.0, 5.0))
        self.assertEqual(level, 1 - 2 / 32)  # 0.9375: short of 95%
        self.assertEqual(summary.median_interval([2.0, 1.0], 0.95), (1.0, 2.0, 0.5))
        self.assertEqual(summary.median_interval([7.0], 0.95), (7.0, 7.0, 0.0))

    def test_six_values_reach_95_percent_from_the_smallest_to_the_largest(self):
        low, high, level = summary.median_interval([6.0, 1.0, 5.0, 2.0, 4.0, 3.0], 0.95)
        self.assertEqual((low, high, level), (1.0, 6.0, 1 - 2 / 64))

    def test_the_interval_narrows_with_more_values(self):
        values = [float(value) for value in range(1, 10)]
        low, high, level = summary.median_interval(values, 0.95)  # 9 values: 2nd to 8th
        self.assertEqual((low, high), (2.0, 8.0))
        self.assertAlmostEqual(level, 1 - 2 * 10 / 512)
        low, high, level = summary.median_interval([float(value) for value in range(1, 13)], 0.95)
        self.assertEqual((low, high), (3.0, 10.0))  # 12 values: 3rd to 10th
        self.assertGreaterEqual(level, 0.95)
        # The next narrower interval would fall short of the level.
        self.assertLess(1 - 2 * sum(math.comb(12, i) for i in range(4)) / 4096, 0.95)

    def test_the_fewest_pairs_reach_the_level(self):
        fewest = verdicts.BEFORE_AFTER_FEWEST_PAIRS
        self.assertEqual(fewest, 6)
        level = verdicts.BEFORE_AFTER_LEVEL
        self.assertGreaterEqual(summary.median_interval([1.0] * fewest, level)[2], level)
        self.assertLess(summary.median_interval([1.0] * (fewest - 1), level)[2], level)

    def test_pairs_are_the_runs_next_to_each_other(self):
        raw = {"figures": [{"id": "local", "measure": "local_ns", "size": None, "placement": "free",
                            "before": [100.0, 200.0, 100.0, 100.0, 100.0, 100.0],
                            "after": [110.0, 180.0, 90.0, 100.0, 100.0, 105.0]}]}
        [figure] = summary.summarize_before_after(raw, 0.95)
        self.assertEqual(figure["pairs"], 6)
        self.assertEqual((figure["before"]["median"], figure["after"]["median"]), (100.0, 102.5))
        self.assertEqual(figure["ratio"], 1.0)  # ratios 1.1, 0.9, 0.9, 1.0, 1.0, 1.05
        self.assertEqual((figure["low"], figure["high"]), (0.9, 1.1))


def compared(low, high, level=0.96, name="figure") -> dict:
    return {"id": name, "low": low, "high": high, "level": level}


class BeforeAfterVerdicts(unittest.TestCase):
    BOUND = verdicts.BEFORE_AFTER_BOUND

    def test_no_worse_up_to_the_bound(self):
        self.assertEqual(verdicts.before_after_verdict(compared(0.9, self.BOUND)), verdicts.NO_WORSE)
        self.assertEqual(verdicts.before_after_verdict(compared(0.5, 0.8)), verdicts.NO_WORSE)

    def test_an_interval_across_the_bound_is_inconclusive(self):
        self.assertEqual(verdicts.before_after_verdict(compared(0.9, above(self.BOUND))), verdicts.INCONCLUSIVE)
        self.assertEqual(verdicts.before_after_verdict(compared(self.BOUND, 1.2)), verdicts.INCONCLUSIVE)

    def test_worse_past_the_bound(self):
        self.assertEqual(verdicts.before_after_verdict(compared(above(self.BOUND), 1.2)), verdicts.WORSE)

    def test_slower_within_the_tolerance_is_no_worse(self):
        self.assertEqual(verdicts.before_after_verdict(compared(1.01, 1.04)), verdicts.NO_WORSE)

    def test_an_interval_short_of_the_level_decides_nothing(self):
        short = below(verdicts.BEFORE_AFTER_LEVEL)
        self.assertEqual(verdicts.before_after_verdict(compared(0.5, 0.6, short)), verdicts.INCONCLUSIVE)
        self.assertEqual(verdicts.before_after_verdict(compared(2.0, 3.0, short)), verdicts.INCONCLUSIVE)
        self.assertEqual(verdicts.before_after_verdict(compared(0.5, 0.6, verdicts.BEFORE_AFTER_LEVEL)),
                         verdicts.NO_WORSE)

    def test_the_run_is_as_bad_as_its_worst_figure(self):
        no_worse, unclear, worse = compared(0.9, 1.0, name="a"), compared(0.9, 1.2, name="b"), \
            compared(1.1, 1.2, name="c")
        self.assertEqual(verdicts.before_after([no_worse])["overall"], verdicts.NO_WORSE)
        judged = verdicts.before_after([no_worse, unclear])
        self.assertEqual((judged["overall"], judged["inconclusive"], judged["worse"]),
                         (verdicts.INCONCLUSIVE, ["b"], []))
        judged = verdicts.before_after([worse, no_worse, unclear])
        self.assertEqual((judged["overall"], judged["worse"]), (verdicts.WORSE, ["c"]))
        self.assertEqual(judged["figures"], {"c": verdicts.WORSE, "a": verdicts.NO_WORSE, "b": verdicts.INCONCLUSIVE})


def session_run(verify_10k: float, verify_100k: float, written_s: float, reused_s: float, sums=None) -> dict:
    """The raw measurements of session_passes.measure: upstream's pass takes 1 s
    at 10,000 ops and 11 s at 100,000, the optimizer as long as the checker."""
    def passes(verify: float, upstream: float) -> dict:
        return {"verify-sessions": [verify], "optimize": [verify], "upstream": [upstream]}
    iterations = 1000
    expected = [iterations * (iterations - 1) // 2]
    return {
        "compile": {10_000: {"ops": 10_000, "seconds": passes(verify_10k, 1.0)},
                    100_000: {"ops": 100_000, "seconds": passes(verify_100k, 11.0)}},
        "reuse": {"iterations": iterations, "seconds": {"as written": [written_s], "reuse-sessions": [reused_s]},
                  "sums": sums or {"as written": expected, "reuse-sessions": expected}},
    }


class SessionPassTargets(unittest.TestCase):
    def judged(self, *args, **kwargs) -> dict:
        return session_passes.verdicts(session_passes.summarize(session_run(*args, **kwargs)))

    def test_met_at_the_bounds(self):
        scaling, speedup = session_passes.TARGET_SCALING, session_passes.TARGET_REUSE_SPEEDUP
        judged = self.judged(1.0, scaling, speedup, 1.0)
        self.assertEqual(judged, {"sessions_per_op": True, "sessions_scaling": True, "reuse_sessions": True})

    def test_per_op_missed_past_upstream(self):
        self.assertFalse(self.judged(above(1.0), 10.0, 10.0, 1.0)["sessions_per_op"])

    def test_scaling_missed_past_its_bound(self):
        judged = self.judged(0.5, above(0.5 * session_passes.TARGET_SCALING), 10.0, 1.0)
        self.assertFalse(judged["sessions_scaling"])
        self.assertTrue(judged["sessions_per_op"])

    def test_reuse_missed_when_slower_than_the_bound(self):
        self.assertFalse(self.judged(1.0, 10.0, below(session_passes.TARGET_REUSE_SPEEDUP), 1.0)["reuse_sessions"])

    def test_reuse_missed_when_the_results_differ(self):
        sums = {"as written": [499_500], "reuse-sessions": [499_500, 1]}
        self.assertFalse(self.judged(1.0, 10.0, 100.0, 1.0, sums=sums)["reuse_sessions"])


def transport_placement(unix_echo=0.5, unix_sink=0.5, tls_echo=1.0, tls_sink=1.0, tls_bulk=1.0,
                        tls_first_extra_us=0.0, tls=True) -> dict:
    """One placement of a summary.summarize_transports result, with the given
    ratios (and, for the round trips without data, which no target judges, far
    past every bound)."""
    entry = {"unix": {"rtt_ratio": {"echo_1k": unix_echo, "sink_1k": unix_sink, "nothing": 100.0}}}
    if tls:
        entry["tls"] = {"rtt_ratio": {"echo_1k": tls_echo, "sink_1k": tls_sink, "nothing": 100.0},
                        "bulk_ratio": tls_bulk, "first_launch_extra_us": tls_first_extra_us}
    return entry


def transport_summary(free=None, pinned=None, tls=True) -> dict:
    return {"tls": tls, "placements": {"free": free or transport_placement(tls=tls),
                                       "pinned": pinned or transport_placement(tls=tls)}}


class TransportTargets(unittest.TestCase):
    def judged(self, tls=True, **ratios) -> dict:
        """Both placements with `ratios`."""
        return verdicts.transport_verdicts(transport_summary(transport_placement(tls=tls, **ratios),
                                                             transport_placement(tls=tls, **ratios), tls=tls))

    def judged_in_one(self, **ratios) -> dict:
        """`ratios` in the pinned placement, comfortable ones in the free one."""
        return verdicts.transport_verdicts(transport_summary(pinned=transport_placement(**ratios)))

    def test_all_met(self):
        self.assertEqual(self.judged(), {"unix_rtt": True, "tls_rtt": True, "tls_bulk": True,
                                         "tls_first_launch": True})

    def test_unix_at_the_bound_is_met(self):
        self.assertTrue(self.judged(unix_echo=TARGET_UNIX_RTT, unix_sink=TARGET_UNIX_RTT)["unix_rtt"])

    def test_unix_past_the_bound_with_or_without_a_result_in_one_placement_is_missed(self):
        self.assertFalse(self.judged_in_one(unix_echo=above(TARGET_UNIX_RTT))["unix_rtt"])
        self.assertFalse(self.judged_in_one(unix_sink=above(TARGET_UNIX_RTT))["unix_rtt"])

    def test_tls_rtt_at_the_bound_is_met(self):
        self.assertTrue(self.judged(tls_echo=TARGET_TLS_RTT, tls_sink=TARGET_TLS_RTT)["tls_rtt"])

    def test_tls_rtt_past_the_bound_with_or_without_a_result_in_one_placement_is_missed(self):
        self.assertFalse(self.judged_in_one(tls_echo=above(TARGET_TLS_RTT))["tls_rtt"])
        self.assertFalse(self.judged_in_one(tls_sink=above(TARGET_TLS_RTT))["tls_rtt"])

    def test_tls_bulk_at_the_bound_is_met(self):
        self.assertTrue(self.judged(tls_bulk=TARGET_TLS_BULK)["tls_bulk"])

    def test_tls_bulk_below_the_bound_in_one_placement_is_missed(self):
        self.assertFalse(self.judged_in_one(tls_bulk=below(TARGET_TLS_BULK))["tls_bulk"])

    def test_tls_first_launch_at_the_bound_is_met(self):
        self.assertTrue(self.judged(tls_first_extra_us=TARGET_TLS_FIRST_LAUNCH_US)["tls_first_launch"])

    def test_tls_first_launch_past_the_bound_in_one_placement_is_missed(self):
        self.assertFalse(self.judged_in_one(tls_first_extra_us=above(TARGET_TLS_FIRST_LAUNCH_US))["tls_first_launch"])

    def test_each_target_misses_alone(self):
        judged = self.judged(tls_bulk=below(TARGET_TLS_BULK))
        self.assertEqual(verdicts.missed(judged), ["tls_bulk"])

    def test_a_missed_transport_target_gets_no_profile(self):
        judged = verdicts.verdicts(compile_summary(), runtime_summary())
        self.assertEqual(tuple(judged), verdicts.PROFILED_TARGETS)
        judged.update(self.judged(unix_echo=above(TARGET_UNIX_RTT)))
        self.assertEqual((verdicts.missed(judged), verdicts.profiled_missed(judged)), (["unix_rtt"], []))

    def test_without_tls_its_targets_are_not_measured(self):
        # Absent: neither met nor missed (the report says "not measured").
        judged = self.judged(tls=False, unix_echo=above(TARGET_UNIX_RTT))
        self.assertEqual(judged, {"unix_rtt": False})


def transport_run(tls=True) -> dict:
    """The raw measurements of measure.bench_transports, one process run each
    but the first launches: a Unix socket at 0.7x TCP's round trips, TLS at
    1.15x plaintext's, its 64 MiB launches at 0.7x plaintext's throughput
    (plaintext 0.07 s per launch, TLS 0.1 s) and its first launch 1.5 ms later."""
    def rtt(echo: float, sink: float) -> dict:
        return {"echo_1k": [echo], "sink_1k": [sink], "nothing": [1.0]}
    placement = {"unix": {"rtt_us": {"tcp": rtt(10.0, 20.0), "unix": rtt(7.0, 14.0)}}}
    if tls:
        placement["tls"] = {
            "rtt_us": {"plain": rtt(10.0, 20.0), "tls": rtt(11.5, 23.0)},
            "bulk_s": {"plain": [0.07, 0.07], "tls": [0.1, 0.1]},
            "first_launch_us": {"plain": [[100.0, 200.0, 300.0], [100.0, 200.0, 300.0]],
                                "tls": [[1000.0, 700.0, 400.0], [1000.0, 700.0, 400.0]]},
        }
    return {"tls": tls, "placements": {"free": placement, "pinned": placement}}


class TransportSummary(unittest.TestCase):
    def test_ratios_are_contender_over_baseline_and_throughput_inverted(self):
        entry = summary.summarize_transports(transport_run())["placements"]["free"]
        self.assertAlmostEqual(entry["unix"]["rtt_ratio"]["echo_1k"], 0.7)
        self.assertAlmostEqual(entry["unix"]["rtt_ratio"]["sink_1k"], 0.7)
        self.assertAlmostEqual(entry["tls"]["rtt_ratio"]["echo_1k"], 1.15)
        self.assertAlmostEqual(entry["tls"]["bulk_ratio"], 0.7)
        self.assertAlmostEqual(entry["tls"]["bulk_mib_s"]["tls"]["median"], 640.0)
        # The difference of the medians of the three steps' sums.
        self.assertAlmostEqual(entry["tls"]["first_launch_extra_us"], 1500.0)

    def test_a_run_at_the_bounds_meets_them(self):
        judged = verdicts.transport_verdicts(summary.summarize_transports(transport_run()))
        self.assertEqual(judged, {"unix_rtt": True, "tls_rtt": True, "tls_bulk": True, "tls_first_launch": True})

    def test_a_run_without_tls_has_no_tls_figures(self):
        summarized = summary.summarize_transports(transport_run(tls=False))
        self.assertFalse(summarized["tls"])
        self.assertNotIn("tls", summarized["placements"]["free"])
        self.assertEqual(verdicts.transport_verdicts(summarized), {"unix_rtt": True})


class ServerReadiness(unittest.TestCase):
    def test_the_listening_line_in_either_case(self):
        for line in ("listening on 127.0.0.1:4242", "Listening on 127.0.0.1:4242", "LISTENING ON 127.0.0.1:4242"):
            found = measure.LISTENING.search("2026-01-01 INFO starting\n" + line + "\n")
            self.assertEqual(found.group(1), "127.0.0.1:4242")

    def test_a_unix_socket_address(self):
        self.assertEqual(measure.LISTENING.search("listening on unix:/tmp/x.sock\n").group(1), "unix:/tmp/x.sock")

    def test_only_at_the_start_of_a_line(self):
        self.assertIsNone(measure.LISTENING.search("INFO not listening on 127.0.0.1:4242\n"))



class TraceCostTest(unittest.TestCase):
    def test_the_cost_per_launch_is_the_difference_of_the_medians(self):
        raw = {"local_ns": {"off": [10.0, 12.0, 11.0], "on": [900.0, 1000.0, 950.0]},
               "remote_us": {"off": [30.0, 32.0], "on": [40.0, 44.0]}}
        cost = summary.summarize_trace_cost(raw)
        self.assertEqual(cost["local_ns"]["cost"], 950.0 - 11.0)
        self.assertEqual(cost["remote_us"]["cost"], 42.0 - 31.0)
        self.assertEqual(cost["local_ns"]["off"]["n"], 3)

if __name__ == "__main__":
    unittest.main()
