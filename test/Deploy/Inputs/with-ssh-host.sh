#!/usr/bin/env bash
# with-ssh-host.sh COMMAND [ARGS...]
# Runs COMMAND against a real sshd on another network host, made for the run:
# two network namespaces of its own, "client" and "host", joined by a veth pair
# (10.0.0.1 and 10.0.0.2, which exist in these two namespaces only), sshd
# (a fresh host key, one authorized key) in "host" and COMMAND in "client",
# with SSH_CONFIG naming an ssh configuration in which the host
# "executor-host" is that sshd, and CLIENT_LINK the client's end of the link.
# Each side has a TMPDIR of its own. The sshd drops a client that has not
# answered for 3 s (ClientAliveInterval 1, ClientAliveCountMax 3).
#
# After COMMAND, it checks that nothing COMMAND started is left: no process in
# either namespace but sshd (within 10 s), nothing in the host's TMPDIR and no
# executor-ssh-* directory in the client's (programs that JIT code leave
# LLVM's .debug/jit dumps there: not executor-ssh's to remove). Then it
# removes sshd, the namespaces and its files, whether COMMAND or a check failed
# or not, and checks that the namespaces are gone. Exits with COMMAND's status,
# or 1 when a check fails.
set -u
PATH=$PATH:/usr/sbin:/sbin
id=$$
client=executor-ssh-client-$id
host=executor-ssh-host-$id
dir=$(mktemp -d)
status=1

fail() {
  echo "with-ssh-host.sh: $*" >&2
  status=1
}

cleanup() {
  [ -f "$dir/sshd.pid" ] && kill "$(cat "$dir/sshd.pid")" 2>/dev/null
  ip netns del "$client" 2>/dev/null
  ip netns del "$host" 2>/dev/null
  if ip netns list | grep -q -e "$client" -e "$host"; then
    fail "a namespace of the test is still there: $(ip netns list | grep -e "$client" -e "$host" | tr '\n' ' ')"
  fi
  rm -rf "$dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# At most 10 s for CONDITION (a command) to hold.
eventually() {
  for _ in $(seq 100); do
    "$@" && return 0
    sleep 0.1
  done
  "$@"
}

ip netns add "$client" && ip netns add "$host" || { fail "cannot create network namespaces"; exit; }
ip link add "exs${id}c" netns "$client" type veth peer name "exs${id}h" netns "$host" ||
  { fail "cannot create a veth pair"; exit; }
ip -n "$client" addr add 10.0.0.1/24 dev "exs${id}c"
ip -n "$host" addr add 10.0.0.2/24 dev "exs${id}h"
for ns in "$client" "$host"; do
  ip -n "$ns" link set lo up
done
ip -n "$client" link set "exs${id}c" up
ip -n "$host" link set "exs${id}h" up

mkdir -p "$dir/client-tmp" "$dir/host-tmp" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys"
cat >"$dir/sshd_config" <<EOF
ListenAddress 10.0.0.2
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
SetEnv TMPDIR=$dir/host-tmp
ClientAliveInterval 1
ClientAliveCountMax 3
EOF
echo "10.0.0.2 $(cat "$dir/host_key.pub")" >"$dir/known_hosts"
cat >"$dir/ssh_config" <<EOF
Host executor-host
  HostName 10.0.0.2
  User $(id -un)
  IdentityFile $dir/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
EOF

ip netns exec "$host" /usr/sbin/sshd -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
if ! eventually test -s "$dir/sshd.pid"; then
  fail "sshd did not start: $(cat "$dir/sshd.log")"
  exit
fi
sshd_pid=$(cat "$dir/sshd.pid")

ip netns exec "$client" env SSH_CONFIG="$dir/ssh_config" CLIENT_LINK="exs${id}c" TMPDIR="$dir/client-tmp" "$@"
status=$?

only_sshd_left() { [ "$(ip netns pids "$host")" = "$sshd_pid" ]; }
nothing_left() { [ -z "$(ip netns pids "$client")" ]; }
eventually only_sshd_left ||
  fail "processes left on the host: $(ip netns pids "$host" | grep -vx "$sshd_pid" | xargs -r ps -o pid=,args= -p)"
eventually nothing_left ||
  fail "processes left on the client: $(ip netns pids "$client" | xargs -r ps -o pid=,args= -p)"
[ -z "$(ls -A "$dir/host-tmp")" ] || fail "left in the host's TMPDIR: $(ls -A "$dir/host-tmp")"
left=$(cd "$dir/client-tmp" && ls -d executor-ssh-* 2>/dev/null)
[ -z "$left" ] || fail "left in the client's TMPDIR: $left"
exit
