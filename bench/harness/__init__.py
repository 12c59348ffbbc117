"""The modules of `make bench` (bench/run.py is the entry point), by job:

- common: paths, tools, pipelines, the run configuration (Config), running a command;
- measure: running the tools and servers and collecting raw samples (hyperfine,
  --mlir-timing, GNU time, the MLIR programs, Criterion; with --before, this
  tree's binaries and an earlier revision's in alternation; the transports:
  a Unix socket against TCP loopback, TLS against plaintext TCP);
- revision: checking out and building the earlier revision of --before REV;
- profiles: perf and strace profiles;
- summary: statistics over the raw samples (pure functions);
- verdicts: the performance targets and whether they are met, the other
  findings the report's text depends on, and whether each figure is no worse
  than the --before revision's (pure functions);
- plots: the PNG plots (matplotlib, imported only there);
- text: number formatting for the report;
- report: docs/performance.md, rendered from the summaries and the verdicts;
- session_passes: the session passes' part of the run, measuring to report.

Only `plots` needs anything beyond the standard library.
"""
