#!/bin/sh
# Stands in for executor-opt as the child of the Catalyst plugin's passes
# (EXECUTOR_OPT=<this file>) and misbehaves as FAKE_EXECUTOR_OPT says.
case "$FAKE_EXECUTOR_OPT" in
  crash) kill -SEGV $$ ;;
  fail) echo "fake-executor-opt: something went wrong" >&2; exit 3 ;;
  garbage) cat > /dev/null; echo "this is not MLIR" ;;
  nothing) exit 0 ;;
  two-modules) cat > /dev/null; printf 'module {}\nmodule {}\n' ;;
  # Numbered as the plugin numbers fine.mlir's ops and block arguments: the
  # module 1, the function 2, its argument 3, executor.close 4.
  diagnose)
    cat > /dev/null
    echo "executor-op:4:1: error: a fake error at executor.close" >&2
    echo "  with a second line" >&2
    echo "executor-op:2:1: note: a fake note at the function" >&2
    echo "executor-op:99:1: warning: a fake warning at no op of the module" >&2
    echo "elsewhere.mlir:7:3: remark: a fake remark at another file" >&2
    exit 1 ;;
  unreadable) cat > /dev/null; echo "<stdin>:3:5: error: custom op 'x' is unknown" >&2; exit 1 ;;
  *) echo "fake-executor-opt: unknown FAKE_EXECUTOR_OPT=$FAKE_EXECUTOR_OPT" >&2; exit 2 ;;
esac
