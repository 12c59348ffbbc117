# REQUIRES: catalyst, catalyst-python
# The Python route: `qjit(dialect_plugins=[...])` hands the plugin to the
# `catalyst` CLI that qjit runs. An executor op put into the traced module
# (replace_ir) parses only where the plugin's dialect is registered. Its
# function is private and unused, so Catalyst's symbol-dce drops it before
# the lowering, which has no executor pass in Catalyst (docs/catalyst.md).

# RUN: %catalyst_python %s %catalyst_plugin 2>&1 | FileCheck %s
# RUN: not %catalyst_python %s 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN

# CHECK: double(4.0) = 8.0
# NO-PLUGIN: `!"executor"<"session">` type created with unregistered dialect

import sys

from catalyst import qjit
from catalyst.debug import replace_ir

dialect_plugins = sys.argv[1:]


@qjit(dialect_plugins=dialect_plugins)
def double(x: float):
    return x * 2.0


double(3.0)
with_executor_op = double.mlir.replace(
    "func.func @setup()",
    """func.func private @close_session(%s: !executor.session) {
    executor.close %s : !executor.session
    return
  }
  func.func @setup()""",
    1,
)
assert with_executor_op != double.mlir, "the traced module has no @setup to insert before"
replace_ir(double, "mlir", with_executor_op)
print("double(4.0) =", double(4.0))
