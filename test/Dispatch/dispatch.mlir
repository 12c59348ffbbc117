// RUN: rm -rf %t && mkdir -p %t
// RUN: executor-opt %s --pass-pipeline='builtin.module(executor-dispatch{object-dir=%t/objects})' | FileCheck %s
// RUN: llvm-nm %t/objects/kernels.o | FileCheck %s --check-prefix=KERNELS-O
// RUN: llvm-nm %t/objects/more.o | FileCheck %s --check-prefix=MORE-O
// RUN: llvm-nm %t/objects/remote.o | FileCheck %s --check-prefix=REMOTE-O

// The objects go to the current directory by default, and a relative
// object-dir is made absolute: the host may run from anywhere.
// RUN: mkdir -p %t/cwd && cd %t/cwd && executor-opt %s --pass-pipeline='builtin.module(executor-dispatch)' \
// RUN:   | FileCheck %s --check-prefix=CWD
// RUN: ls %t/cwd/kernels.o %t/cwd/more.o %t/cwd/remote.o
// RUN: cd %t && executor-opt %s --pass-pipeline='builtin.module(executor-dispatch{object-dir=relative/dir})' \
// RUN:   | FileCheck %s --check-prefix=RELATIVE
// CWD:      executor.send_binary %{{.*}}("/{{.*}}/cwd/kernels.o")
// RELATIVE: executor.send_binary %{{.*}}("/{{.*}}/relative/dir/kernels.o")

// executor-dispatch on a host with three target modules, two of them at one
// address: each function that calls kernels opens each address it uses once
// and sends each object it uses once, at its start; every call becomes a
// launch of its kernel in its module's object; sessions close before each
// return; the target modules and kernel declarations are gone.

// CHECK-NOT: executor.target
// CHECK-NOT: executor.kernel

// CHECK-LABEL: func.func @one_module(
//  CHECK-SAME:     %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
//  CHECK-NEXT:   %[[S:.*]] = executor.open("local") : !executor.session
//  CHECK-NEXT:   executor.send_binary %[[S]]("{{/.*}}/objects/kernels.o") : !executor.session
//  CHECK-NEXT:   %[[R:.*]] = executor.launch %[[S]]("add", "{{/.*}}/objects/kernels.o") (%[[A]], %[[B]]) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
//  CHECK-NEXT:   %[[R2:.*]] = executor.launch %[[S]]("add", "{{/.*}}/objects/kernels.o") (%[[R]], %[[B]]) : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
//  CHECK-NEXT:   executor.launch %[[S]]("scale", "{{/.*}}/objects/kernels.o") (%[[R2]]) : !executor.session, (memref<4xf32>) -> ()
//  CHECK-NEXT:   executor.close %[[S]] : !executor.session
//  CHECK-NEXT:   return %[[R2]] : memref<4xf32>

// Three objects, two addresses: the opens first, then the sends, in the
// order of the target modules.
// CHECK-LABEL: func.func @every_module(
//  CHECK-NEXT:   %[[LOCAL:.*]] = executor.open("local") : !executor.session
//  CHECK-NEXT:   %[[REMOTE:.*]] = executor.open("127.0.0.1:9000") : !executor.session
//  CHECK-NEXT:   executor.send_binary %[[LOCAL]]("{{/.*}}/objects/kernels.o")
//  CHECK-NEXT:   executor.send_binary %[[REMOTE]]("{{/.*}}/objects/remote.o")
//  CHECK-NEXT:   executor.send_binary %[[LOCAL]]("{{/.*}}/objects/more.o")
//  CHECK-NEXT:   executor.launch %[[REMOTE]]("sum_rows", "{{/.*}}/objects/remote.o") ({{.*}}) : !executor.session, (memref<?x?xf32>) -> (memref<?xf32>, memref<?x?xf32>)
//  CHECK-NEXT:   executor.launch %[[LOCAL]]("add", "{{/.*}}/objects/more.o")
//  CHECK-NEXT:   executor.launch %[[LOCAL]]("add", "{{/.*}}/objects/kernels.o")
//  CHECK-NEXT:   executor.close %[[LOCAL]] : !executor.session
//  CHECK-NEXT:   executor.close %[[REMOTE]] : !executor.session
//  CHECK-NEXT:   return

// A call in a loop: the session is opened once, before the loop.
// CHECK-LABEL: func.func @in_a_loop(
//  CHECK-NEXT:   %[[S:.*]] = executor.open("127.0.0.1:9000")
//  CHECK-NEXT:   executor.send_binary %[[S]]("{{/.*}}/objects/remote.o")
//       CHECK:   scf.for
//  CHECK-NEXT:     executor.launch %[[S]]("sum_rows", "{{/.*}}/objects/remote.o")
//   CHECK-NOT:   executor.open
//       CHECK:   executor.close %[[S]]
//  CHECK-NEXT:   return

// Functions without kernel calls, and other calls, are left alone.
// CHECK-LABEL: func.func @no_kernels(
//  CHECK-NEXT:   call @one_module
//  CHECK-NEXT:   return

// The objects export each public kernel and its C interface.
// KERNELS-O-DAG: T _mlir_ciface_add
// KERNELS-O-DAG: T _mlir_ciface_scale
// KERNELS-O-DAG: T add
// KERNELS-O-DAG: T scale
// MORE-O:        T _mlir_ciface_add
// REMOTE-O:      T _mlir_ciface_sum_rows

module {
  module @kernels attributes {executor.target = {address = "local"}} {
    func.func @add(%a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> {
      %r = memref.alloc() : memref<4xf32>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %x = memref.load %a[%i] : memref<4xf32>
        %y = memref.load %b[%i] : memref<4xf32>
        %z = arith.addf %x, %y : f32
        memref.store %z, %r[%i] : memref<4xf32>
      }
      return %r : memref<4xf32>
    }
    func.func @scale(%a: memref<4xf32>) {
      return
    }
  }

  module @remote attributes {executor.target = {address = "127.0.0.1:9000"}} {
    func.func @sum_rows(%m: memref<?x?xf32>) -> (memref<?xf32>, memref<?x?xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %rows = memref.dim %m, %c0 : memref<?x?xf32>
      %cols = memref.dim %m, %c1 : memref<?x?xf32>
      %sums = memref.alloc(%rows) : memref<?xf32>
      %copy = memref.alloc(%rows, %cols) : memref<?x?xf32>
      return %sums, %copy : memref<?xf32>, memref<?x?xf32>
    }
  }

  // A second object at "local", with a kernel of the same name as one of
  // @kernels: each launch names its own object.
  module @more attributes {executor.target = {address = "local"}} {
    func.func @add(%a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> {
      return %a : memref<4xf32>
    }
  }

  func.func private @add(memref<4xf32>, memref<4xf32>) -> memref<4xf32> attributes {executor.kernel = @kernels::@add}
  func.func private @scale(memref<4xf32>) attributes {executor.kernel = @kernels::@scale}
  func.func private @sum_rows(memref<?x?xf32>) -> (memref<?xf32>, memref<?x?xf32>) attributes {executor.kernel = @remote::@sum_rows}
  func.func private @add_more(memref<4xf32>, memref<4xf32>) -> memref<4xf32> attributes {executor.kernel = @more::@add}

  func.func @one_module(%a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> {
    %r = call @add(%a, %b) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    %r2 = call @add(%r, %b) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    call @scale(%r2) : (memref<4xf32>) -> ()
    return %r2 : memref<4xf32>
  }

  func.func @every_module(%a: memref<4xf32>, %m: memref<?x?xf32>) {
    %sums, %copy = call @sum_rows(%m) : (memref<?x?xf32>) -> (memref<?xf32>, memref<?x?xf32>)
    %x = call @add_more(%a, %a) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    %y = call @add(%x, %x) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    return
  }

  func.func @in_a_loop(%m: memref<?x?xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %sums, %copy = func.call @sum_rows(%m) : (memref<?x?xf32>) -> (memref<?xf32>, memref<?x?xf32>)
    }
    return
  }

  func.func @no_kernels(%a: memref<4xf32>) {
    %r = call @one_module(%a, %a) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
    return
  }
}
