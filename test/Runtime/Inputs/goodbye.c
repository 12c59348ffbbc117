// An object for test/Runtime/object-library.mlir whose load-time code
// registers a handler to run at exit: the runtime runs it when the session
// closes.
#include <stdio.h>
#include <stdlib.h>

static void goodbye(void) {
  puts("the second object's exit handler ran");
  fflush(stdout);
}

__attribute__((constructor)) static void hello(void) { atexit(goodbye); }
