// An object file with load-time code is linked by `send_binary`, which runs
// its constructors, as `dlopen` loads a library with constructors: its
// `.init_array` entries, numbered priorities first, among them what a C++
// static object's constructor is compiled to. Its constructors see those of
// the objects sent before it, which it may use, done. A crash in a
// constructor is one line naming the object, exit code 1, on `local` and on a
// server; an object with legacy constructors (`.ctors`) is refused in one
// line.

// RUN: rm -rf %t && split-file %s %t
// RUN: clang -c -fPIC -O1 %t/priorities.c -o %t/priorities.o
// RUN: clang -x c++ -c -fPIC -O1 %t/static_object.cpp -o %t/static_object.o
// RUN: clang -c -fPIC -O1 %t/used.c -o %t/used.o
// RUN: clang -c -fPIC -O1 %t/user.c -o %t/user.o
// RUN: clang -c -fPIC -O1 %t/crash.c -o %t/crash.o
// RUN: clang -c -fPIC -O0 -fno-use-init-array %t/legacy.c -o %t/legacy.o
// RUN: clang -c -fPIC -O0 -fno-use-init-array -ffunction-sections %t/legacy.c -o %t/legacy_pieces.o
// RUN: clang -x c++ -std=c++17 -c -fPIC -O0 %t/inline_variables.cpp -o %t/inline_variables.o
// RUN: clang -c -fPIC -O1 %t/exit.c -o %t/exit.o
// RUN: clang -c -fPIC -O1 %t/reenter.c -o %t/reenter.o
// RUN: clang -c -fPIC -O1 -ffunction-sections %t/legacy_table.c -o %t/legacy_table.o
// RUN: clang -c -fPIC -O1 %t/legacy_destructors.c -o %t/legacy_destructors.o
// RUN: clang -c -fPIC -O1 -ffunction-sections %t/named_like_legacy.c -o %t/named_like_legacy.o

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/static_object.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=ONE-OBJECT
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/static_object.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" \
// RUN:   | FileCheck %s --check-prefix=ONE-OBJECT
// ONE-OBJECT:      [42]
// ONE-OBJECT:      [126]

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/used.o|' -e 's|@SECOND@|%t/user.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=SENT-FIRST
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@FIRST@|%t/used.o|' -e 's|@SECOND@|%t/user.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" \
// RUN:   | FileCheck %s --check-prefix=SENT-FIRST
// SENT-FIRST:      [10]
// SENT-FIRST:      [5]

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/crash.o|' -e 's|@SECOND@|%t/user.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=CRASH -DDIR=%t
// CRASH: executor runtime: loading '[[DIR]]/crash.o' crashed with signal 11 (SIGSEGV){{$}}
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@FIRST@|%t/crash.o|' -e 's|@SECOND@|%t/user.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | not %run_host 2>&1" \
// RUN:   | FileCheck %s --check-prefix=CRASH-REMOTE -DDIR=%t
// CRASH-REMOTE: executor runtime: __catalyst__executor__send_binary(address 127.0.0.1:{{[0-9]+}}, path [[DIR]]/crash.o): loading '[[DIR]]/crash.o' crashed with signal 11 (SIGSEGV){{$}}

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/legacy.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=LEGACY -DDIR=%t
// LEGACY: executor runtime: __catalyst__executor__send_binary(address local, path [[DIR]]/legacy.o): cannot load object file '[[DIR]]/legacy.o': it holds .ctors (legacy constructors or destructors), which this executor does not run: compile it with -fuse-init-array{{$}}

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/legacy_pieces.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=LEGACY-PIECES -DDIR=%t
// LEGACY-PIECES: executor runtime: __catalyst__executor__send_binary(address local, path [[DIR]]/legacy_pieces.o): cannot load object file '[[DIR]]/legacy_pieces.o': it holds .ctors (legacy constructors or destructors), which this executor does not run: compile it with -fuse-init-array{{$}}

// A `.ctors` table written by hand (aligned to 16) in an object with
// function sections, and an object with `.dtors` only, sent and not
// launched, are refused too; a table whose name only begins like theirs is
// data.
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/legacy_table.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=LEGACY-TABLE -DDIR=%t
// LEGACY-TABLE: cannot load object file '[[DIR]]/legacy_table.o': it holds .ctors (legacy constructors or destructors)
// RUN: sed -e 's|@OBJECT@|%t/legacy_destructors.o|' %t/send.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=LEGACY-DTORS -DDIR=%t
// LEGACY-DTORS: cannot load object file '[[DIR]]/legacy_destructors.o': it holds .dtors (legacy constructors or destructors)
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/named_like_legacy.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=NAMED-LIKE
// NAMED-LIKE: [7]

// Inline variables, each initialized in a section of its own, in the order
// of the file (C++17's partially-ordered initialization).
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/inline_variables.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host \
// RUN:   | FileCheck %s --check-prefix=INLINE
// RUN: %with_server -- sh -c "sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@FIRST@|%t/priorities.o|' -e 's|@SECOND@|%t/inline_variables.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host" \
// RUN:   | FileCheck %s --check-prefix=INLINE
// INLINE: [4321]

// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/exit.o|' -e 's|@SECOND@|%t/user.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=EXIT -DDIR=%t
// EXIT: executor runtime: loading '[[DIR]]/exit.o' ended the program: its load-time code (a constructor) called exit{{$}}

// A constructor that launches on its own session (the program's first, handle
// 1) while the session loads its object is refused in one line, instead of
// waiting for that load to end.
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@FIRST@|%t/reenter.o|' -e 's|@SECOND@|%t/user.o|' %t/host.mlir \
// RUN:   | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' \
// RUN:   | not %run_host 2>&1 | FileCheck %s --check-prefix=REENTER -DDIR=%t
// REENTER:     executor runtime: __catalyst__executor__launch(address local, symbol first): the session is busy running its binaries' constructors or destructors, which called it: load-time code and destructors cannot use their own session{{$}}
// REENTER-NOT: {{.}}

//--- priorities.c
// `base` is (1 * 20 + 1) * 2 if the constructor of priority 101 runs before
// the one of the default priority (41 in the other order); a constructor in a
// section whose suffix is no number has the default priority, as LLVM's
// linker gives it: it triples `base` after the first (122 if it ran before,
// 42 if it did not run).
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
static int base = 1;
static float result[1];
__attribute__((constructor(101))) static void first(void) { base = base * 20 + 1; }
__attribute__((constructor)) static void second(void) { base *= 2; }
static void third(void) { base *= 3; }
__attribute__((section(".init_array.named"), used)) static void (*named[1])(void) = {third};
void _mlir_ciface_first(memref_1d *out) {
  result[0] = (float)base;
  *out = (memref_1d){result, result, 0, {1}, {1}};
}

//--- static_object.cpp
// A C++ static object, which its constructor sets up.
#include <cstdint>
struct Memref1d { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; };
struct Answer {
  float value;
  Answer() : value(42) {}
};
static Answer answer;
static float result[1];
extern "C" void _mlir_ciface_second(Memref1d *out) {
  result[0] = answer.value;
  *out = Memref1d{result, result, 0, {1}, {1}};
}

//--- used.c
// Sent first: its constructor sets what the second object's reads.
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
int shared_value;
static float result[1];
__attribute__((constructor)) static void set_up(void) { shared_value = 5; }
void _mlir_ciface_first(memref_1d *out) {
  result[0] = (float)shared_value;
  *out = (memref_1d){result, result, 0, {1}, {1}};
}

//--- user.c
// Sent second, launched first: its constructor reads the first object's
// `shared_value`, 0 until that object's constructor has run.
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
extern int shared_value;
static int twice;
static float result[1];
__attribute__((constructor)) static void set_up(void) { twice = shared_value * 2; }
void _mlir_ciface_second(memref_1d *out) {
  result[0] = (float)twice;
  *out = (memref_1d){result, result, 0, {1}, {1}};
}

//--- crash.c
int shared_value;
__attribute__((constructor)) static void crash_on_load(void) { *(volatile int *)0 = 1; }
void _mlir_ciface_first(void) {}

//--- inline_variables.cpp
#include <cstdint>
struct Memref1d { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; };
static int next() { static int count = 0; return ++count; }
inline int a1 = next();
inline int a2 = next();
inline int a3 = next();
template <class T> struct Registered { static int order; };
template <class T> int Registered<T>::order = next();
int digits = a1 + a2 * 10 + a3 * 100 + Registered<int>::order * 1000;
static float result[1];
extern "C" void _mlir_ciface_second(Memref1d *out) {
  result[0] = float(digits);
  *out = Memref1d{result, result, 0, {1}, {1}};
}

//--- exit.c
#include <stdlib.h>
int shared_value;
__attribute__((constructor)) static void exit_on_load(void) { exit(3); }

//--- reenter.c
#include <stddef.h>
#include <stdint.h>
void __catalyst__executor__launch(int64_t session, const char *entry, const char *object,
                                  size_t inputs, void **input_descs, const size_t *input_ranks,
                                  const size_t *input_sizes, size_t outputs, void **output_descs,
                                  const size_t *output_ranks, const size_t *output_sizes);
int shared_value;
void _mlir_ciface_first(void) {}
__attribute__((constructor)) static void launch_on_load(void) {
  __catalyst__executor__launch(1, "first", "reenter.o", 0, 0, 0, 0, 0, 0, 0, 0);
}

//--- legacy_table.c
static int value = 1;
static void times_ten(void) { value *= 10; }
__attribute__((section(".ctors"), used)) static void (*legacy[2])(void) = {times_ten, times_ten};
void _mlir_ciface_second(void) {}
void _mlir_ciface_other(void) { value++; }

//--- legacy_destructors.c
static void bye(void) {}
__attribute__((section(".dtors"), used)) static void (*legacy[1])(void) = {bye};
void _mlir_ciface_first(void) {}

//--- named_like_legacy.c
// A table of functions in a section named like `.ctors`, read by a kernel.
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
static int seven(void) { return 7; }
__attribute__((section(".ctors_table"), used)) int (*table[1])(void) = {seven};
static float result[1];
void _mlir_ciface_second(memref_1d *out) {
  result[0] = (float)table[0]();
  *out = (memref_1d){result, result, 0, {1}, {1}};
}
void _mlir_ciface_other(void) {}

//--- send.mlir
func.func @main() {
  %s = executor.open("local") : !executor.session
  executor.send_binary %s("@OBJECT@") : !executor.session
  executor.close %s : !executor.session
  return
}

//--- legacy.c
// Compiled so that its constructor goes to `.ctors`.
void _mlir_ciface_second(void) {}
__attribute__((constructor)) static void legacy(void) {}

//--- host.mlir
// Sends two objects and launches the second's kernel, then the first's.
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%m: memref<1xf32>) {
  %u = memref.cast %m : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<1xf32>
  return
}

func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@FIRST@") : !executor.session
  executor.send_binary %s("@SECOND@") : !executor.session
  %b = executor.launch %s("second", "@SECOND@")() : !executor.session, () -> memref<1xf32>
  call @print(%b) : (memref<1xf32>) -> ()
  %a = executor.launch %s("first", "@FIRST@")() : !executor.session, () -> memref<1xf32>
  call @print(%a) : (memref<1xf32>) -> ()
  executor.close %s : !executor.session
  return
}
