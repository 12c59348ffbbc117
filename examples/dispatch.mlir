// A host function that uses every op of the executor dialect: open a session,
// ship a kernel object and a shared library, launch a kernel synchronously and
// another asynchronously, call a library symbol, close the session.
func.func @dispatch(%x: memref<4xf32>, %y: memref<?xf32>, %t: tensor<8xf64>) -> (memref<4xf32>, tensor<8xf64>) {
  %session = executor.open("local") : !executor.session
  executor.send_binary %session("kernels.o") : !executor.session
  executor.send_binary %session("libnative.so") {format = 2 : i32} : !executor.session

  %sum = executor.launch %session("add", "kernels.o")(%x, %x)
      : !executor.session, (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  executor.launch %session("scale_in_place", "kernels.o")(%y)
      : !executor.session, (memref<?xf32>) -> ()

  %token = executor.launch_async %session("warm_up", "kernels.o")
      : !executor.session -> !executor.token
  executor.await %token : !executor.token

  %empty = tensor.empty() : tensor<8xf64>
  %norm = executor.call %session("normalize")(%t, %empty) {num_input_args = 1 : i32}
      : !executor.session, (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>

  executor.close %session : !executor.session
  return %sum, %norm : memref<4xf32>, tensor<8xf64>
}
