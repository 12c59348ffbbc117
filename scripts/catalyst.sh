#!/usr/bin/env bash
# scripts/catalyst.sh
# Fetches the `catalyst` CLI of pennylane-catalyst 0.15.0 (the wheel from PyPI,
# nothing else of Catalyst) into target/catalyst/bin/catalyst. Idempotent:
# prints nothing and changes nothing when the binary is already there.
set -euo pipefail

version=0.15.0
root=target/catalyst
binary=$root/bin/catalyst
[ -x "$binary" ] && exit 0

echo "catalyst: fetching pennylane-catalyst==$version from PyPI" >&2
python=$(command -v python3 || command -v python)
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
