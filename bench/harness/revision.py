"""The earlier revision of `bench/run.py --before REV`: checked out in a git
worktree at target/bench/before/tree and built there with `cargo build
--release` (the whole workspace, whichever package builds executor-server in
that revision) into a target directory of its own, target/bench/before/target,
seeded on its first use with a copy of this tree's target/release (its
dependencies then need no rebuilding; the project's own crates and its C++
still do)."""
import os
import time
from pathlib import Path

from .common import BIN, ROOT, WORK, Binaries, log, run

BEFORE = WORK / "before"
TREE = BEFORE / "tree"
TARGET = BEFORE / "target"
# What cargo reuses of a build: the compiled crates, build scripts' outputs and fingerprints.
SEEDED = ("deps", "build", ".fingerprint")


def resolve(revision: str) -> dict:
    """The commit `revision` names (SystemExit if none): its hash, short hash and subject."""
    found = run(["git", "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], check=False)
    if found.returncode != 0:
        raise SystemExit(f"bench: --before {revision}: not a commit of this repository")
    commit = found.stdout.strip()
    return {
        "revision": revision,
        "commit": commit,
        "short": run(["git", "rev-parse", "--short", commit]).stdout.strip(),
        "subject": run(["git", "log", "-1", "--format=%s", commit]).stdout.strip(),
    }


def checkout(commit: str) -> None:
    """TREE at `commit`: a detached worktree of this repository, added on first
    use and moved to `commit` after. (`worktree add --force` also takes over the
    registration of a TREE that was deleted, by `make clean` say, without
    pruning anyone else's.)"""
    if (TREE / ".git").exists():
        run(["git", "checkout", "--quiet", "--force", "--detach", commit], cwd=TREE)
        run(["git", "clean", "--quiet", "-fd"], cwd=TREE)
    else:
        if TREE.exists():
            run(["rm", "-rf", TREE])
        BEFORE.mkdir(parents=True, exist_ok=True)
        run(["git", "worktree", "add", "--quiet", "--force", "--detach", TREE, commit])


def seed() -> bool:
    """Copies this tree's compiled dependencies into TARGET when it has none
    yet (cp --reflink=auto: a shallow copy where the file system can)."""
    release = TARGET / "release"
    if release.exists():
        return False
    release.mkdir(parents=True)
    for part in SEEDED:
        if (BIN / part).exists():
            run(["cp", "-a", "--reflink=auto", BIN / part, release / part])
    return True


def build(revision: str) -> tuple:
    """Checks out and builds `revision`; returns its Binaries and what to record
    about it (the commit, and the build's wall time)."""
    found = resolve(revision)
    log(f"--before {revision}: commit {found['short']} ({found['subject']}), worktree "
        f"{TREE.relative_to(ROOT)}")
    checkout(found["commit"])
    seeded = seed()
    if seeded:
        log(f"--before: seeded {TARGET.relative_to(ROOT)} with a copy of {BIN.relative_to(ROOT)}/"
            + "{" + ",".join(SEEDED) + "}")
    cargo = os.environ.get("CARGO", "cargo")
    log(f"--before: cargo build --release in {TREE.relative_to(ROOT)} (CARGO_TARGET_DIR="
        f"{TARGET.relative_to(ROOT)}, CARGO_BUILD_JOBS={os.environ.get('CARGO_BUILD_JOBS', 'unset')})")
    started = time.time()
    run([cargo, "build", "--release"], cwd=TREE, env={**os.environ, "CARGO_TARGET_DIR": str(TARGET)})
    build_s = time.time() - started
    binaries = Binaries(TARGET / "release")
    if binaries.missing():
        raise SystemExit(f"bench: the build of {revision} made no " + ", ".join(
            str(path.relative_to(ROOT)) for path in binaries.missing()))
    log(f"--before: built {found['short']} in {build_s / 60:.1f} minutes")
    return binaries, {**found, "build_s": build_s, "seeded": seeded,
                      "jobs": os.environ.get("CARGO_BUILD_JOBS")}
