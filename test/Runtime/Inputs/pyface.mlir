// Catalyst's entry convention for the `add` kernel of kernels.mlir:
// `void _catalyst_pyface_add(results *, args *)`, where `results` holds the
// result descriptor and `args` the pointers to the input descriptors. It calls
// `_mlir_ciface_add`, which lives in another object of the same session.
llvm.func @_mlir_ciface_add(!llvm.ptr, !llvm.ptr, !llvm.ptr)

llvm.func @_catalyst_pyface_add(%results: !llvm.ptr, %args: !llvm.ptr) {
  %a = llvm.load %args : !llvm.ptr -> !llvm.ptr
  %second = llvm.getelementptr %args[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  %b = llvm.load %second : !llvm.ptr -> !llvm.ptr
  llvm.call @_mlir_ciface_add(%results, %a, %b) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}
