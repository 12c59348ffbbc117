#!/usr/bin/env bash
# slurm-job.sh [--after TEXT (--kill-server NODE | --kill-task NODE | --cancel)] SBATCH-ARG... -- COMMAND [ARG...]
# Submits a batch job (sbatch SBATCH-ARG...) that runs COMMAND, waits for it
# to end (at most 120 s in all), and prints the job's output, then "COMMAND
# exited with status N". With --after, once the job's output contains TEXT,
# it kills (SIGKILL) the executor-server on NODE, a node namespace of
# $NODE_NAMESPACES by number (run under with-slurm.sh), or the whole
# executor-slurm task there (its shell, the server), or cancels the job
# (scancel: the job's end).
set -u
after= kill_node= kill_what= cancel=
if [ "$1" = --after ]; then
  after=$2
  case $3 in
    --kill-server) kill_node=$4 kill_what="executor-server --listen" && shift ;;
    --kill-task) kill_node=$4 kill_what="executor-slurm" && shift ;;
    --cancel) cancel=1 ;;
  esac
  shift 3
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

# The processes in NAMESPACE whose command line contains TEXT: with
# "executor-server --listen", the server's main process (not its workers);
# with "executor-slurm", the task's shell and the server.
processes_in() {
  local pid
  for pid in $(ip netns pids "$1"); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -F -- "$2" && echo "$pid"
  done
}
if [ -n "$after" ]; then
  for _ in $(seq 600); do
    grep -q -F -- "$after" "$out" && break
    sleep 0.1
  done
  grep -q -F -- "$after" "$out" || echo "slurm-job.sh: the job did not print '$after' within 60 s"
fi
if [ -n "$kill_node" ]; then
  namespaces=($NODE_NAMESPACES)
  pids=$(processes_in "${namespaces[$kill_node]}" "$kill_what")
  if [ -n "$pids" ]; then
    kill -KILL $pids
  else
    echo "slurm-job.sh: nothing of '$kill_what' runs on node $kill_node"
  fi
fi
[ -n "$cancel" ] && scancel "$job"
# (sbatch --wait polls every few seconds.)
for _ in $(seq 1200); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.1
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || echo "slurm-job.sh: job $job still runs after 120 s"
cat "$out"
rm -f "$out"
