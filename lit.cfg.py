# -*- Python -*-
# The lit configuration of executor-mlir. `cargo test` (tests/lit.rs) runs it on
# test/; by hand: $LLVM/bin/lit -sv --param=llvm_prefix=$LLVM test, with LLVM the
# prefix .cargo/config.toml names (scripts/llvm-prefix prints it)
import os

import lit.formats
import lit.llvm

lit.llvm.initialize(lit_config, config)
from lit.llvm import llvm_config  # noqa: E402 (set by initialize)
from lit.llvm.subst import ToolSubst  # noqa: E402

config.name = "executor-mlir"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
# Python tests are the ones that drive Catalyst through its Python API.
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "target", "lit")
# Only test/ holds tests; examples/ and docs/ hold .mlir files without RUN lines.
config.excludes = ["examples", "docs", "bench", "target", "Inputs"]
config.substitutions.append(("%project_include", os.path.join(config.test_source_root, "include")))

llvm_prefix = lit_config.params.get("llvm_prefix")
if not llvm_prefix:
    lit_config.fatal("--param=llvm_prefix=... is missing (scripts/llvm-prefix prints it)")
llvm_bin = os.path.join(llvm_prefix, "bin")
project_bin = lit_config.params.get(
    "project_bin", os.path.join(config.test_source_root, "target", "release")
)
config.llvm_tools_dir = llvm_bin
plugin = os.path.join(project_bin, "libexecutor_plugin.so")
config.substitutions.append(("%executor_plugin", plugin))
runtime_lib = os.path.join(project_bin, "libexecutor_runtime.so")
config.substitutions.append(("%runtime_lib", runtime_lib))
# `cargo test` does not build the cdylibs: a missing artifact is an error, never
# a silently skipped test. `make test` builds everything first.
for artifact in ["executor-opt", "executor-server", "libexecutor_plugin.so", "libexecutor_runtime.so"]:
    if not os.path.exists(os.path.join(project_bin, artifact)):
        lit_config.fatal(f"{os.path.join(project_bin, artifact)} is missing: run `cargo build --release` first (make test does)")
llvm_lib = os.path.join(llvm_prefix, "lib")
runner_libs = ",".join(
    [runtime_lib, os.path.join(llvm_lib, "libmlir_c_runner_utils.so"), os.path.join(llvm_lib, "libmlir_runner_utils.so")]
)
# Runs a lowered host module's @main with the executor runtime and MLIR's runner utils.
config.substitutions.append(
    ("%run_host", f"{os.path.join(llvm_bin, 'mlir-runner')} -e main -entry-point-result=void -shared-libs={runner_libs}")
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
                os.path.join(config.test_source_root, "test", "Runtime", "Inputs", "with-server.sh"),
                os.path.join(project_bin, "executor-server"),
            ]
        ),
    )
)
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment["PATH"]])

# Catalyst's own `catalyst` CLI and the plugin built for it, where `make
# catalyst` has fetched them (docs/catalyst.md); without them the tests that
# REQUIRE `catalyst` are reported unsupported.
catalyst_root = os.path.join(config.test_source_root, "target", "catalyst")
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

llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions(
    [
        ToolSubst("executor-opt", command=os.path.join(project_bin, "executor-opt"), unresolved="fatal"),
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
