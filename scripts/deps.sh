#!/usr/bin/env bash
# scripts/deps.sh [PACKAGE...]
# Installs the Debian packages this project builds and tests with (LLVM/MLIR 22),
# or the ones named. Idempotent: prints nothing and changes nothing when
# everything is already present.
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libpolly-22-dev clang-22 libzstd-dev)
[ $# -gt 0 ] && packages=("$@")

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
