#!/usr/bin/env bash
# What `make bench` needs beyond `make build`: hyperfine (whole-process
# timings), GNU time (peak memory), perf and strace (the profiles), from Debian;
# matplotlib (the plots) from PyPI into a virtualenv at target/bench/venv.
# Idempotent and quiet when everything is there; prints the virtualenv's python.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(hyperfine time linux-perf strace)
missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench deps: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv=target/bench/venv
if ! "$venv/bin/python" -c 'import matplotlib' >/dev/null 2>&1; then
  echo "bench deps: installing matplotlib into $venv" >&2
  mkdir -p target/bench
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check matplotlib >&2
fi
echo "$venv/bin/python"
