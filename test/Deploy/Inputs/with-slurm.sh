#!/usr/bin/env bash
# with-slurm.sh COMMAND [ARGS...]
# Runs COMMAND against a real Slurm made for the run: a controller and three
# compute nodes, each in a network namespace (and a UTS namespace, for its
# host name) of its own, on a bridge: slurmctld on "ctl" (.2), one slurmd on
# each of node0, node1 and node2 (.10, .11, .12 of a 10.x.y.0/24 derived from
# this script's process id), one munged whose socket they all share (the
# file system is shared), and the partition "executors" over the three nodes,
# without cgroups (proctrack/linuxproc, task/none).
#
# COMMAND runs outside the namespaces, on the bridge (.1), with SLURM_CONF
# naming the cluster's configuration (so sbatch and squeue reach it), TMPDIR
# a directory of its own that every node shares, NODE_NAMESPACES the three
# nodes' namespaces and NODE_ADDRESSES their addresses (space-separated, in
# order).
#
# After COMMAND, it checks that nothing COMMAND started is left: no job in
# the queue, no process on any node but its slurmd (within 20 s), and no
# executor-slurm* directory in TMPDIR. Then it stops the daemons, removes the
# namespaces, the bridge and its files, whether COMMAND or a check failed or
# not, and checks that the namespaces are gone. Exits with COMMAND's status,
# or 1 when a check fails.
set -u
PATH=$PATH:/usr/sbin:/sbin
id=$$
prefix=exsl$id
# Under /tmp, not $TMPDIR: munged wants every directory above its socket open
# to all.
dir=$(mktemp -d /tmp/with-slurm.XXXXXXXX)
subnet=10.$((150 + id % 50)).$(((id / 50) % 256))
nodes=(node0 node1 node2)
status=1
daemons=()
command=

fail() {
  echo "with-slurm.sh: $*" >&2
  status=1
}

# At most $1 tenths of a second for CONDITION (the rest) to hold.
within() {
  local tenths=$1
  shift
  for _ in $(seq "$tenths"); do
    "$@" && return 0
    sleep 0.1
  done
  "$@"
}

stop_daemon() {
  local pid=$1
  kill "$pid" 2>/dev/null || return 0
  within 100 eval "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

cleanup() {
  local pid namespace
  if [ -n "$command" ]; then
    kill -TERM -- "-$command" 2>/dev/null
    within 100 eval "! kill -0 -- -$command 2>/dev/null" || kill -KILL -- "-$command" 2>/dev/null
  fi
  for pid in "${daemons[@]}"; do
    stop_daemon "$pid"
  done
  # What the daemons left (a job's processes, when a check failed).
  for namespace in "$prefix-ctl" "${nodes[@]/#/$prefix-}"; do
    ip netns pids "$namespace" 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns del "$namespace" 2>/dev/null
  done
  ip link del "$prefix" 2>/dev/null
  if ip netns list | grep -q "^$prefix-"; then
    fail "a namespace of the test is still there: $(ip netns list | grep "^$prefix-" | tr '\n' ' ')"
  fi
  rm -rf "$dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The network: a bridge, and one namespace on it per host.
ip link add "$prefix" type bridge && ip addr add "$subnet.1/24" dev "$prefix" && ip link set "$prefix" up ||
  { fail "cannot create a bridge"; exit; }
join() { # join NAMESPACE INDEX HOST-NUMBER
  ip netns add "$1" &&
    ip link add "${prefix}o$2" type veth peer name "${prefix}i$2" &&
    ip link set "${prefix}i$2" netns "$1" &&
    ip link set "${prefix}o$2" master "$prefix" up &&
    ip -n "$1" addr add "$subnet.$3/24" dev "${prefix}i$2" &&
    ip -n "$1" link set "${prefix}i$2" up &&
    ip -n "$1" link set lo up
}
join "$prefix-ctl" c 2 || { fail "cannot create the controller's namespace"; exit; }
addresses=()
for i in "${!nodes[@]}"; do
  join "$prefix-${nodes[$i]}" "$i" $((10 + i)) || { fail "cannot create ${nodes[$i]}'s namespace"; exit; }
  addresses+=("$subnet.$((10 + i))")
done

# munge: one daemon, its socket in a directory everyone may enter.
chmod 711 "$dir"
mkdir -m 700 "$dir/munge" && mkdir -m 755 "$dir/munge-socket" && mkdir -m 1777 "$dir/tmp"
head -c 1024 /dev/urandom >"$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key"
socket=$dir/munge-socket/munge.socket
munged -F --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munge/munged.pid" \
  --seed-file="$dir/munge/munged.seed" --log-file="$dir/munge/munged.log" 2>>"$dir/munge/munged.log" &
daemons+=($!)
within 100 test -S "$socket" || { fail "munged did not start: $(tail -n 3 "$dir/munge/munged.log")"; exit; }

conf=$dir/slurm.conf
cat >"$conf" <<EOF
ClusterName=executor-test
SlurmctldHost=ctl($subnet.2)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/ctl
SlurmctldPidFile=$dir/ctl/slurmctld.pid
SlurmctldLogFile=$dir/ctl/slurmctld.log
SlurmdSpoolDir=$dir/%n
SlurmdPidFile=$dir/%n/slurmd.pid
SlurmdLogFile=$dir/%n/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
# Heterogeneous jobs are started by the backfill scheduler: every second.
SchedulerParameters=bf_interval=1
MessageTimeout=10
NodeName=DEFAULT CPUs=2 RealMemory=100 State=UNKNOWN
EOF
for i in "${!nodes[@]}"; do
  echo "NodeName=${nodes[$i]} NodeAddr=${addresses[$i]}" >>"$conf"
  mkdir -p "$dir/${nodes[$i]}"
done
# Nothing here uses cgroups; slurmd loads the plugin all the same, and
# autodetecting its version fails under ip netns exec's own /sys.
echo "CgroupPlugin=cgroup/v1" >"$dir/cgroup.conf"
echo "PartitionName=executors Nodes=$(IFS=,; echo "${nodes[*]}") Default=YES MaxTime=INFINITE State=UP" >>"$conf"
mkdir -p "$dir/ctl"
export SLURM_CONF=$conf

# host NAMESPACE NAME COMMAND...: becomes COMMAND, in NAMESPACE under the host name NAME.
host() {
  exec ip netns exec "$1" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$2" "${@:3}"
}
host "$prefix-ctl" ctl slurmctld -D -f "$conf" 2>>"$dir/ctl/stderr" &
daemons+=($!)
for node in "${nodes[@]}"; do
  host "$prefix-$node" "$node" slurmd -D -f "$conf" 2>>"$dir/$node/stderr" &
  daemons+=($!)
done
alive() { for pid in "${daemons[@]}"; do kill -0 "$pid" 2>/dev/null || return 1; done; }
idle() { alive && [ "$(sinfo -h -o %t 2>/dev/null | sort -u)" = idle ] && [ "$(sinfo -h -o %D)" = 3 ]; }
if ! within 300 idle || ! alive; then
  fail "the nodes did not come up within 30 s: $(sinfo -h 2>&1 | tr '\n' ';')"
  tail -n 5 "$dir"/*/stderr "$dir"/*/slurm*.log >&2
  exit
fi

# COMMAND in a process group of its own, which cleanup stops if it still runs.
env TMPDIR="$dir/tmp" NODE_NAMESPACES="${nodes[*]/#/$prefix-}" NODE_ADDRESSES="${addresses[*]}" setsid "$@" &
command=$!
wait "$command"
status=$?
command=

no_jobs() { [ -z "$(squeue -h 2>&1)" ]; }
within 200 no_jobs || fail "jobs left: $(squeue -h 2>&1 | tr '\n' ';')"
for i in "${!nodes[@]}"; do
  only_slurmd() { [ "$(ip netns pids "$prefix-${nodes[$i]}")" = "${daemons[$((2 + i))]}" ]; }
  within 200 only_slurmd ||
    fail "processes left on ${nodes[$i]}: $(ip netns pids "$prefix-${nodes[$i]}" |
      grep -vx "${daemons[$((2 + i))]}" | xargs -r ps -o pid=,args= -p | tr '\n' ';')"
done
left=$(cd "$dir/tmp" && ls -d executor-slurm* 2>/dev/null)
[ -z "$left" ] || fail "left in TMPDIR: $left"
exit
