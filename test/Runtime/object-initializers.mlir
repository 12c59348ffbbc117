// An object file's load-time code runs before its first kernel, as a shared
// library's does: its constructors (`.init_array`, by priority), among them
// what a C++ static object's constructor is compiled to (which registers its
// destructor with `__cxa_atexit` and the object's `__dso_handle`). Its
// destructors run when the session closes, as `dlclose` runs a library's:
// those registered with `__cxa_atexit` first, then `.fini_array`. A crash in a
// constructor is one line naming the object, exit code 1. An object linked a
// piece at a time gets a `__dso_handle` in the piece that refers to it, so a
// kernel may register a destructor when it runs (as a C++ function-local
// static does).

// RUN: rm -rf %t && split-file %s %t
// RUN: clang -c -fPIC -O1 %t/static.c -o %t/static.o
// RUN: clang -c -fPIC -O1 %t/crash.c -o %t/crash.o
// RUN: clang -c -fPIC -O1 -ffunction-sections -fdata-sections %t/at_run_time.c -o %t/at_run_time.o
// RUN: clang -x c++ -c -fPIC -O1 %t/static_object.cpp -o %t/static_object.o

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@OBJECT@|%t/static.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=LOCAL
// LOCAL:      [42]
// LOCAL:      [43]
// LOCAL-NEXT: registered destructor: 2 launches
// LOCAL-NEXT: fini_array destructor
// LOCAL-NEXT: closed

// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@OBJECT@|%t/static.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" \
// RUN:   | FileCheck %s --check-prefix=REMOTE
// REMOTE:      [42]
// REMOTE:      [43]
// REMOTE-NEXT: closed

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@OBJECT@|%t/crash.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=CRASH -DDIR=%t
// CRASH: executor runtime: loading '[[DIR]]/crash.o' crashed with signal 11 (SIGSEGV){{$}}

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@OBJECT@|%t/at_run_time.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=PIECE
// PIECE:      [1]
// PIECE:      [2]
// PIECE-NEXT: registered when it ran: 2 launches
// PIECE-NEXT: closed

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@OBJECT@|%t/static_object.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=CXX
// CXX:      [42]
// CXX:      [43]
// CXX-NEXT: ~Counter: 2 launches
// CXX-NEXT: closed

//--- static.c
// A kernel whose state its constructors set up: `base` is 1 * 20 + 1, then
// doubled, if the constructor of priority 101 runs before the one of the
// default priority (41 in the other order); the registered destructor
// reports the launches it counted.
#include <stdint.h>
#include <stdio.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
extern void *__dso_handle;
int __cxa_atexit(void (*function)(void *), void *argument, void *dso);

static int base = 1;
static int launches;
static float result[1];

static void report_launches(void *count) {
  printf("registered destructor: %d launches\n", *(int *)count);
}
__attribute__((constructor(101))) static void first(void) {
  base = base * 20 + 1;
  __cxa_atexit(report_launches, &launches, &__dso_handle);
}
__attribute__((constructor)) static void second(void) { base *= 2; }
__attribute__((destructor)) static void last(void) { printf("fini_array destructor\n"); }

void _mlir_ciface_next(memref_1d *out) {
  result[0] = (float)(base + launches++);
  *out = (memref_1d){result, result, 0, {1}, {1}};
}

//--- at_run_time.c
// No load-time code: the first launch registers the destructor.
#include <stdint.h>
#include <stdio.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
extern void *__dso_handle;
int __cxa_atexit(void (*function)(void *), void *argument, void *dso);

static int launches;
static float result[1];

static void report_launches(void *count) {
  printf("registered when it ran: %d launches\n", *(int *)count);
}

void _mlir_ciface_next(memref_1d *out) {
  if (launches++ == 0)
    __cxa_atexit(report_launches, &launches, &__dso_handle);
  result[0] = (float)launches;
  *out = (memref_1d){result, result, 0, {1}, {1}};
}

//--- static_object.cpp
// A C++ static object: its constructor sets its state, its destructor
// reports it.
#include <cstdint>
#include <cstdio>
struct Memref1d { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; };

struct Counter {
  int base, launches = 0;
  Counter() : base(42) {}
  ~Counter() { std::printf("~Counter: %d launches\n", launches); }
};
static Counter counter;
static float result[1];

extern "C" void _mlir_ciface_next(Memref1d *out) {
  result[0] = float(counter.base + counter.launches++);
  *out = Memref1d{result, result, 0, {1}, {1}};
}

//--- crash.c
__attribute__((constructor)) static void crash_on_load(void) { *(volatile int *)0 = 1; }
void _mlir_ciface_next(void) {}

//--- host.mlir
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @closed("closed\00") {addr_space = 0 : i32}

func.func @print(%m: memref<1xf32>) {
  %u = memref.cast %m : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<1xf32>
  return
}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@OBJECT@") : !executor.session
  %a = executor.launch %s("next", "@OBJECT@")() : !executor.session, () -> memref<1xf32>
  call @print(%a) : (memref<1xf32>) -> ()
  %b = executor.launch %s("next", "@OBJECT@")() : !executor.session, () -> memref<1xf32>
  call @print(%b) : (memref<1xf32>) -> ()
  executor.close %s : !executor.session
  %message = llvm.mlir.addressof @closed : !llvm.ptr
  %0 = func.call @puts(%message) : (!llvm.ptr) -> i32
  return
}
