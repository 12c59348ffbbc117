#!/usr/bin/env bash
# cut-link.sh EXECUTOR-SSH [ARGS...]
# Starts EXECUTOR-SSH ARGS... (no command: it serves until stopped), waits for
# its address, takes the client's link ($CLIENT_LINK) down, and prints
# executor-ssh's exit status and the last line it wrote once it has ended (at
# most 30 s later; past that it is killed and this says so).
set -u
. "$(dirname "$0")/start-executor-ssh.sh"
start_executor_ssh "$@" || echo "cut-link.sh: executor-ssh did not print its address"
ip link set "$CLIENT_LINK" down
for _ in $(seq 300); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  echo "cut-link.sh: executor-ssh still runs 30 s after the link went down"
  kill -KILL "$pid"
fi
wait "$pid"
echo "executor-ssh exited with status $?"
tail -n 1 "$out/stderr"
rm -rf "$out"
