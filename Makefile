# The two commands of the README: `make demo` and `make test`. Both install the
# LLVM/MLIR 22 packages first when they are missing (scripts/deps.sh).

CARGO ?= cargo
BIN := target/release
EXECUTOR_OPT := $(BIN)/executor-opt

.PHONY: all deps build test lint demo clean

all: build

deps:
	@bash scripts/deps.sh

build: deps
	$(CARGO) build --release

# The whole suite: Rust unit tests and the lit/FileCheck suite (tests/lit.rs).
test: deps
	$(CARGO) test --release

lint: deps
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings

# Round-trips and verifies every example: custom form, then generic form
# re-parsed, then bytecode re-parsed; all three prints must agree.
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
	done

clean:
	$(CARGO) clean
