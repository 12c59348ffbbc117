# -*- Python -*-
# The lit configuration of executor-mlir, laid out as MLIR's out-of-tree
# `standalone` example: lit runs it through the site configuration
# (lit.site.cfg.py) that tests/lit.rs writes for the build under test, into
# target/release/lit/ for `cargo test --release`. That file sets the paths used
# here (config.llvm_tools_dir, config.llvm_lib_dir, config.executor_tools_dir,
# config.executor_catalyst_root) and the directory the tests run in, and says how
# to run lit by hand.
import os
import shutil
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config  # set by lit.llvm.initialize in the site config
from lit.llvm.subst import ToolSubst

if not hasattr(config, "executor_tools_dir"):
    lit_config.fatal(
        "run lit on the directory of the generated lit.site.cfg.py (target/release/lit "
        "after `cargo test --release --test lit`), not on test/"
    )

config.name = "executor-mlir"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
# Python tests are the ones that drive Catalyst through its Python API; .test
# files test what is not MLIR (test/Deploy: make install, executor-ssh).
config.suffixes = [".mlir", ".py", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.executor_exec_root
# Inputs/ hold the files tests use, this file is Python but no test.
config.excludes = ["Inputs", "lit.cfg.py"]
project_root = os.path.dirname(config.test_source_root)
config.substitutions.append(("%project_include", os.path.join(project_root, "include")))

llvm_bin = config.llvm_tools_dir
project_bin = config.executor_tools_dir
plugin = os.path.join(project_bin, "libexecutor_plugin.so")
config.substitutions.append(("%executor_plugin", plugin))
runtime_lib = os.path.join(project_bin, "libexecutor_runtime.so")
config.substitutions.append(("%runtime_lib", runtime_lib))
# `cargo test` does not build the cdylibs: a missing artifact is an error, never
# a silently skipped test. `make test` builds everything first.
for artifact in ["executor-opt", "executor-run", "executor-server", "libexecutor_plugin.so", "libexecutor_runtime.so"]:
    if not os.path.exists(os.path.join(project_bin, artifact)):
        lit_config.fatal(f"{os.path.join(project_bin, artifact)} is missing: run `cargo build --release` first (make test does)")
llvm_lib = config.llvm_lib_dir
runner_libs = ",".join(
    [runtime_lib, os.path.join(llvm_lib, "libmlir_c_runner_utils.so"), os.path.join(llvm_lib, "libmlir_runner_utils.so")]
)
# Runs a lowered host module's @main with the executor runtime and MLIR's runner utils.
config.substitutions.append(
    ("%run_host", f"{os.path.join(llvm_bin, 'mlir-runner')} -e main -entry-point-result=void -shared-libs={runner_libs}")
)
# The same for a host module that uses the async dialect: MLIR's async runtime
# too, and -O0, which runs LLVM's coroutine passes (the JIT's default does not).
config.substitutions.append(
    (
        "%run_async_host",
        f"{os.path.join(llvm_bin, 'mlir-runner')} -O0 -e main -entry-point-result=void "
        f"-shared-libs={runner_libs},{os.path.join(llvm_lib, 'libmlir_async_runtime.so')}",
    )
)
# Compiles kernels written in func/scf/arith/memref down to the LLVM dialect.
config.substitutions.append(
    (
        "%kernel_pipeline",
        "'builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,"
        "finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)'",
    )
)
config.substitutions.append(
    (
        "%with_server",
        " ".join(
            [
                os.path.join(config.test_source_root, "Runtime", "Inputs", "with-server.sh"),
                os.path.join(project_bin, "executor-server"),
            ]
        ),
    )
)
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment["PATH"]])

# test/Deploy: the project's root (for make install), the SSH and Slurm
# recipes, and the sshd and the Slurm cluster in network namespaces that test
# them, which need root (creating network namespaces) and openssh-server, or
# munge, slurmctld and slurmd (scripts/deps.sh installs them): without them
# the tests that REQUIRE `ssh-netns` or `slurm-netns` are reported
# unsupported, and why is said.
config.substitutions.append(("%project_root", project_root))
config.substitutions.append(("%executor_ssh", os.path.join(project_root, "scripts", "executor-ssh")))
config.substitutions.append(("%executor_slurm", os.path.join(project_root, "scripts", "executor-slurm")))
config.substitutions.append(("%executor_server", os.path.join(project_bin, "executor-server")))
# Checks a trace file against the Trace Event Format and prints what it holds.
config.substitutions.append(("%trace_check", os.path.join(project_root, "scripts", "trace-check")))
config.substitutions.append(
    ("%with_ssh_host", os.path.join(config.test_source_root, "Deploy", "Inputs", "with-ssh-host.sh"))
)
config.substitutions.append(("%with_slurm", os.path.join(config.test_source_root, "Deploy", "Inputs", "with-slurm.sh")))


def netns_missing(tools, package):
    """Why tests of daemons in network namespaces cannot run here (the tools
    they need, which `package` installs), or None."""
    sbin_path = os.pathsep.join([config.environment["PATH"], "/usr/sbin", "/sbin"])
    for tool in ["ip", "unshare", *tools]:
        if shutil.which(tool, path=sbin_path) is None:
            return f"{tool} is not installed (scripts/deps.sh installs {package})"
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    if subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode != 0:
        return "this machine does not allow network namespaces (unshare --net failed)"
    return None


# What an executor-server's worker does only when its client can run on
# another CPU meanwhile (tools/executor-server/src/worker.rs, link_ahead).
if len(os.sched_getaffinity(0)) > 1:
    config.available_features.add("more-than-one-cpu")
else:
    lit_config.note("test/Runtime/link-ahead.mlir is unsupported here: this process may run on one CPU only")

# The runtime links a large object into a shared library with `cc`
# (runtime/src/local/object_library.rs).
if shutil.which("cc"):
    config.available_features.add("cc")
else:
    lit_config.note("test/Runtime/object-library.mlir and saved-layout.mlir are unsupported here: no cc")
if shutil.which("systemd-analyze"):
    config.available_features.add("systemd-analyze")
else:
    lit_config.note("test/Deploy/systemd-units.test is unsupported here: systemd-analyze is not installed")
missing = netns_missing(["ssh", "ssh-keygen", "sshd"], "openssh-server")
if missing is None:
    config.available_features.add("ssh-netns")
else:
    lit_config.note(f"test/Deploy's SSH tests are unsupported here: {missing}")
missing = netns_missing(["munged", "slurmctld", "slurmd", "sbatch", "scontrol"], "munge, slurmctld and slurmd")
if missing is None:
    config.available_features.add("slurm-netns")
else:
    lit_config.note(f"test/Deploy's Slurm tests are unsupported here: {missing}")

# Catalyst's own `catalyst` CLI and the plugin built for it, where `make
# catalyst` has fetched them (docs/catalyst.md); without them the tests that
# REQUIRE `catalyst` are reported unsupported.
catalyst_root = config.executor_catalyst_root
catalyst_bin = os.path.join(catalyst_root, "bin", "catalyst")
catalyst_plugin = os.path.join(catalyst_root, "build", "release", "libexecutor_plugin.so")
if os.path.exists(catalyst_bin):
    if not os.path.exists(catalyst_plugin):
        lit_config.fatal(f"{catalyst_plugin} is missing: run `make catalyst` (make test builds it too)")
    config.available_features.add("catalyst")
# `catalyst --tool=opt` runs Catalyst's whole compilation pipeline unless
# --pass-pipeline names a pass; strip-debuginfo changes nothing that is printed
# without locations, so this parses, verifies and prints.
config.substitutions.append(
    ("%catalyst_parse_print", f"{catalyst_bin} --tool=opt --pass-pipeline='builtin.module(strip-debuginfo)'")
)
config.substitutions.append(("%catalyst_opt", f"{catalyst_bin} --tool=opt"))
# The virtualenv with pennylane-catalyst, for `qml.qjit(dialect_plugins=...)`.
catalyst_python = os.path.join(catalyst_root, "venv", "bin", "python")
if os.path.exists(catalyst_python):
    config.available_features.add("catalyst-python")
config.substitutions.append(("%catalyst_python", catalyst_python))
config.substitutions.append(("%catalyst_plugin", catalyst_plugin))

# Catalyst's deployment manager (the Python package catalyst.executor), where
# `make catalyst-manager` has fetched it: test/Deploy/catalyst-manager*.test
# REQUIRE `catalyst-manager`. It needs Python 3.11 (typing.Self).
catalyst_manager = os.path.join(catalyst_root, "manager")
if not os.path.exists(os.path.join(catalyst_manager, "catalyst", "executor", "manager.py")):
    lit_config.note("test/Deploy's catalyst-manager tests are unsupported here: run `make catalyst-manager` first")
elif sys.version_info < (3, 11):
    lit_config.note("test/Deploy's catalyst-manager tests are unsupported here: Catalyst's manager needs Python 3.11")
else:
    config.available_features.add("catalyst-manager")
config.substitutions.append(("%catalyst_manager", catalyst_manager))

llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions(
    [
        ToolSubst("executor-opt", command=os.path.join(project_bin, "executor-opt"), unresolved="fatal"),
        ToolSubst("executor-run", command=os.path.join(project_bin, "executor-run"), unresolved="fatal"),
        # Upstream's mlir-opt, spelled out so a test can never pick up another one.
        ToolSubst("mlir-opt", command=os.path.join(llvm_bin, "mlir-opt"), unresolved="fatal"),
        ToolSubst("mlir-translate", command=os.path.join(llvm_bin, "mlir-translate"), unresolved="fatal"),
        ToolSubst("split-file", command=os.path.join(llvm_bin, "split-file"), unresolved="fatal"),
        ToolSubst("clang", command=os.path.join(llvm_bin, "clang"), unresolved="fatal"),
        ToolSubst("llc", command=os.path.join(llvm_bin, "llc"), unresolved="fatal"),
        ToolSubst("llvm-nm", command=os.path.join(llvm_bin, "llvm-nm"), unresolved="fatal"),
    ],
    [project_bin, llvm_bin],
)
