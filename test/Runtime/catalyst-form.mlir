// A host program in the form Catalyst's own convert-executor-to-llvm emits it
// (LLVM dialect, written by hand from that form): static stack buffers of raw
// input bytes for call_wrapper with the plain byte count as args_size, the
// outputs' bytes copied out of out_buf, `_catalyst_pyface_` entries for
// launch_async, format 1 for an asset. It runs unchanged on the embedded
// executor and on an executor-server, whose --plugin library serves the calls.

// RUN: rm -rf %t && mkdir %t && cd %t
// RUN: clang -shared -fPIC %S/Inputs/catalyst-callees.c -o %t/callees.so
// RUN: clang -c -fPIC %S/Inputs/catalyst-callees.c -o %t/entries.o
// RUN: printf 'hello, executor' > %t/greeting.txt
// On local, the callees are in the host process and the kernel finds the
// asset where the host has it (the working directory).
// RUN: sed -e 's|@ADDRESS@|local|' -e 's|@DIR@|%t|' %s > %t/local.mlir
// RUN: not %run_host,%t/callees.so %t/local.mlir > %t/local.out 2> %t/local.err
// RUN: FileCheck %s --check-prefixes=CHECK,LOCAL < %t/local.out
// RUN: FileCheck %s --check-prefix=ERROR < %t/local.err
// On a server, the callees come with --plugin and the asset is stored in the
// session's asset directory, the working directory of its kernels.
// RUN: %with_server --plugin %t/callees.so -- sh -c "cd / && sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@DIR@|%t|' %s \
// RUN:   | %run_host > %t/remote.out 2> %t/remote.err; test \$? = 1"
// RUN: FileCheck %s < %t/remote.out
// RUN: FileCheck %s --check-prefix=ERROR < %t/remote.err

// LOCAL: warmed up
// double_floats([1, 2, 3, 4]): 16 bytes, returned on the heap.
// CHECK:      2
// CHECK-NEXT: 4
// CHECK-NEXT: 6
// CHECK-NEXT: 8
// negate_pair([1, 2]): 8 bytes, returned inline.
// CHECK-NEXT: -1
// CHECK-NEXT: -2
// read_greeting(): the asset's first bytes.
// CHECK-NEXT: hello, e
// refuse(): the wrapper's error message ends the program.
// ERROR: executor runtime: __catalyst__executor__call_wrapper({{.*}}, symbol refuse): {{(the executor reported: )?}}the called function reported: refused: no input is acceptable

module {
  llvm.mlir.global internal constant @executor_addr("@ADDRESS@\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @executor_path_entries("@DIR@/entries.o\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @executor_path_greeting("@DIR@/greeting.txt\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @executor_sym_warm_up("_catalyst_pyface_warm_up\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @executor_lib_sym_double_floats("double_floats\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @executor_lib_sym_negate_pair("negate_pair\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @executor_lib_sym_read_greeting("read_greeting\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @executor_lib_sym_refuse("refuse\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @floats(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
  llvm.func @__catalyst__executor__open(!llvm.ptr) -> i64
  llvm.func @__catalyst__executor__send_binary(i64, !llvm.ptr, i32) -> i64
  llvm.func @__catalyst__executor__launch_async(i64, !llvm.ptr, !llvm.ptr) -> i64
  llvm.func @__catalyst__executor__await(i64)
  llvm.func @__catalyst__executor__call_wrapper(i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
  llvm.func @__catalyst__executor__free_result(!llvm.ptr)
  llvm.func @__catalyst__executor__close(i64) -> i64
  llvm.func @printF32(f32)
  llvm.func @printNewline()
  llvm.func @putchar(i32) -> i32

  // Prints `count` floats of `buffer`, one per line.
  llvm.func @print_floats(%buffer: !llvm.ptr, %count: i64) {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    llvm.br ^loop(%zero : i64)
  ^loop(%i: i64):
    %more = llvm.icmp "slt" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %address = llvm.getelementptr %buffer[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %value = llvm.load %address : !llvm.ptr -> f32
    llvm.call @printF32(%value) : (f32) -> ()
    llvm.call @printNewline() : () -> ()
    %next = llvm.add %i, %one : i64
    llvm.br ^loop(%next : i64)
  ^done:
    llvm.return
  }

  // Prints `count` bytes of `buffer` as characters, then a newline.
  llvm.func @print_chars(%buffer: !llvm.ptr, %count: i64) {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    llvm.br ^loop(%zero : i64)
  ^loop(%i: i64):
    %more = llvm.icmp "slt" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %address = llvm.getelementptr %buffer[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %byte = llvm.load %address : !llvm.ptr -> i8
    %char = llvm.zext %byte : i8 to i32
    %ignored = llvm.call @putchar(%char) : (i32) -> i32
    %next = llvm.add %i, %one : i64
    llvm.br ^loop(%next : i64)
  ^done:
    llvm.call @printNewline() : () -> ()
    llvm.return
  }

  llvm.func @main() {
    // Catalyst's static allocas: the args buffer of each call, out_buf, out_size.
    %one = llvm.mlir.constant(1 : i64) : i64
    %args16 = llvm.alloca %one x !llvm.array<16 x i8> : (i64) -> !llvm.ptr
    %args8 = llvm.alloca %one x !llvm.array<8 x i8> : (i64) -> !llvm.ptr
    %args1 = llvm.alloca %one x !llvm.array<1 x i8> : (i64) -> !llvm.ptr
    %out_slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr
    %size_slot = llvm.alloca %one x i64 : (i64) -> !llvm.ptr
    %zero = llvm.mlir.constant(0 : i64) : i64
    %two = llvm.mlir.constant(2 : i64) : i64
    %four = llvm.mlir.constant(4 : i64) : i64
    %eight = llvm.mlir.constant(8 : i64) : i64
    %sixteen = llvm.mlir.constant(16 : i64) : i64
    %object = llvm.mlir.constant(0 : i32) : i32
    %asset = llvm.mlir.constant(1 : i32) : i32

    %addr = llvm.mlir.addressof @executor_addr : !llvm.ptr
    %s = llvm.call @__catalyst__executor__open(%addr) : (!llvm.ptr) -> i64
    %entries = llvm.mlir.addressof @executor_path_entries : !llvm.ptr
    %r0 = llvm.call @__catalyst__executor__send_binary(%s, %entries, %object) : (i64, !llvm.ptr, i32) -> i64
    %greeting = llvm.mlir.addressof @executor_path_greeting : !llvm.ptr
    %r1 = llvm.call @__catalyst__executor__send_binary(%s, %greeting, %asset) : (i64, !llvm.ptr, i32) -> i64

    %warm_up = llvm.mlir.addressof @executor_sym_warm_up : !llvm.ptr
    %token = llvm.call @__catalyst__executor__launch_async(%s, %warm_up, %entries) : (i64, !llvm.ptr, !llvm.ptr) -> i64
    llvm.call @__catalyst__executor__await(%token) : (i64) -> ()

    // double_floats: 16 input bytes.
    %floats = llvm.mlir.addressof @floats : !llvm.ptr
    "llvm.intr.memcpy"(%args16, %floats, %sixteen) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
    %double_floats = llvm.mlir.addressof @executor_lib_sym_double_floats : !llvm.ptr
    %c0 = llvm.call @__catalyst__executor__call_wrapper(%s, %double_floats, %args16, %sixteen, %out_slot, %size_slot) : (i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
    %doubled = llvm.load %out_slot : !llvm.ptr -> !llvm.ptr
    llvm.call @print_floats(%doubled, %four) : (!llvm.ptr, i64) -> ()
    llvm.call @__catalyst__executor__free_result(%doubled) : (!llvm.ptr) -> ()

    // negate_pair: 8 input bytes.
    "llvm.intr.memcpy"(%args8, %floats, %eight) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
    %negate_pair = llvm.mlir.addressof @executor_lib_sym_negate_pair : !llvm.ptr
    %c1 = llvm.call @__catalyst__executor__call_wrapper(%s, %negate_pair, %args8, %eight, %out_slot, %size_slot) : (i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
    %negated = llvm.load %out_slot : !llvm.ptr -> !llvm.ptr
    llvm.call @print_floats(%negated, %two) : (!llvm.ptr, i64) -> ()
    llvm.call @__catalyst__executor__free_result(%negated) : (!llvm.ptr) -> ()

    // read_greeting: no inputs (Catalyst's one-byte buffer, size 0).
    %read_greeting = llvm.mlir.addressof @executor_lib_sym_read_greeting : !llvm.ptr
    %c2 = llvm.call @__catalyst__executor__call_wrapper(%s, %read_greeting, %args1, %zero, %out_slot, %size_slot) : (i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
    %text = llvm.load %out_slot : !llvm.ptr -> !llvm.ptr
    llvm.call @print_chars(%text, %eight) : (!llvm.ptr, i64) -> ()
    llvm.call @__catalyst__executor__free_result(%text) : (!llvm.ptr) -> ()

    %refuse = llvm.mlir.addressof @executor_lib_sym_refuse : !llvm.ptr
    %c3 = llvm.call @__catalyst__executor__call_wrapper(%s, %refuse, %args1, %zero, %out_slot, %size_slot) : (i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
    %closed = llvm.call @__catalyst__executor__close(%s) : (i64) -> i64
    llvm.return
  }
}
