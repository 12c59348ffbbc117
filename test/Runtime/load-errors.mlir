// Failures to load a binary or to find an entry name what the program named:
// the path it sent (on a server too, which stores the bytes in a file of its
// own), and the symbol it launched, with a hint when only the C-interface
// wrapper is missing. Each program fails with one line, the same on the
// embedded executor and on a server but for the server's "the executor
// reported: ".

// RUN: rm -rf %t && split-file %s %t
// RUN: printf 'garbage\n' > %t/bad.o
// RUN: printf 'garbage\n' > %t/bad.so
// RUN: mlir-opt %t/plain.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t/plain.o
// RUN: clang -shared %t/plain.o -o %t/plain.so
// RUN: mlir-opt %t/undefined-reference.mlir --pass-pipeline=%kernel_pipeline | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -filetype=obj -relocation-model=pic -o %t/undefined-reference.o

// RUN: sh -c "for program in bad-object bad-library unknown-symbol no-c-interface no-c-interface-in-library unlinked no-such-function; do \
// RUN:     sed -e 's|@ADDRESS@|local|' -e 's|@DIR@|%t|' %t/\$program.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host 2>&1; \
// RUN:     echo \"exit status \$?\"; done" | FileCheck %s -DDIR=%t -DREPORTED=
// RUN: %with_server -- sh -c "for program in bad-object bad-library unknown-symbol no-c-interface no-c-interface-in-library unlinked no-such-function; do \
// RUN:     sed -e \"s|@ADDRESS@|\$EXECUTOR_ADDRESS|\" -e 's|@DIR@|%t|' %t/\$program.mlir \
// RUN:     | executor-opt --pass-pipeline='builtin.module(executor-llvm-lowering-stage)' | %run_host 2>&1; \
// RUN:     echo \"exit status \$?\"; done" | FileCheck %s -DDIR=%t '-DREPORTED=the executor reported: '

// CHECK:      __catalyst__executor__send_binary({{.*}}, path [[DIR]]/bad.o): [[REPORTED]]cannot load object file '[[DIR]]/bad.o': not an object file: The file was not recognized as a valid object file{{$}}
// CHECK-NEXT: exit status 1
// The reason is dlerror's, without the file it names: on a server, that is
// the server's own copy.
// CHECK-NEXT: __catalyst__executor__send_binary({{.*}}, path [[DIR]]/bad.so): [[REPORTED]]cannot load shared library '[[DIR]]/bad.so': {{[^/]*$}}
// CHECK-NEXT: exit status 1
// CHECK-NEXT: __catalyst__executor__launch({{.*}}, symbol _mlir_ciface_no_such_kernel): [[REPORTED]]no symbol '_mlir_ciface_no_such_kernel' in '[[DIR]]/plain.o'{{$}}
// CHECK-NEXT: exit status 1
// CHECK-NEXT: __catalyst__executor__launch({{.*}}, symbol _mlir_ciface_plain): [[REPORTED]]no symbol '_mlir_ciface_plain' in '[[DIR]]/plain.o', though 'plain' is there: the kernel lacks the llvm.emit_c_interface attribute, which generates the '_mlir_ciface_plain' wrapper that launches call{{$}}
// CHECK-NEXT: exit status 1
// CHECK-NEXT: __catalyst__executor__launch({{.*}}, symbol _mlir_ciface_plain): [[REPORTED]]no symbol '_mlir_ciface_plain' in '[[DIR]]/plain.so', though 'plain' is there: the kernel lacks the llvm.emit_c_interface attribute, which generates the '_mlir_ciface_plain' wrapper that launches call{{$}}
// CHECK-NEXT: exit status 1
// What the entry refers to and nothing defines is in the message (rather
// than printed on its own by LLVM).
// CHECK-NEXT: __catalyst__executor__launch({{.*}}, symbol _mlir_ciface_calls_undefined): [[REPORTED]]cannot link '_mlir_ciface_calls_undefined': Symbols not found: [ undefined_function ]{{$}}
// CHECK-NEXT: exit status 1
// CHECK-NEXT: __catalyst__executor__call_wrapper({{.*}}, symbol no_such_function): [[REPORTED]]no symbol 'no_such_function' in the session's shared libraries {{\[}}[[DIR]]/plain.so] or the executor process{{$}}
// CHECK-NEXT: exit status 1

//--- plain.mlir
// Compiled without llvm.emit_c_interface: there is no _mlir_ciface_plain.
func.func @plain() {
  return
}

//--- undefined-reference.mlir
func.func private @undefined_function()
func.func @calls_undefined() attributes {llvm.emit_c_interface} {
  func.call @undefined_function() : () -> ()
  return
}

//--- bad-object.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/bad.o") : !executor.session
  return
}

//--- bad-library.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/bad.so") {format = 2 : i32} : !executor.session
  return
}

//--- unknown-symbol.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/plain.o") : !executor.session
  executor.launch %s("no_such_kernel", "@DIR@/plain.o")() : !executor.session, () -> ()
  return
}

//--- no-c-interface.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/plain.o") : !executor.session
  executor.launch %s("plain", "@DIR@/plain.o")() : !executor.session, () -> ()
  return
}

//--- no-c-interface-in-library.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/plain.so") {format = 2 : i32} : !executor.session
  executor.launch %s("plain", "@DIR@/plain.so")() : !executor.session, () -> ()
  return
}

//--- unlinked.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/undefined-reference.o") : !executor.session
  executor.launch %s("calls_undefined", "@DIR@/undefined-reference.o")() : !executor.session, () -> ()
  return
}

//--- no-such-function.mlir
func.func @main() {
  %s = executor.open("@ADDRESS@") : !executor.session
  executor.send_binary %s("@DIR@/plain.so") {format = 2 : i32} : !executor.session
  executor.call %s("no_such_function") () : !executor.session, () -> ()
  return
}
