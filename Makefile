# The two commands of the README: `make demo` and `make test`. Both install the
# LLVM/MLIR 22 packages first when they are missing (scripts/deps.sh).

CARGO ?= cargo
BIN := target/release
EXECUTOR_OPT := $(BIN)/executor-opt
EXECUTOR_RUN := $(BIN)/executor-run
# The LLVM/MLIR prefix that .cargo/config.toml names (or $EXECUTOR_LLVM_PREFIX).
LLVM_PREFIX := $(shell bash scripts/llvm-prefix)
$(if $(LLVM_PREFIX),,$(error scripts/llvm-prefix found no LLVM prefix))
LLVM_BIN := $(LLVM_PREFIX)/bin
LLVM_LIB := $(LLVM_PREFIX)/lib
# Host code down to the LLVM dialect: bufferize (Catalyst's stage), lower the
# executor ops, then the upstream conversions.
LOWERING := builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)
# Kernels (func, scf, arith, memref) down to the LLVM dialect (what
# executor-dispatch's kernel-lowering does by default).
KERNEL_LOWERING := builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)
DEMO := target/demo
# A module in the dispatch form (kernels in nested executor.target modules)
# becomes executor ops, its kernels object files under $(DEMO)/dispatch; a
# module without target modules is left as it is.
DISPATCH := executor-dispatch{object-dir=$(DEMO)/dispatch}
RUNNER_LIBS := $(BIN)/libexecutor_runtime.so,$(LLVM_LIB)/libmlir_c_runner_utils.so,$(LLVM_LIB)/libmlir_runner_utils.so

# The plugin built for Catalyst's own `catalyst` CLI (`make catalyst`,
# docs/catalyst.md): its own target directory, so it never replaces the plugin
# for Debian's mlir-opt. Its passes run executor-opt, which they look for next
# to the plugin: a link to this tree's.
CATALYST_PLUGIN_BUILD := EXECUTOR_MLIR_HOST=catalyst $(CARGO) build --release -p executor_plugin --target-dir target/catalyst/build \
	&& ln -sfn ../../../release/executor-opt target/catalyst/build/release/executor-opt

.PHONY: all deps build test lint docs demo bench catalyst catalyst-manager fuzz install uninstall clean trace-png trace-figure

all: build

deps:
	@bash scripts/deps.sh

build: deps
	$(CARGO) build --release

# The whole suite: Rust unit and integration tests and the lit/FileCheck suite
# (tests/lit.rs), which also needs the cdylibs `cargo test` does not build.
# Where `make catalyst` has fetched Catalyst, its plugin is rebuilt too and
# test/Plugin/Catalyst runs; elsewhere lit reports those tests unsupported.
test: deps
	$(CARGO) build --release
	@if [ -x target/catalyst/bin/catalyst ]; then $(CATALYST_PLUGIN_BUILD); fi
	$(CARGO) test --release

# Fetches the `catalyst` CLI of pennylane-catalyst 0.15.0 into target/catalyst/
# and builds the plugin for it (target/catalyst/build/release/), and the
# executor-opt its passes run.
catalyst: build
	@bash scripts/catalyst.sh
	$(CATALYST_PLUGIN_BUILD)

# Fetches Catalyst's deployment manager (the Python package catalyst.executor,
# at a pinned commit) into target/catalyst/manager/, which test/Deploy's
# catalyst-manager tests use (docs/catalyst.md): from GitHub, or from a clone
# of Catalyst, `make catalyst-manager CATALYST_GIT=DIR`.
catalyst-manager:
	@bash scripts/catalyst-manager.sh $(CATALYST_GIT)

lint: deps
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --all-targets --workspace -- -D warnings

# The dialect and pass reference, generated from td/ by mlir-tblgen into
# $(DIALECT_DOCS) (committed; tests/docs.rs fails when they differ from what
# td/ generates, running this target into a directory of its own).
DIALECT_DOCS ?= docs/dialect
TBLGEN := $(LLVM_BIN)/mlir-tblgen -I $(LLVM_PREFIX)/include -I td
docs:
	@mkdir -p $(DIALECT_DOCS)
	$(TBLGEN) -gen-dialect-doc -dialect=executor td/ExecutorOps.td -o $(DIALECT_DOCS)/executor.md
	$(TBLGEN) -gen-pass-doc td/ExecutorPasses.td -o $(DIALECT_DOCS)/passes.md

# Round-trips and verifies every example (custom form, generic form re-parsed,
# bytecode re-parsed: all three prints must agree) and shows the runtime calls
# it lowers to (after executor-dispatch); then compiles examples/kernels.mlir
# to an object file, lowers examples/host.mlir and runs it on the embedded
# executor; then runs examples/saxpy-dispatch.mlir, the same program in one
# file, in one command.
demo: build
	@set -e; for f in examples/*.mlir; do \
	  echo "== $$f"; \
	  $(EXECUTOR_OPT) --verify-roundtrip $$f > $(BIN)/demo.custom.mlir; \
	  $(EXECUTOR_OPT) --mlir-print-op-generic $$f | $(EXECUTOR_OPT) > $(BIN)/demo.generic.mlir; \
	  $(EXECUTOR_OPT) --emit-bytecode $$f | $(EXECUTOR_OPT) > $(BIN)/demo.bytecode.mlir; \
	  cmp -s $(BIN)/demo.custom.mlir $(BIN)/demo.generic.mlir; \
	  cmp -s $(BIN)/demo.custom.mlir $(BIN)/demo.bytecode.mlir; \
	  cat $(BIN)/demo.custom.mlir; \
	  echo "== $$f: verified; custom, generic and bytecode round trips agree"; \
	  $(EXECUTOR_OPT) $$f --pass-pipeline='builtin.module($(DISPATCH))' \
	    | $(EXECUTOR_OPT) --pass-pipeline='$(LOWERING)' | $(LLVM_BIN)/mlir-translate --mlir-to-llvmir > $(BIN)/demo.ll; \
	  echo "== $$f lowered to LLVM IR ($(BIN)/demo.ll): its runtime calls"; \
	  grep -E 'call .*@__catalyst__executor__' $(BIN)/demo.ll | sed 's/^ *//' || true; \
	done
	@mkdir -p $(DEMO)
	$(LLVM_BIN)/mlir-opt examples/kernels.mlir --pass-pipeline='$(KERNEL_LOWERING)' \
	  | $(LLVM_BIN)/mlir-translate --mlir-to-llvmir | $(LLVM_BIN)/llc -filetype=obj -relocation-model=pic -o $(DEMO)/kernels.o
	$(EXECUTOR_OPT) examples/host.mlir --pass-pipeline='$(LOWERING)' > $(DEMO)/host.llvm.mlir
	@echo "== running examples/host.mlir on the embedded executor: saxpy(2, [0..7], 100) ="
	$(LLVM_BIN)/mlir-runner $(DEMO)/host.llvm.mlir -e main -entry-point-result=void -shared-libs=$(RUNNER_LIBS)
	@echo "== running examples/saxpy-dispatch.mlir (host and kernels in one file) in one command: saxpy(2, [0..7], 100) ="
	$(EXECUTOR_RUN) examples/saxpy-dispatch.mlir

# Draws a trace (EXECUTOR_TRACE's) as a PNG timeline: `make trace-png
# TRACE=trace.json OUT=trace.png`, optionally WINDOW=START_MS:END_MS
# (scripts/trace-png, Python's standard library only; docs/tracing.md).
trace-png:
	$(if $(and $(TRACE),$(OUT)),,$(error make trace-png needs TRACE=FILE and OUT=FILE.png))
	python3 scripts/trace-png $(if $(WINDOW),--window $(WINDOW)) $(TRACE) $(OUT)

# The figure of docs/tracing.md, from a real run: the multi-host test (three
# executor-servers in network namespaces, over TLS; it needs root) keeps its
# host program's trace, drawn up to the end of its three async naps.
trace-figure: build
	mkdir -p target/trace
	EXECUTOR_TEST_KEEP_TRACE=$(abspath target/trace/three-hosts.json) \
	  $(CARGO) test --release -p executor-server --test multi_host
	python3 scripts/trace-png --until 'await nap' target/trace/three-hosts.json docs/tracing/three-hosts.png

# Compile-time and run-time cost against upstream MLIR baselines, measured in one
# run (not part of `make test`): regenerates docs/performance.md and the plots in
# docs/performance/ (bench/run.py). Installs hyperfine, GNU time, perf, strace
# and a matplotlib virtualenv under target/bench/ when missing (bench/deps.sh).
# `make bench BEFORE=rev` also builds that revision under target/bench/before/
# (a git worktree and a target directory seeded from target/release: about a
# minute with CARGO_BUILD_JOBS=1 here) and adds a "Before and after" section:
# its figures against this tree's, measured in alternation in the same run
# (bench/run.py --before).
bench: build
	$(CARGO) build --release -p executor-runtime --example tcp_echo_rtt
	@python=$$(bash bench/deps.sh) && $$python bench/run.py$(if $(BEFORE), --before '$(BEFORE)')

# The fuzzers (tools/executor-fuzz, docs/fuzzing.md): the compiler fuzzer on
# mutants of the .mlir corpus, the protocol decoders in process (seeded, and
# coverage-guided by libFuzzer) and a real executor-server on 127.0.0.1, for
# FUZZ_SECONDS in all, from FUZZ_SEED. Findings, minimized, go to
# target/fuzz/findings/, the summary to target/fuzz/summary.txt; it fails when a
# finding is not in tools/executor-fuzz/known-findings.txt. The libFuzzer target
# is built on stable Rust with SanitizerCoverage, in a target directory of its
# own, from its lock file as committed (--locked: the build never rewrites it).
FUZZ_SECONDS ?= 600
FUZZ_SEED ?= 1
HOST_TRIPLE := $(shell rustc -vV | sed -n 's/^host: //p')
LIBFUZZER_RUSTFLAGS := -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks
LIBFUZZER_DIR := target/fuzz/libfuzzer-build
fuzz: build
	RUSTFLAGS='$(LIBFUZZER_RUSTFLAGS)' $(CARGO) build --release --locked \
	  --manifest-path tools/executor-fuzz/libfuzzer/Cargo.toml \
	  --target $(HOST_TRIPLE) --target-dir $(LIBFUZZER_DIR)
	$(BIN)/executor-fuzz all --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) --llvm-bin $(LLVM_BIN) \
	  --libfuzzer $(LIBFUZZER_DIR)/$(HOST_TRIPLE)/release/decode

# Copies what `make build` built (it builds nothing, so that `sudo make install`
# leaves no root-owned files in target/) under $(DESTDIR)$(PREFIX): the tools
# and scripts/executor-ssh and executor-slurm to bin/ (executor-server also as catalyst-executor, a
# link: the name Catalyst's deployment manager runs), the runtime library and
# the plugin to lib/,
# the runtime's header to include/, the README and the protocol and ABI
# documents to share/doc/executor-mlir/, and the systemd units of
# executor-server (dist/systemd/, their paths set to PREFIX's) to
# $(SYSTEMD_UNIT_DIR); it makes $(SYSCONFDIR)/executor-server (mode 0700), where
# the service's token goes, but no token. docs/deploying.md;
# test/Deploy/install.test lists what it installs.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
LIBDIR := $(PREFIX)/lib
INCLUDEDIR := $(PREFIX)/include
DOCDIR := $(PREFIX)/share/doc/executor-mlir
SYSTEMD_UNIT_DIR ?= $(LIBDIR)/systemd/system
SYSCONFDIR ?= /etc
INSTALL_PROGRAMS := executor-opt executor-run executor-server
INSTALL_LIBRARIES := libexecutor_runtime.so libexecutor_runtime.a libexecutor_plugin.so
INSTALL_DOCS := README.md docs/protocol.md docs/runtime-abi.md
INSTALL_UNITS := executor-server.service executor-server.socket
INSTALL_SCRIPTS := executor-ssh executor-slurm
INSTALLED := $(addprefix $(BINDIR)/,$(INSTALL_PROGRAMS) $(INSTALL_SCRIPTS) catalyst-executor) \
  $(addprefix $(LIBDIR)/,$(INSTALL_LIBRARIES)) $(INCLUDEDIR)/executor_runtime.h \
  $(addprefix $(DOCDIR)/,$(INSTALL_DOCS)) $(addprefix $(SYSTEMD_UNIT_DIR)/,$(INSTALL_UNITS))

install:
	@for built in $(addprefix $(BIN)/,$(INSTALL_PROGRAMS) $(INSTALL_LIBRARIES)); do \
	  [ -f $$built ] || { echo "make install: $$built is missing: run make build first" >&2; exit 1; }; \
	done
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	install -m 0755 $(addprefix $(BIN)/,$(INSTALL_PROGRAMS)) $(addprefix scripts/,$(INSTALL_SCRIPTS)) $(DESTDIR)$(BINDIR)
	ln -sfn executor-server $(DESTDIR)$(BINDIR)/catalyst-executor
	install -m 0755 $(BIN)/libexecutor_runtime.so $(BIN)/libexecutor_plugin.so $(DESTDIR)$(LIBDIR)
	install -m 0644 $(BIN)/libexecutor_runtime.a $(DESTDIR)$(LIBDIR)
	install -m 0644 include/executor_runtime.h $(DESTDIR)$(INCLUDEDIR)
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)
	install -m 0644 docs/protocol.md docs/runtime-abi.md $(DESTDIR)$(DOCDIR)/docs
	install -d -m 0700 $(DESTDIR)$(SYSCONFDIR)/executor-server
	@for unit in $(INSTALL_UNITS); do \
	  sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@docdir@|$(DOCDIR)|g' -e 's|@sysconfdir@|$(SYSCONFDIR)|g' dist/systemd/$$unit.in \
	    > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$unit && chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$unit; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/executor-server 2>/dev/null

clean:
	$(CARGO) clean
