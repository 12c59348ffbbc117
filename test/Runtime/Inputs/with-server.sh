#!/usr/bin/env bash
# with-server.sh SERVER [SERVER-ARGS...] -- COMMAND [ARGS...]
# Starts SERVER on a free loopback port (or on the --listen address among
# SERVER-ARGS, such as unix:PATH), runs COMMAND with EXECUTOR_ADDRESS set to
# the server's (first) address, then stops the server (with SIGTERM, so that
# it removes a socket file it made). Exits with COMMAND's status.
# With WITH_SERVER_LOG set, the server's output (what its kernels printed, its
# log) is saved there.
set -u
server=$1
shift
server_args=()
listen=(--listen 127.0.0.1:0)
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  [ "$1" = "--listen" ] && listen=()
  server_args+=("$1")
  shift
done
shift
log=$(mktemp)
"$server" "${listen[@]}" "${server_args[@]}" >"$log" 2>&1 &
pid=$!
stop() {
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ -n "${WITH_SERVER_LOG:-}" ] && cp "$log" "$WITH_SERVER_LOG"
  rm -f "$log"
}
trap stop EXIT
address=""
for _ in $(seq 200); do
  address=$(sed -n 's/^Listening on //p' "$log" | head -n 1)
  [ -n "$address" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
if [ -z "$address" ]; then
  echo "with-server.sh: $server did not start:" >&2
  cat "$log" >&2
  exit 1
fi
EXECUTOR_ADDRESS=$address "$@"
