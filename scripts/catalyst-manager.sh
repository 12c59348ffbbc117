#!/usr/bin/env bash
# scripts/catalyst-manager.sh [CATALYST_GIT]
# Fetches Catalyst's deployment manager, the Python package catalyst.executor
# (frontend/catalyst/executor/*.py of PennyLaneAI/catalyst at a pinned commit;
# no pennylane-catalyst release has it yet), into
# target/catalyst/manager/catalyst/executor/, for test/Deploy/catalyst-manager*
# and docs/catalyst.md. From CATALYST_GIT (a clone of Catalyst: its work tree
# or its git directory) when given, else from raw.githubusercontent.com. Each
# file is checked against its SHA-256 at that commit.
#
# The manager needs nothing of Catalyst but one function,
# catalyst.utils.runtime_environment.get_lib_path (where an installed Catalyst
# keeps a bundled catalyst-executor); importing the real `catalyst` package
# would import JAX and PennyLane. So this writes a stand-in `catalyst` package
# around it: an empty __init__.py, and a get_lib_path that names a directory
# holding no catalyst-executor, after which the manager runs the one on PATH.
# Idempotent: prints nothing and changes nothing when the files are there.
set -euo pipefail

commit=663cf5a3f070f06498fdfbbc8502a9a353e07df2
root=target/catalyst/manager
package=$root/catalyst
files="__init__.py 5f89503a3b67fbc5e6f095ecdc53e0e2e589f289279cc48ed85b842c205629c3
manager.py b8e00ae4f9cb9bfe3644524aca056eff2afa338d0579934ed23105c2f1a8ae32
process.py 45474cd55ede18179496a314f80db919f7a4a7efcf95b4ffa9a9f894da2921da
ssh.py 1a6400413ccdd2850aa674edd1215734535f001f2b9dd1560df8a0d76535d253
utils.py 20584a2f145211ce41b059164c94c1ec91f0990f3500aaa33ff341c5fa20debf"
source=${1:-}

fetch() { # fetch FILE: its text at $commit, on stdout
  local path=frontend/catalyst/executor/$1
  if [ -n "$source" ]; then
    git -C "$source" show "$commit:$path"
  else
    curl -fsSL "https://raw.githubusercontent.com/PennyLaneAI/catalyst/$commit/$path"
  fi
}

complete=yes
while read -r file sum; do
  echo "$sum  $package/executor/$file" | sha256sum --check --status 2>/dev/null || complete=no
done <<<"$files"
[ "$complete" = yes ] && [ -f "$package/utils/runtime_environment.py" ] && exit 0

echo "catalyst-manager: fetching catalyst.executor at $commit from ${source:-GitHub}" >&2
trap 'rm -rf "$root.part"' EXIT
rm -rf "$root.part"
mkdir -p "$root.part/catalyst/executor" "$root.part/catalyst/utils"
while read -r file sum; do
  fetch "$file" >"$root.part/catalyst/executor/$file" ||
    { echo "catalyst-manager: cannot fetch $file (give a clone of Catalyst: make catalyst-manager CATALYST_GIT=DIR)" >&2; exit 1; }
  echo "$sum  $root.part/catalyst/executor/$file" | sha256sum --check --status ||
    { echo "catalyst-manager: $file is not the file of commit $commit" >&2; exit 1; }
done <<<"$files"

cat >"$root.part/catalyst/__init__.py" <<'PY'
"""A stand-in for the `catalyst` package, written by scripts/catalyst-manager.sh:
only catalyst.executor (Catalyst's own files) and what it imports."""
PY
: >"$root.part/catalyst/utils/__init__.py"
cat >"$root.part/catalyst/utils/runtime_environment.py" <<'PY'
"""The one function of Catalyst's runtime_environment that catalyst.executor
imports (written by scripts/catalyst-manager.sh). Where a Catalyst from source
keeps its libraries: $ENV_VAR when set, else a directory with no
catalyst-executor in it, so that the manager runs the one on PATH."""
import os


def get_lib_path(project, env_var):
    return os.getenv(env_var, os.path.join(os.path.dirname(__file__), "no-lib"))
PY
rm -rf "$root"
mv "$root.part" "$root"
