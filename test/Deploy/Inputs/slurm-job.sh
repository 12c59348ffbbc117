#!/usr/bin/env bash
# slurm-job.sh [--kill-server NODE] SBATCH-ARG... -- COMMAND [ARG...]
# Submits a batch job (sbatch SBATCH-ARG...) that runs COMMAND, waits for it
# to end (at most 120 s in all), and prints the job's output, then "COMMAND exited with
# status N". With --kill-server NODE (run under with-slurm.sh), once the
# job's output has the last result of Inputs/slurm-host.mlir's @main, it kills
# (SIGKILL) the executor-server on NODE, a node namespace of
# $NODE_NAMESPACES, by number.
set -u
kill_node=
if [ "$1" = --kill-server ]; then
  kill_node=$2
  shift 2
fi
sbatch_args=()
while [ "$1" != -- ]; do
  sbatch_args+=("$1")
  shift
done
shift
out=$(mktemp "$TMPDIR/job.XXXXXX")
job=$(sbatch --parsable -o "$out" "${sbatch_args[@]}" \
  --wrap "$(printf '%q ' "$@"); echo \"$(basename "$1") exited with status \$?\"") || exit 1

# The main process of the executor-server in NAMESPACE (not its workers):
# the one started with --listen.
server_in() {
  local pid
  for pid in $(ip netns pids "$1"); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "executor-server --listen" && echo "$pid"
  done
}
if [ -n "$kill_node" ]; then
  namespaces=($NODE_NAMESPACES)
  for _ in $(seq 600); do
    grep -q '^\[0,  3,  6,  9\]' "$out" && break
    sleep 0.1
  done
  pid=$(server_in "${namespaces[$kill_node]}")
  if [ -n "$pid" ]; then
    kill -KILL "$pid"
  else
    echo "slurm-job.sh: no executor-server runs on node $kill_node"
  fi
fi
# (sbatch --wait polls every few seconds.)
for _ in $(seq 1200); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.1
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || echo "slurm-job.sh: job $job still runs after 120 s"
cat "$out"
rm -f "$out"
