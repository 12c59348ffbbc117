//===- BufferizableOpInterfaceImpl.cpp - executor.call bufferization -----===//
//
// How one-shot-bufferize turns executor.call on tensors into its memref form.
// An output operand is written in place, so its result is the same buffer
// (destination-passing style); without output operands the results become
// statically shaped memref results, which the LLVM lowering allocates.
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace catalyst::executor;

namespace {
/// The index of `operand` among the call's output buffers, if it is one.
std::optional<unsigned> outputIndex(CallOp call, OpOperand &operand) {
  OperandRange outputs = call.getOutputBuffers();
  unsigned number = operand.getOperandNumber();
  if (outputs.empty() || number < outputs.getBeginOperandIndex())
    return std::nullopt;
  return number - outputs.getBeginOperandIndex();
}

struct CallOpBufferization
    : public BufferizableOpInterface::ExternalModel<CallOpBufferization,
                                                    CallOp> {
  // Output buffers are shipped to the executor too, so every operand is read.
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }

  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const AnalysisState &) const {
    return outputIndex(cast<CallOp>(op), operand).has_value();
  }

  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    std::optional<unsigned> index = outputIndex(cast<CallOp>(op), operand);
    if (!index)
      return {};
    return {{op->getResult(*index), BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto call = cast<CallOp>(op);
    SmallVector<Value> buffers;
    for (Value value : call.getInputs()) {
      FailureOr<Value> buffer = getBuffer(rewriter, value, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }

    SmallVector<Type> resultTypes;
    unsigned numOutputs = call.getOutputBuffers().size();
    if (numOutputs == 0)
      for (Type type : call.getResultTypes())
        resultTypes.push_back(getMemRefTypeWithStaticIdentityLayout(
            cast<TensorType>(type)));

    rewriter.setInsertionPoint(op);
    auto bufferized = CallOp::create(rewriter, call.getLoc(), resultTypes,
                                     call.getSession(), call.getSymbolAttr(),
                                     buffers, call.getNumInputArgsAttr());
    SmallVector<Value> replacements =
        numOutputs == 0
            ? SmallVector<Value>(bufferized.getResults())
            : SmallVector<Value>(ArrayRef(buffers).take_back(numOutputs));
    replaceOpWithBufferizedValues(rewriter, op, replacements);
    return success();
  }
};
} // namespace

void catalyst::executor::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, ExecutorDialect *) {
    CallOp::attachInterface<CallOpBufferization>(*context);
  });
}
