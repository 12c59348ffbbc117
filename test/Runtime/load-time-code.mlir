// Loading a binary runs code of the binary's own before any kernel: a shared
// library's constructors. A crash or an exit there ends the program with one
// line naming the file and exit code 1, on the embedded executor and on a
// server, as a kernel's crash does.

// RUN: rm -rf %t && split-file %s %t
// RUN: clang -shared -fPIC %t/crash.c -o %t/crash.so
// RUN: clang -shared -fPIC %t/exit.c -o %t/exit.so

// RUN: sh -c "for library in crash exit; do \
// RUN:     sed -e 's|@ADDRESS@|local|' -e \"s|@LIBRARY@|%t/\$library.so|\" %t/load.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | timeout 60 %run_host 2>&1; \
// RUN:     echo \"exit status \$?\"; done" | FileCheck %s --check-prefix=LOCAL -DDIR=%t
// LOCAL:      executor runtime: loading '[[DIR]]/crash.so' crashed with signal 11 (SIGSEGV){{$}}
// LOCAL-NEXT: exit status 1
// LOCAL-NEXT: executor runtime: loading '[[DIR]]/exit.so' ended the program: its load-time code (a constructor) called exit{{$}}
// LOCAL-NEXT: exit status 1

// RUN: %with_server -- sh -c "for library in crash exit; do \
// RUN:     sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e \"s|@LIBRARY@|%t/\$library.so|\" %t/load.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | timeout 60 %run_host 2>&1; \
// RUN:     echo \"exit status \$?\"; done" | FileCheck %s --check-prefix=REMOTE -DDIR=%t
// REMOTE:      executor runtime: __catalyst__executor__send_binary(address 127.0.0.1:{{[0-9]+}}, path [[DIR]]/crash.so): loading '[[DIR]]/crash.so' crashed with signal 11 (SIGSEGV){{$}}
// REMOTE-NEXT: exit status 1
// REMOTE-NEXT: executor runtime: __catalyst__executor__send_binary(address 127.0.0.1:{{[0-9]+}}, path [[DIR]]/exit.so): the executor reported: the executor's worker exited (exit status: 3) while running the load-time code of '[[DIR]]/exit.so'{{$}}
// REMOTE-NEXT: exit status 1

//--- crash.c
__attribute__((constructor)) static void crash_on_load(void) { *(volatile int *)0 = 1; }

//--- exit.c
#include <stdlib.h>
__attribute__((constructor)) static void exit_on_load(void) { exit(3); }

//--- load.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@LIBRARY@") {format = 2 : i32} : !executor.session
  executor.close %s : !executor.session
  return
}
