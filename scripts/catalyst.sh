#!/usr/bin/env bash
# scripts/catalyst.sh
# Fetches the `catalyst` CLI of pennylane-catalyst 0.15.0 into
# target/catalyst/bin/catalyst (the wheel from PyPI, nothing else of Catalyst),
# and installs the package with its dependencies (PennyLane, JAX: 262 MB of
# wheels, 1.2 GB installed) into the virtualenv target/catalyst/venv for the
# Python route, `qml.qjit(dialect_plugins=...)`. Idempotent: prints nothing and
# changes nothing when both are already there.
set -euo pipefail

version=0.15.0
root=target/catalyst
binary=$root/bin/catalyst
venv=$root/venv
python=$(command -v python3 || command -v python)

# The package installs its CLI into the virtualenv's bin/ as well.
if [ ! -x "$venv/bin/catalyst" ]; then
  echo "catalyst: installing pennylane-catalyst==$version into $venv" >&2
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pennylane-catalyst==$version"
fi

[ -x "$binary" ] && exit 0

echo "catalyst: fetching pennylane-catalyst==$version from PyPI" >&2
"$python" -m pip download --quiet --no-deps --only-binary=:all: \
  --dest "$root/wheel" "pennylane-catalyst==$version"
wheel=$(ls "$root"/wheel/pennylane_catalyst-"$version"-*.whl)
mkdir -p "$root/bin"
"$python" - "$wheel" "$binary" <<'PY'
import shutil, sys, zipfile
wheel, binary = sys.argv[1], sys.argv[2]
member = "pennylane_catalyst-0.15.0.data/data/bin/catalyst"
with zipfile.ZipFile(wheel) as archive, archive.open(member) as source, open(binary + ".part", "wb") as target:
    shutil.copyfileobj(source, target)
PY
chmod +x "$binary.part"
mv "$binary.part" "$binary"
"$binary" --version | grep -q "LLVM version 22.0.0git" ||
  { echo "catalyst: $binary is not the LLVM 22.0.0git build this project was tested with" >&2; exit 1; }
