#!/usr/bin/env bash
# launch-then-signal.sh SIGNAL EXECUTOR-RUN PROGRAM EXECUTOR-SSH [ARGS...]
# Starts EXECUTOR-SSH ARGS... (no command: it prints the address, the
# configuration file and the token file, then waits), runs the dispatch-form PROGRAM with EXECUTOR-RUN on that
# address, sends SIGNAL to executor-ssh and prints its exit status. A killed
# executor-ssh (KILL) cannot remove its local directory: this removes it, once
# it has checked it is there.
set -u
signal=$1
executor_run=$2
program=$3
shift 3
. "$(dirname "$0")/start-executor-ssh.sh"
if ! start_executor_ssh "$@"; then
  echo "launch-then-signal.sh: executor-ssh did not print its address:" >&2
  cat "$out/stderr" >&2
  kill "$pid" 2>/dev/null
  wait "$pid"
  rm -rf "$out"
  exit 1
fi
EXECUTOR_ADDRESS=$(sed -n 's/^EXECUTOR_ADDRESS=//p' "$out/stdout")
EXECUTOR_TOKEN_FILE=$(sed -n 's/^EXECUTOR_TOKEN_FILE=//p' "$out/stdout")
EXECUTOR_CONFIG=$(sed -n 's/^EXECUTOR_CONFIG=//p' "$out/stdout")
export EXECUTOR_TOKEN_FILE EXECUTOR_CONFIG
sed "/executor.target/s|local|$EXECUTOR_ADDRESS|" "$program" | "$executor_run" -
kill "-$signal" "$pid"
wait "$pid"
echo "executor-ssh exited with status $?"
if [ "$signal" = KILL ]; then
  [ -f "$EXECUTOR_TOKEN_FILE" ] && echo "its token file is left"
  rm -rf "$(dirname "$EXECUTOR_TOKEN_FILE")"
fi
rm -rf "$out"
