#!/usr/bin/env bash
# What `make bench` needs beyond `make build`: hyperfine (whole-process
# timings), GNU time (peak memory), perf and strace (the profiles), from Debian;
# matplotlib (the plots) from PyPI into a virtualenv at target/bench/venv.
# Idempotent and quiet when everything is there; prints the virtualenv's python.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh hyperfine time linux-perf strace

venv=target/bench/venv
if ! "$venv/bin/python" -c 'import matplotlib' >/dev/null 2>&1; then
  echo "bench deps: installing matplotlib into $venv" >&2
  mkdir -p target/bench
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check matplotlib >&2
fi
echo "$venv/bin/python"
