// An object file's destructors run when its session closes, as `dlclose`
// runs a library's: its `.fini_array` entries of the default priority, then
// what its code registered with `__cxa_atexit` (a C++ static object's
// destructor; the last registered first), then its numbered `.fini_array`
// entries; the objects sent last first. That holds for an object linked a
// piece at a time too, whose kernels register destructors as they run (as
// C++ function-local statics do), and at exit: a program that returns
// without closing its session has its launches still running end before
// any destructor runs.

// RUN: rm -rf %t && split-file %s %t
// RUN: clang -c -fPIC -O1 %t/order.c -o %t/order.o
// RUN: clang -c -fPIC -O1 %t/used.c -o %t/used.o
// RUN: clang -c -fPIC -O1 %t/user.c -o %t/user.o
// RUN: clang -c -fPIC -O1 -ffunction-sections -fdata-sections %t/pieces.c -o %t/pieces.o
// RUN: clang -x c++ -c -fPIC -O1 %t/static_object.cpp -o %t/static_object.o
// RUN: clang -c -fPIC -O1 %t/slow.c -o %t/slow.o
// RUN: clang -x c++ -c -fPIC -O1 %t/late.cpp -o %t/late.o
// RUN: clang -c -fPIC -O1 %t/destructor_only.c -o %t/destructor_only.o
// RUN: clang -c -fPIC -O1 %t/crash.c -o %t/crash.o
// RUN: clang -c -fPIC -O1 %t/atexit.c -o %t/atexit.o
// RUN: clang -shared -fPIC -O1 %t/crash.c -o %t/libcrash.so
// RUN: clang -c -fPIC -O1 %t/napping.c -o %t/napping.o
// RUN: clang -c -fPIC -O1 -ffunction-sections %t/atexit.c -o %t/atexit_pieces.o
// RUN: clang -c -fPIC -O1 %t/flushed.c -o %t/flushed.o

// RUN: sed -e 's|@FIRST@|%t/order.o|' -e 's|@SECOND@|%t/static_object.o|' %t/close.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=ORDER
// ORDER:      ~Counter after 2 launches
// ORDER-NEXT: .fini_array, default priority
// ORDER-NEXT: __cxa_atexit, registered second
// ORDER-NEXT: __cxa_atexit, registered first
// ORDER-NEXT: .fini_array, priority 200
// ORDER-NEXT: .fini_array, priority 101
// ORDER-NEXT: closed

// RUN: sed -e 's|@FIRST@|%t/used.o|' -e 's|@SECOND@|%t/user.o|' %t/close.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=SENT-LAST
// SENT-LAST:      user's destructor
// SENT-LAST-NEXT: used's destructor
// SENT-LAST-NEXT: closed

// RUN: sed -e 's|@FIRST@|%t/pieces.o|' -e 's|@SECOND@|%t/pieces.o|' %t/close.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=PIECES
// PIECES:      registered by the second launch
// PIECES-NEXT: registered by the first launch
// PIECES-NEXT: closed

// A static's destructor that is the first to use a function-local static:
// that static's destructor, registered while destructors run, runs too.
// RUN: sed -e 's|@FIRST@|%t/order.o|' -e 's|@SECOND@|%t/late.o|' %t/close.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=LATE
// LATE:      ~Logged: logged
// LATE-NEXT: ~Logger
// LATE-NEXT: .fini_array, default priority

// An object with a destructor, no constructor and no global symbol, sent and
// never launched.
// RUN: sed -e 's|@OBJECT@|%t/destructor_only.o|' %t/send.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=SENT-ONLY
// SENT-ONLY:      destructor of an object sent only
// SENT-ONLY-NEXT: closed

// RUN: executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' %t/exit.mlir \
// RUN:   | sed -e 's|@SLOW@|%t/slow.o|' | %run_host 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT:      the launch reads 7
// EXIT-NEXT: destructor

// What an object registers with `atexit` (which the C library's shared
// object does not define) runs at close with what it registers with
// `__cxa_atexit`, the last registered first; also when `atexit` is reached by
// a tail call, from a piece of an object, and on a server.
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@OBJECT@|%t/atexit.o|' %t/launch.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=ATEXIT
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@OBJECT@|%t/atexit_pieces.o|' %t/launch.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=ATEXIT
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@OBJECT@|%t/atexit.o|' %t/launch.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" \
// RUN:   | FileCheck %s --check-prefix=ATEXIT-REMOTE
// ATEXIT:      .fini_array, default priority
// ATEXIT-NEXT: atexit, registered by a tail call
// ATEXIT-NEXT: atexit, registered first
// ATEXIT-NEXT: closed
// ATEXIT-REMOTE: closed

// A crash in a destructor is one line naming the object whose destructor
// crashed, here the one sent first, after the other's destructor ran.
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/crash.o|' -e 's|@SECOND@|%t/flushed.o|' %t/crash.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=CRASH -DDIR=%t
// CRASH:      flushed's destructor
// CRASH-NEXT: executor runtime: the destructors of '[[DIR]]/crash.o' crashed with signal 11 (SIGSEGV){{$}}
// CRASH-NOT:  {{.}}
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@FIRST@|%t/crash.o|' -e 's|@SECOND@|%t/flushed.o|' %t/crash.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | not %run_host 2>&1" \
// RUN:   | FileCheck %s --check-prefix=CRASH-REMOTE -DDIR=%t
// CRASH-REMOTE: executor runtime: __catalyst__executor__close(address 127.0.0.1:{{[0-9]+}}): the destructors of '[[DIR]]/crash.o' crashed with signal 11 (SIGSEGV){{$}}

// A shared library's destructors (run as its session closes it) likewise.
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@LIBRARY@|%t/libcrash.so|' %t/close_library.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=CRASH-LIBRARY -DDIR=%t
// CRASH-LIBRARY: executor runtime: the destructors of '[[DIR]]/libcrash.so' crashed with signal 11 (SIGSEGV){{$}}
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@LIBRARY@|%t/libcrash.so|' %t/close_library.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | not %run_host 2>&1" \
// RUN:   | FileCheck %s --check-prefix=CRASH-LIBRARY-REMOTE -DDIR=%t
// CRASH-LIBRARY-REMOTE: executor runtime: __catalyst__executor__close(address 127.0.0.1:{{[0-9]+}}): the destructors of '[[DIR]]/libcrash.so' crashed with signal 11 (SIGSEGV){{$}}

// On a server, an async launch that close waited for is over when the
// destructors run: a crash there names them alone; a crash of the launch
// while close waits names the kernel.
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@FIRST@|%t/crash.o|' -e 's|@ENTRY@|nap|' -e 's|@NAPPING@|%t/napping.o|' %t/close_napping.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | not %run_host 2>&1" \
// RUN:   | FileCheck %s --check-prefix=CRASH-AFTER-NAP -DDIR=%t
// CRASH-AFTER-NAP: executor runtime: __catalyst__executor__close(address 127.0.0.1:{{[0-9]+}}): the destructors of '[[DIR]]/crash.o' crashed with signal 11 (SIGSEGV){{$}}
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@FIRST@|%t/used.o|' -e 's|@ENTRY@|nap_then_crash|' -e 's|@NAPPING@|%t/napping.o|' %t/close_napping.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | not %run_host 2>&1" \
// RUN:   | FileCheck %s --check-prefix=CRASH-IN-NAP
// CRASH-IN-NAP: executor runtime: __catalyst__executor__close(address 127.0.0.1:{{[0-9]+}}): kernel 'nap_then_crash' crashed with signal 11 (SIGSEGV){{$}}

//--- order.c
#include <stdio.h>
extern void *__dso_handle;
int __cxa_atexit(void (*function)(void *), void *argument, void *dso);
static void say(void *what) { printf("%s\n", (const char *)what); }
__attribute__((constructor)) static void registers(void) {
  __cxa_atexit(say, "__cxa_atexit, registered first", &__dso_handle);
  __cxa_atexit(say, "__cxa_atexit, registered second", &__dso_handle);
}
__attribute__((destructor(101))) static void early(void) { printf(".fini_array, priority 101\n"); }
__attribute__((destructor(200))) static void later(void) { printf(".fini_array, priority 200\n"); }
__attribute__((destructor)) static void plain(void) { printf(".fini_array, default priority\n"); }
void _mlir_ciface_first(void) {}

//--- static_object.cpp
#include <cstdio>
struct Counter {
  int launches = 0;
  ~Counter() { std::printf("~Counter after %d launches\n", launches); }
};
static Counter counter;
extern "C" void _mlir_ciface_second(void) { ++counter.launches; }

//--- late.cpp
#include <cstdio>
struct Logger {
  ~Logger() { std::printf("~Logger\n"); }
  void log(const char *line) { std::printf("%s\n", line); }
};
static Logger &logger() {
  static Logger only;
  return only;
}
struct Logged {
  ~Logged() { logger().log("~Logged: logged"); }
};
static Logged logged;
extern "C" void _mlir_ciface_second(void) {}

//--- destructor_only.c
#include <stdio.h>
__attribute__((destructor)) static void bye(void) { printf("destructor of an object sent only\n"); }

//--- send.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @closed("closed\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@OBJECT@") : !executor.session
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @closed : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}

//--- used.c
#include <stdio.h>
__attribute__((destructor)) static void bye(void) { printf("used's destructor\n"); }
int shared_value = 1;
void _mlir_ciface_first(void) {}

//--- user.c
#include <stdio.h>
extern int shared_value;
__attribute__((destructor)) static void bye(void) { printf("user's destructor\n"); }
void _mlir_ciface_second(void) { shared_value++; }

//--- pieces.c
// Each kernel is a piece of its own; each registers a destructor at its
// first launch, "second" first, since the host launches it first.
#include <stdio.h>
extern void *__dso_handle;
int __cxa_atexit(void (*function)(void *), void *argument, void *dso);
static void say(void *what) { printf("%s\n", (const char *)what); }
void _mlir_ciface_first(void) {
  static int registered;
  if (!registered++)
    __cxa_atexit(say, "registered by the second launch", &__dso_handle);
}
void _mlir_ciface_second(void) {
  static int registered;
  if (!registered++)
    __cxa_atexit(say, "registered by the first launch", &__dso_handle);
}

//--- slow.c
// Its launch reads, after a while (the program has returned by then, unless
// it is slower than that), what its destructor clears.
#include <stdio.h>
#include <unistd.h>
extern void *__dso_handle;
int __cxa_atexit(void (*function)(void *), void *argument, void *dso);
static int value;
static void clear(void *unused) { value = 0; printf("destructor\n"); }
__attribute__((constructor)) static void set_up(void) {
  value = 7;
  __cxa_atexit(clear, 0, &__dso_handle);
}
void slow(void) {
  usleep(100000);
  printf("the launch reads %d\n", value);
}

//--- close.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @closed("closed\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@FIRST@") : !executor.session
  executor.send_binary %s("@SECOND@") : !executor.session
  executor.launch %s("second", "@SECOND@")() : !executor.session, () -> ()
  executor.launch %s("first", "@FIRST@")() : !executor.session, () -> ()
  executor.launch %s("second", "@SECOND@")() : !executor.session, () -> ()
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @closed : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}

//--- exit.mlir
// Returns while its launch still runs, without closing the session.
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @returned("returned\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@SLOW@") : !executor.session
  %t = executor.launch_async %s("slow", "@SLOW@") : !executor.session -> !executor.token
  %message = llvm.mlir.addressof @returned : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}

//--- crash.c
__attribute__((destructor)) static void crash_on_close(void) { *(volatile int *)0 = 1; }
void _mlir_ciface_first(void) {}

//--- flushed.c
#include <stdio.h>
__attribute__((destructor)) static void bye(void) {
  printf("flushed's destructor\n");
  fflush(stdout);
}
void _mlir_ciface_second(void) {}

//--- crash.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @closed("closed\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@FIRST@") : !executor.session
  executor.send_binary %s("@SECOND@") : !executor.session
  executor.launch %s("first", "@FIRST@")() : !executor.session, () -> ()
  executor.launch %s("second", "@SECOND@")() : !executor.session, () -> ()
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @closed : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}

//--- atexit.c
#include <stdio.h>
#include <stdlib.h>
static void first(void) { printf("atexit, registered first\n"); fflush(stdout); }
static void tail(void) { printf("atexit, registered by a tail call\n"); fflush(stdout); }
__attribute__((destructor)) static void plain(void) { printf(".fini_array, default priority\n"); }
__attribute__((noinline)) int register_tail(void) { return atexit(tail); }
void _mlir_ciface_first(void) {
  atexit(first);
  register_tail();
}

//--- launch.mlir
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @closed("closed\00") {addr_space = 0 : i32}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@OBJECT@") : !executor.session
  executor.launch %s("first", "@OBJECT@")() : !executor.session, () -> ()
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @closed : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}

//--- napping.c
#include <unistd.h>
void nap(void) { usleep(200000); }
void nap_then_crash(void) {
  usleep(200000);
  *(volatile int *)0 = 1;
}

//--- close_napping.mlir
// Closes the session while an async launch still runs.
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@FIRST@") : !executor.session
  executor.send_binary %s("@NAPPING@") : !executor.session
  executor.launch %s("first", "@FIRST@")() : !executor.session, () -> ()
  %t = executor.launch_async %s("@ENTRY@", "@NAPPING@") : !executor.session -> !executor.token
  executor.close %s : !executor.session
  return
}

//--- close_library.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@LIBRARY@") {format = 2 : i32} : !executor.session
  executor.close %s : !executor.session
  return
}
