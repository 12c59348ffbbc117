//===- ExecutorTypes.td - Types of the executor dialect ----*- tablegen -*-===//

#ifndef EXECUTOR_TYPES_TD
#define EXECUTOR_TYPES_TD

include "ExecutorDialect.td"

def Executor_SessionType : Executor_Type<"Session", "session"> {
  let summary = "A handle to an open executor session.";
  let description = [{
    Produced by `executor.open` and consumed by every other op that talks to
    the executor, up to `executor.close`.
  }];
}

def Executor_TokenType : Executor_Type<"Token", "token"> {
  let summary = "A handle to one launch that has not finished yet.";
  let description = [{
    Produced by `executor.launch_async`; `executor.await` waits for the launch
    it names.
  }];
}

#endif // EXECUTOR_TYPES_TD
