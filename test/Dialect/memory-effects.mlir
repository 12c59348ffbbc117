// The memory effects of the executor ops (td/ExecutorOps.td) as upstream
// passes see them: CSE, LICM and canonicalization's dead-code elimination
// leave every executor op where it is (an unused open still contacts its
// executor; two identical launches run twice; a launch may write its input
// buffers), and buffer deallocation, which rejects ops with unknown effects,
// frees the buffers launches and calls allocate.

// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(cse))' | FileCheck %s --check-prefix=CSE
// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(loop-invariant-code-motion))' | FileCheck %s --check-prefix=LICM
// RUN: executor-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s --check-prefix=DCE
// RUN: executor-opt %s -split-input-file --ownership-based-buffer-deallocation | FileCheck %s --check-prefix=DEALLOC

// CSE-LABEL: func.func @identical_ops
// CSE:         %[[A:.*]] = executor.open("local")
// CSE-NEXT:    %[[B:.*]] = executor.open("local")
// CSE-NEXT:    executor.send_binary %[[A]]("kernels.o")
// CSE-NEXT:    executor.send_binary %[[A]]("kernels.o")
// CSE-NEXT:    %[[BEFORE:.*]] = memref.load %[[X:.*]][
// CSE-NEXT:    %[[R1:.*]] = executor.launch %[[A]]("scale", "kernels.o") (%[[X]])
// CSE-NEXT:    %[[R2:.*]] = executor.launch %[[A]]("scale", "kernels.o") (%[[X]])
// CSE-NEXT:    %[[AFTER:.*]] = memref.load %[[X]][
// CSE-NEXT:    %[[T1:.*]] = executor.launch_async %[[A]]("warm_up", "kernels.o")
// CSE-NEXT:    %[[T2:.*]] = executor.launch_async %[[A]]("warm_up", "kernels.o")
// CSE-NEXT:    %[[C1:.*]] = executor.call %[[A]]("normalize") (%[[T:.*]])
// CSE-NEXT:    %[[C2:.*]] = executor.call %[[A]]("normalize") (%[[T]])
// CSE:         return %[[B]], %[[R1]], %[[R2]], %[[BEFORE]], %[[AFTER]], %[[T1]], %[[T2]], %[[C1]], %[[C2]]
func.func @identical_ops(%x: memref<4xf32>, %t: tensor<4xf32>)
    -> (!executor.session, memref<4xf32>, memref<4xf32>, f32, f32,
        !executor.token, !executor.token, tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = executor.open("local") : !executor.session
  %b = executor.open("local") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  executor.send_binary %a("kernels.o") : !executor.session
  %before = memref.load %x[%c0] : memref<4xf32>
  %r1 = executor.launch %a("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  %r2 = executor.launch %a("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  // The launches may have written %x.
  %after = memref.load %x[%c0] : memref<4xf32>
  %t1 = executor.launch_async %a("warm_up", "kernels.o") : !executor.session -> !executor.token
  %t2 = executor.launch_async %a("warm_up", "kernels.o") : !executor.session -> !executor.token
  %c1 = executor.call %a("normalize")(%t) : !executor.session, (tensor<4xf32>) -> tensor<4xf32>
  %c2 = executor.call %a("normalize")(%t) : !executor.session, (tensor<4xf32>) -> tensor<4xf32>
  return %b, %r1, %r2, %before, %after, %t1, %t2, %c1, %c2
      : !executor.session, memref<4xf32>, memref<4xf32>, f32, f32,
        !executor.token, !executor.token, tensor<4xf32>, tensor<4xf32>
}

// -----

// LICM hoists the constant, and no executor op: each may contact an
// executor, and a loop that runs zero times contacts none.
// LICM-LABEL: func.func @loop_invariant_ops
// LICM:         arith.constant 2.000000e+00 : f32
// LICM-NEXT:    scf.for
// LICM-NEXT:      executor.open("local")
// LICM-NEXT:      executor.send_binary
// LICM-NEXT:      executor.launch
// LICM-NEXT:      executor.launch_async
// LICM-NEXT:      executor.await
// LICM-NEXT:      executor.call
// LICM-NEXT:      memref.store
func.func @loop_invariant_ops(%s: !executor.session, %x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %opened = executor.open("local") : !executor.session
    executor.send_binary %s("kernels.o") : !executor.session
    executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> ()
    %t = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
    executor.await %t : !executor.token
    executor.call %s("fill")(%x) : !executor.session, (memref<4xf32>) -> ()
    %two = arith.constant 2.0 : f32
    memref.store %two, %x[%c0] : memref<4xf32>
  }
  return
}

// -----

// Results nobody uses do not make executor ops dead.
// DCE-LABEL: func.func @unused_results
// DCE-NEXT:    executor.open("local")
// DCE-NEXT:    executor.launch
// DCE-NEXT:    executor.launch_async
// DCE-NEXT:    executor.call
// DCE-NEXT:    executor.close
// DCE-NEXT:    return
func.func @unused_results(%s: !executor.session, %x: memref<4xf32>, %t: tensor<8xf64>) {
  %unused = arith.constant 1 : i32
  %opened = executor.open("local") : !executor.session
  %r = executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  %token = executor.launch_async %s("warm_up", "kernels.o") : !executor.session -> !executor.token
  %y = executor.call %s("normalize")(%t) : !executor.session, (tensor<8xf64>) -> tensor<8xf64>
  executor.close %s : !executor.session
  return
}

// -----

// A launch's results and a call's are allocations of the caller's (the
// runtime and the lowering malloc them): deallocation frees them, and not the
// input buffers, which the kernel only reads and writes.
// DEALLOC-LABEL: func.func @allocated_results
// DEALLOC-SAME:    (%[[S:.*]]: !executor.session, %[[X:.*]]: memref<4xf32>)
// DEALLOC:         %[[BORROWED:.*]] = arith.constant false
// DEALLOC:         %[[R:.*]] = executor.launch %[[S]]("scale", "kernels.o") (%[[X]])
// DEALLOC:         %[[C:.*]] = executor.call %[[S]]("make")
// DEALLOC:         %[[X_BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[X]]
// DEALLOC:         %[[R_BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[R]]
// DEALLOC:         %[[C_BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[C]]
// DEALLOC:         bufferization.dealloc (%[[X_BASE]], %[[R_BASE]], %[[C_BASE]] : {{.*}}) if (%[[BORROWED]], %true{{[_0-9]*}}, %true{{[_0-9]*}})
func.func @allocated_results(%s: !executor.session, %x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %r = executor.launch %s("scale", "kernels.o")(%x) : !executor.session, (memref<4xf32>) -> memref<4xf32>
  %c = executor.call %s("make")() : !executor.session, () -> memref<4xf32>
  %a = memref.load %r[%c0] : memref<4xf32>
  %b = memref.load %c[%c0] : memref<4xf32>
  %sum = arith.addf %a, %b : f32
  return %sum : f32
}
