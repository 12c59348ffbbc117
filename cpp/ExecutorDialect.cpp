//===- ExecutorDialect.cpp - The executor dialect ---------------*- C++ -*-===//
//
// The generated definitions, the one rule of executor.call that relates
// operands to results and so cannot be an ODS constraint, and the verifier of
// the dialect's discardable attributes (the dispatch form).
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
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

//===----------------------------------------------------------------------===//
// The dispatch form's attributes
//===----------------------------------------------------------------------===//

/// `executor.target = {address = "...", triple = "...", cpu = "...",
/// features = "..."}` (the last three optional) on a named builtin.module
/// nested in a module, and not inside another target module (its kernels are
/// compiled as one object file, named after the module).
static LogicalResult verifyTarget(Operation *op, Attribute value) {
  StringRef name = ExecutorDialect::kTargetAttrName;
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError() << "'" << name
                           << "' marks a builtin.module of kernels, not '"
                           << op->getName() << "'";
  if (!module.getSymName())
    return op->emitError()
           << "a target module needs a name (`module @name attributes {"
           << name
           << " = ...}`): kernel declarations refer to it and its object "
              "file is named after it";
  // Without a parent the module is being parsed or built on its own: a
  // parsed top-level module is verified inside the parser's container, so
  // a rule about the top level could not hold for it (executor-dispatch
  // rejects a target module as the module it runs on).
  Operation *parent = op->getParentOp();
  if (parent && !isa<ModuleOp>(parent))
    return op->emitError() << "a target module is nested directly in a "
                              "builtin.module, not in '"
                           << parent->getName() << "'";
  for (Operation *ancestor = parent; ancestor;
       ancestor = ancestor->getParentOp())
    if (ancestor->hasAttr(name))
      return op->emitError() << "a target module cannot be nested in another "
                                "target module";
  auto target = dyn_cast<DictionaryAttr>(value);
  if (!target)
    return op->emitError() << "'" << name
                           << "' expects a dictionary {address = \"...\"}, "
                              "got "
                           << value;
  StringRef addressKey = ExecutorDialect::kTargetAddressKey;
  for (NamedAttribute entry : target) {
    StringRef key = entry.getName().strref();
    if (key == addressKey)
      continue;
    if (!llvm::is_contained(ExecutorDialect::kTargetMachineKeys, key))
      return op->emitError() << "'" << name << "' has no key '" << key
                             << "' (its keys are '" << addressKey
                             << "', 'triple', 'cpu' and 'features')";
    if (!isa<StringAttr>(entry.getValue()))
      return op->emitError() << "'" << name << "' takes a string '" << key
                             << "' (LLVM's spelling), got "
                             << entry.getValue();
  }
  auto address = target.getAs<StringAttr>(addressKey);
  if (!address || address.getValue().empty())
    return op->emitError() << "'" << name << "' needs a non-empty string '"
                           << addressKey
                           << "', the executor's address (as executor.open "
                              "takes it), got "
                           << value;
  return success();
}

/// `executor.kernel = @module::@kernel` on a func.func declaration.
static LogicalResult verifyKernel(Operation *op, Attribute value) {
  StringRef name = ExecutorDialect::kKernelAttrName;
  auto function = dyn_cast<func::FuncOp>(op);
  if (!function)
    return op->emitError() << "'" << name
                           << "' marks a func.func declaration, not '"
                           << op->getName() << "'";
  if (!function.isExternal())
    return op->emitError()
           << "'" << name
           << "' marks a declaration, but this function has a body: the "
              "kernel's code lives in its target module";
  auto reference = dyn_cast<SymbolRefAttr>(value);
  if (!reference || reference.getNestedReferences().size() != 1)
    return op->emitError() << "'" << name
                           << "' expects a reference @module::@kernel to a "
                              "kernel of a target module, got "
                           << value;
  return success();
}

/// `executor.async` (a unit attribute) on a func.call.
static LogicalResult verifyAsync(Operation *op, Attribute value) {
  StringRef name = ExecutorDialect::kAsyncAttrName;
  if (!isa<func::CallOp>(op))
    return op->emitError() << "'" << name
                           << "' marks a func.call to a kernel, not '"
                           << op->getName() << "'";
  if (!isa<UnitAttr>(value))
    return op->emitError() << "'" << name
                           << "' is a unit attribute (no value), got "
                           << value;
  return success();
}

LogicalResult ExecutorDialect::verifyOperationAttribute(Operation *op,
                                                        NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  if (name == kTargetAttrName)
    return verifyTarget(op, attribute.getValue());
  if (name == kKernelAttrName)
    return verifyKernel(op, attribute.getValue());
  if (name == kAsyncAttrName)
    return verifyAsync(op, attribute.getValue());
  return op->emitError() << "unknown attribute '" << name
                         << "' of the executor dialect (it has '"
                         << kTargetAttrName << "', '" << kKernelAttrName
                         << "' and '" << kAsyncAttrName << "')";
}
