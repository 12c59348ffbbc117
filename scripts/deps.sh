#!/usr/bin/env bash
# scripts/deps.sh [PACKAGE...]
# Installs the Debian packages this project builds and tests with (LLVM/MLIR 22;
# openssh-server, whose sshd test/Deploy runs in a network namespace of its
# own; and Slurm's slurmctld, slurmd, slurm-client and munge, the cluster
# test/Deploy runs in network namespaces), or the ones named. Idempotent: prints nothing and changes nothing when
# everything is already present.
set -euo pipefail

if [ $# -gt 0 ]; then
  packages=("$@")
else
  # The LLVM version comes from the prefix .cargo/config.toml names: Debian's
  # llvm-N packages install into /usr/lib/llvm-N.
  prefix=$(bash "$(dirname "$0")/llvm-prefix")
  version=${prefix#/usr/lib/llvm-}
  if [[ ! "$version" =~ ^[0-9]+$ ]]; then
    # Not a Debian-packaged LLVM: nothing to install for it, but it must be there.
    [ -x "$prefix/bin/llvm-config" ] ||
      { echo "deps: $prefix/bin/llvm-config is missing (EXECUTOR_LLVM_PREFIX, .cargo/config.toml)" >&2; exit 1; }
    packages=(libzstd-dev openssh-server slurmctld slurmd slurm-client munge)
  else
    packages=("llvm-$version-dev" "libmlir-$version-dev" "mlir-$version-tools" "llvm-$version-tools"
      "libpolly-$version-dev" "clang-$version" libzstd-dev openssh-server slurmctld slurmd slurm-client munge)
  fi
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
