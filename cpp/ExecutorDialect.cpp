//===- ExecutorDialect.cpp - The executor dialect ---------------*- C++ -*-===//
//
// The generated definitions, plus the one rule of executor.call that relates
// operands to results and so cannot be an ODS constraint.
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace catalyst::executor;

#include "ExecutorDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "ExecutorTypes.cpp.inc"

#define GET_OP_CLASSES
#include "ExecutorOps.cpp.inc"

void ExecutorDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ExecutorTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ExecutorOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

static unsigned numInputBuffers(CallOp op) {
  std::optional<uint32_t> numInputArgs = op.getNumInputArgs();
  return numInputArgs ? *numInputArgs : op.getInputs().size();
}

OperandRange CallOp::getInputBuffers() {
  return getInputs().take_front(numInputBuffers(*this));
}

OperandRange CallOp::getOutputBuffers() {
  return getInputs().drop_front(numInputBuffers(*this));
}

LogicalResult CallOp::verify() {
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  bool tensorForm = llvm::any_of(getInputs().getTypes(), isTensor) ||
                    llvm::any_of(getResultTypes(), isTensor);
  bool memrefForm = !llvm::all_of(getInputs().getTypes(), isTensor) ||
                    !llvm::all_of(getResultTypes(), isTensor);
  if (tensorForm && memrefForm)
    return emitOpError("mixes tensors and memrefs: operands and results are "
                       "either all ranked tensors or, once bufferized, all "
                       "memrefs");

  OperandRange outputs = getOutputBuffers();
  // Numbered as in MLIR's own messages, where the session is operand #0.
  unsigned firstOutput =
      getODSOperandIndexAndLength(/*inputs=*/1).first + numInputBuffers(*this);
  if (!outputs.empty() && memrefForm) {
    if (getNumResults() != 0)
      return emitOpError() << "writes its " << outputs.size()
                           << " memref output operand(s) in place and so has "
                              "no results, but has "
                           << getNumResults();
    return success();
  }
  if (!outputs.empty()) {
    if (getNumResults() != outputs.size())
      return emitOpError() << "expects one result per output operand: "
                           << outputs.size() << " output operand(s) (operands #"
                           << firstOutput << " and after, per num_input_args) but "
                           << getNumResults() << " result(s)";
    for (auto [index, output, result] :
         llvm::enumerate(outputs.getTypes(), getResultTypes()))
      if (output != result)
        return emitOpError() << "result #" << index << " has type " << result
                             << " but the output operand it fills (operand #"
                             << firstOutput + index << ") has type " << output;
    return success();
  }
  for (auto [index, result] : llvm::enumerate(getResultTypes()))
    if (!cast<ShapedType>(result).hasStaticShape())
      return emitOpError() << "result #" << index << " has type " << result
                           << " with a dynamic shape; without output operands "
                              "(num_input_args) every result needs a static "
                              "shape";
  return success();
}

void CallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  SessionResource *sessions = SessionResource::get();
  effects.emplace_back(MemoryEffects::Read::get(), sessions);
  effects.emplace_back(MemoryEffects::Write::get(), sessions);
  // Tensors are values: only buffers are read, written or allocated.
  for (OpOperand &input : getInputsMutable()) {
    if (!isa<MemRefType>(input.get().getType()))
      continue;
    bool isOutput =
        input.getOperandNumber() - getInputs().getBeginOperandIndex() >=
        numInputBuffers(*this);
    if (isOutput)
      effects.emplace_back(MemoryEffects::Write::get(), &input,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &input,
                           SideEffects::DefaultResource::get());
  }
  for (OpResult result : getResults())
    if (isa<MemRefType>(result.getType()))
      effects.emplace_back(MemoryEffects::Allocate::get(), result,
                           SideEffects::DefaultResource::get());
}
