# Sourced by the test/Deploy scripts: start_executor_ssh EXECUTOR-SSH [ARGS...]
# starts executor-ssh in the background with its output in $out/stdout and
# $out/stderr (a fresh directory) and its pid in $pid, and waits (at most
# 30 s) until it has printed its address and token file; false if it did not.
start_executor_ssh() {
  out=$(mktemp -d)
  : >"$out/stdout"
  "$@" >"$out/stdout" 2>"$out/stderr" &
  pid=$!
  for _ in $(seq 300); do
    grep -q '^EXECUTOR_TOKEN_FILE=' "$out/stdout" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^EXECUTOR_TOKEN_FILE=' "$out/stdout"
}
