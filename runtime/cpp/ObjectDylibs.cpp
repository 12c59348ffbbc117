//===- ObjectDylibs.cpp - One JITDylib per sent object ----------*- C++ -*-===//
//
// What LLVM's C API for ORC lacks: creating an LLJIT that only links object
// files, warming up its linking, setting a JITDylib's link order, and
// looking a symbol up in a JITDylib other than the main one. The runtime gives every sent object a
// JITDylib of its own, so that two objects may define the same kernel and a
// launch finds the one of its object, while an object still resolves against
// the objects sent before it and the process.
//
//===----------------------------------------------------------------------===//

#include "Initializers.h"

#include "llvm-c/Error.h"
#include "llvm-c/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/EHFrameRegistrationPlugin.h"
#include "llvm/ExecutionEngine/Orc/IRCompileLayer.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectFileInterface.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ExecutionEngine/Orc/MapperJITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/MemoryMapper.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using llvm::orc::JITDylib;
using llvm::orc::JITDylibLookupFlags;
using llvm::orc::JITDylibSearchOrder;
using llvm::orc::LLJIT;

// The C API's handles are these objects' addresses (LLJIT.cpp, OrcV2CBindings.cpp).
static LLJIT &unwrapJit(LLVMOrcLLJITRef jit) {
  return *reinterpret_cast<LLJIT *>(jit);
}
static JITDylib &unwrapDylib(LLVMOrcJITDylibRef dylib) {
  return *reinterpret_cast<JITDylib *>(dylib);
}

namespace {
/// The compiler of a JIT that only links object files: an IR module added to
/// it fails to materialize, saying so. Nothing of this runtime adds one.
class ObjectFilesOnly : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  ObjectFilesOnly() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  operator()(llvm::Module &module) override {
    return llvm::createStringError(
        "this JIT links object files only and cannot compile module '%s'",
        module.getModuleIdentifier().c_str());
  }
};
} // namespace

/// The address space a JIT reserves at a time for the code and data it
/// links. An object linked a piece at a time (split_object) has its pieces
/// refer to each other's functions and data as the compiler wrote the
/// references for one object: 32-bit PC-relative, within 2 GiB. LLVM's
/// default memory manager maps each linked object wherever mmap puts it, so a
/// program that maps gigabytes of buffers between two launches had the
/// second piece's references out of range ("relocation target ... is out of
/// range of Delta32 fixup"). Pieces taken from one reservation are always in
/// range of each other, unless a session links more than this (the next
/// reservation may be anywhere). Reserved, not used: pages cost memory only
/// once written.
static constexpr size_t kJitReservation = size_t(1) << 30;

namespace {
/// The address ranges every JIT of this process has reserved for linked code
/// and data, so that the runtime can tell a linked object's static memory
/// (which a kernel may return as a result's buffer, but never hands over)
/// from a buffer it may free.
class Reservations {
public:
  void add(uintptr_t start, uintptr_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    ranges.push_back({start, end});
  }
  void remove(uintptr_t start) {
    std::lock_guard<std::mutex> lock(mutex);
    ranges.erase(std::remove_if(ranges.begin(), ranges.end(),
                                [start](const Range &range) {
                                  return range.start == start;
                                }),
                 ranges.end());
  }
  bool hold(uintptr_t address) {
    std::lock_guard<std::mutex> lock(mutex);
    return std::any_of(ranges.begin(), ranges.end(),
                       [address](const Range &range) {
                         return range.start <= address && address < range.end;
                       });
  }

private:
  struct Range {
    uintptr_t start, end;
  };
  std::mutex mutex;
  std::vector<Range> ranges;
};

Reservations &reservations() {
  // Never destroyed: a JIT released during exit still finds it.
  static Reservations *all = new Reservations();
  return *all;
}

/// Defines the symbols a shared library (a `dlopen` handle) has, as
/// absolute addresses, when a lookup asks for them.
class LibrarySymbols : public llvm::orc::DefinitionGenerator {
public:
  explicit LibrarySymbols(void *handle) : handle(handle) {
    if (dlinfo(handle, RTLD_DI_LINKMAP, &library) != 0)
      library = nullptr;
  }

  llvm::Error tryToGenerate(llvm::orc::LookupState &, llvm::orc::LookupKind,
                            JITDylib &dylib, JITDylibLookupFlags,
                            const llvm::orc::SymbolLookupSet &names) override {
    llvm::orc::SymbolMap found;
    for (const auto &[name, flags] : names) {
      // Names in the pool are not NUL-terminated.
      std::string text = (*name).str();
      // dlsym searches the library's dependencies too (the C library):
      // only what the library itself defines stands for the object, as an
      // object's JITDylib defines only the object's symbols.
      void *address = dlsym(handle, text.c_str());
      Dl_info info;
      struct link_map *owner = nullptr;
      if (address && library &&
          dladdr1(address, &info, reinterpret_cast<void **>(&owner),
                  RTLD_DL_LINKMAP) != 0 &&
          owner == library)
        found[name] = {llvm::orc::ExecutorAddr::fromPtr(address),
                       llvm::JITSymbolFlags::Exported};
    }
    if (found.empty())
      return llvm::Error::success();
    return dylib.define(llvm::orc::absoluteSymbols(std::move(found)));
  }

private:
  void *handle;
  struct link_map *library = nullptr;
};

/// LLVM's in-process memory mapper, recording what it reserves in
/// reservations().
class RecordingMapper : public llvm::orc::InProcessMemoryMapper {
public:
  using InProcessMemoryMapper::InProcessMemoryMapper;

  /// The base destructor releases what is still reserved, with its own
  /// release() (a destructor does not call an override): the ranges of a
  /// JIT that is gone are forgotten here, or memory mapped there later
  /// would be taken for linked code and data.
  ~RecordingMapper() override {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto start : own)
      reservations().remove(start);
  }

  static llvm::Expected<std::unique_ptr<RecordingMapper>> Create() {
    auto pageSize = llvm::sys::Process::getPageSize();
    if (!pageSize)
      return pageSize.takeError();
    return std::make_unique<RecordingMapper>(*pageSize);
  }

  void reserve(size_t size, OnReservedFunction onReserved) override {
    InProcessMemoryMapper::reserve(
        size, [this, onReserved = std::move(onReserved)](
                  llvm::Expected<llvm::orc::ExecutorAddrRange> range) mutable {
          if (range) {
            reservations().add(range->Start.getValue(), range->End.getValue());
            std::lock_guard<std::mutex> lock(mutex);
            own.push_back(range->Start.getValue());
          }
          onReserved(std::move(range));
        });
  }

  void release(llvm::ArrayRef<llvm::orc::ExecutorAddr> released,
               OnReleasedFunction onReleased) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto start : released) {
        reservations().remove(start.getValue());
        own.erase(std::remove(own.begin(), own.end(), start.getValue()),
                  own.end());
      }
    }
    InProcessMemoryMapper::release(released, std::move(onReleased));
  }

private:
  std::mutex mutex;
  /// The starts of this mapper's reservations not released yet.
  std::vector<uintptr_t> own;
};
} // namespace

/// The object linking layer of a JIT: JITLink, as LLJIT's default on this
/// host, with memory from reservations of kJitReservation (recorded), and
/// unwind entries registered with the process's unwinder.
static llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>>
createObjectLayer(llvm::orc::ExecutionSession &session) {
  auto memory = llvm::orc::MapperJITLinkMemoryManager::CreateWithMapper<
      RecordingMapper>(kJitReservation);
  if (!memory)
    return memory.takeError();
  auto layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(
      session, std::move(*memory));
  auto unwind = llvm::orc::EHFrameRegistrationPlugin::Create(session);
  if (!unwind)
    return unwind.takeError();
  layer->addPlugin(std::move(*unwind));
  layer->addPlugin(executor::createInitializersPlugin(session));
  return std::move(layer);
}

extern "C" {

/// Whether `address` is in memory a JIT of this process reserved for linked
/// code and data: a linked object's static memory, never a heap buffer.
bool executorJitMemoryHolds(const void *address) {
  return reservations().hold(reinterpret_cast<uintptr_t>(address));
}

/// Creates an LLJIT for the process's own triple that links object files
/// and compiles nothing. A default LLJIT detects the host's CPU and features
/// and builds a target machine from them for its IR compiler (most of the
/// time creating one takes, here about a millisecond); object files carry
/// their machine code already, and the data layout follows from the triple.
/// Nor has it a platform: the default one (LLVM IR that runs a JITDylib's
/// initializers and `__cxa_atexit` handlers when the JIT is asked to)
/// creates an LLVMContext and a module, 40% of the instructions of a
/// session's first `send_binary`, for what this runtime never asks, and IR
/// this JIT could not compile.
LLVMErrorRef executorCreateObjectJit(LLVMOrcLLJITRef *result) {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  llvm::DataLayout layout(triple.computeDataLayout());
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(llvm::orc::JITTargetMachineBuilder(triple))
          .setDataLayout(std::move(layout))
          .setObjectLinkingLayerCreator(createObjectLayer)
          .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
          .setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder)
                                         -> llvm::Expected<std::unique_ptr<
                                             llvm::orc::IRCompileLayer::IRCompiler>> {
            return std::make_unique<ObjectFilesOnly>();
          })
          .create();
  if (!jit)
    return llvm::wrap(jit.takeError());
  if (auto error = executor::interceptCxaAtexit(**jit))
    return llvm::wrap(std::move(error));
  *result = reinterpret_cast<LLVMOrcLLJITRef>(jit->release());
  return nullptr;
}

/// Links a throwaway object in `jit` as a session's first object would be
/// linked, then removes it: what the first link of a JIT costs once (its
/// first memory reservation, LLVM's lazily initialised parts, libLLVM's
/// linker code paged in), about 0.15 ms here, is then paid before a
/// session's first link. The object, compiled here, has one function that
/// calls a function of the process through the PLT and has an unwind
/// entry, as a kernel does. An executor-server's worker does this while it
/// waits for its session. Needs LLVM's native target.
LLVMErrorRef executorWarmUpLinking(LLVMOrcLLJITRef jitRef) {
  LLJIT &jit = unwrapJit(jitRef);
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return llvm::wrap(builder.takeError());
  builder->setRelocationModel(llvm::Reloc::PIC_);
  auto machine = builder->createTargetMachine();
  if (!machine)
    return llvm::wrap(machine.takeError());
  llvm::LLVMContext context;
  llvm::Module module("executor.warm-up", context);
  module.setDataLayout((*machine)->createDataLayout());
  module.setTargetTriple((*machine)->getTargetTriple());
  auto *pointer = llvm::PointerType::getUnqual(context);
  auto *voidType = llvm::Type::getVoidTy(context);
  auto callee = module.getOrInsertFunction(
      "free", llvm::FunctionType::get(voidType, {pointer}, false));
  auto *function = llvm::Function::Create(
      llvm::FunctionType::get(voidType, false),
      llvm::Function::ExternalLinkage, "executor_warm_up", module);
  auto *entry = llvm::BasicBlock::Create(context, "entry", function);
  llvm::CallInst::Create(callee, {llvm::ConstantPointerNull::get(pointer)}, "",
                         entry);
  llvm::ReturnInst::Create(context, entry);
  auto object = llvm::orc::SimpleCompiler(**machine)(module);
  if (!object)
    return llvm::wrap(object.takeError());
  auto &session = jit.getExecutionSession();
  JITDylib &dylib = session.createBareJITDylib("executor.warm-up");
  dylib.setLinkOrder(
      {{&dylib, JITDylibLookupFlags::MatchAllSymbols},
       {&jit.getMainJITDylib(), JITDylibLookupFlags::MatchExportedSymbolsOnly}},
      /*LinkAgainstThisJITDylibFirst=*/false);
  llvm::Error linked = jit.addObjectFile(dylib, std::move(*object));
  if (!linked)
    linked = jit.lookup(dylib, "executor_warm_up").takeError();
  return llvm::wrap(
      llvm::joinErrors(std::move(linked), session.removeJITDylib(dylib)));
}

/// Creates the JITDylib `name` (unique in the JIT) of an object the session
/// opened as a shared library instead of linking it (`handle`, from
/// `dlopen`): it defines, as they are looked up, the symbols `dlsym` finds in
/// that library, so that objects sent later resolve their references to it as
/// to an object linked here. Nothing of it runs at close: `dlclose` runs its
/// destructors.
LLVMOrcJITDylibRef executorCreateLibraryDylib(LLVMOrcLLJITRef jit,
                                              const char *name, void *handle) {
  JITDylib &dylib =
      unwrapJit(jit).getExecutionSession().createBareJITDylib(name);
  dylib.addGenerator(std::make_unique<LibrarySymbols>(handle));
  return reinterpret_cast<LLVMOrcJITDylibRef>(&dylib);
}

/// Creates the JITDylib `name` (unique in the JIT), whose objects resolve
/// their references against itself, then `earlier[0..count)` in order, then
/// the JIT's main JITDylib (the process's symbols).
LLVMOrcJITDylibRef executorCreateObjectDylib(LLVMOrcLLJITRef jit,
                                             const char *name,
                                             const LLVMOrcJITDylibRef *earlier,
                                             size_t count) {
  LLJIT &lljit = unwrapJit(jit);
  JITDylib &dylib = lljit.getExecutionSession().createBareJITDylib(name);
  JITDylibSearchOrder order;
  order.push_back({&dylib, JITDylibLookupFlags::MatchAllSymbols});
  for (size_t index = 0; index < count; ++index)
    order.push_back({&unwrapDylib(earlier[index]),
                     JITDylibLookupFlags::MatchExportedSymbolsOnly});
  order.push_back(
      {&lljit.getMainJITDylib(), JITDylibLookupFlags::MatchExportedSymbolsOnly});
  dylib.setLinkOrder(std::move(order), /*LinkAgainstThisJITDylibFirst=*/false);
  executor::noteObjectDylib(lljit.getExecutionSession(), dylib);
  return reinterpret_cast<LLVMOrcJITDylibRef>(&dylib);
}

/// Whether `object` has sections of code it runs at load or at close, which
/// its interface does not show for destructors.
static bool hasLoadTimeCode(llvm::MemoryBufferRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(object);
  if (!file) {
    llvm::consumeError(file.takeError());
    return false;
  }
  for (auto &section : (*file)->sections()) {
    auto name = section.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (executor::holdsLoadTimeCode(*name))
      return true;
  }
  return false;
}

/// Whether every symbol `object` refers to and does not define is one of
/// the process's now (`dlsym`): linking it now then resolves each as a
/// later first lookup would, whatever the process loads meanwhile (a
/// library a kernel opens with RTLD_GLOBAL). False for one it cannot read.
static bool refersToProcessSymbolsOnly(llvm::MemoryBufferRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(object);
  if (!file) {
    llvm::consumeError(file.takeError());
    return false;
  }
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto flags = symbol.getFlags();
    if (!flags) {
      llvm::consumeError(flags.takeError());
      return false;
    }
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    auto name = symbol.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      return false;
    }
    // The null symbol of an ELF symbol table has no name.
    if (name->empty())
      continue;
    if (!dlsym(RTLD_DEFAULT, name->str().c_str()))
      return false;
  }
  return true;
}

/// Adds the object file `buffer` (owned from now on) to `dylib`, linked at
/// the first lookup of one of its symbols; or now, if it has code it runs at
/// load or at close (`.init_array`, `.fini_array`; `.ctors` and `.dtors`,
/// which the link refuses), as `dlopen` loads a library with constructors:
/// its constructors are then handed out to run (Initializers.h), its
/// destructors will run at close, and a failing link is this call's error.
/// `*linked` says which. Not from inside a lookup (a definition generator),
/// which links the object anyway. Unless `defined` is null, an object not
/// linked now whose references are all to the process's symbols
/// (refersToProcessSymbolsOnly) gets in `*defined` (null otherwise, or if it
/// defines none) the name of a symbol it defines, a lookup of which links
/// it whole; a copy for the caller to `free`.
LLVMErrorRef executorAddWholeObject(LLVMOrcLLJITRef jit,
                                    LLVMOrcJITDylibRef dylib,
                                    LLVMMemoryBufferRef buffer, int *linked,
                                    char **defined) {
  LLJIT &lljit = unwrapJit(jit);
  JITDylib &target = unwrapDylib(dylib);
  std::unique_ptr<llvm::MemoryBuffer> object(llvm::unwrap(buffer));
  *linked = 0;
  if (defined)
    *defined = nullptr;
  auto interface = llvm::orc::getObjectFileInterface(
      lljit.getExecutionSession(), object->getMemBufferRef());
  if (!interface)
    return llvm::wrap(interface.takeError());
  // What a lookup of links the object: its initializers' symbol, which ORC
  // gives an object with `.init_array`; one with destructors only (maybe
  // without any global symbol) is given one here.
  if (!interface->InitSymbol && hasLoadTimeCode(object->getMemBufferRef()))
    llvm::orc::addInitSymbol(*interface, lljit.getExecutionSession(),
                             object->getBufferIdentifier());
  auto trigger = interface->InitSymbol;
  std::string anyDefined;
  if (defined && !trigger && !interface->SymbolFlags.empty() &&
      refersToProcessSymbolsOnly(object->getMemBufferRef()))
    anyDefined = (*interface->SymbolFlags.begin()->first).str();
  if (auto error = lljit.getObjLinkingLayer().add(target, std::move(object),
                                                  std::move(*interface)))
    return llvm::wrap(std::move(error));
  if (!trigger) {
    if (!anyDefined.empty())
      *defined = strdup(anyDefined.c_str());
    return nullptr;
  }
  auto symbols = lljit.getExecutionSession().lookup(
      {{&target, JITDylibLookupFlags::MatchAllSymbols}},
      llvm::orc::SymbolLookupSet(
          trigger, llvm::orc::SymbolLookupFlags::WeaklyReferencedSymbol));
  if (!symbols)
    return llvm::wrap(symbols.takeError());
  *linked = 1;
  return nullptr;
}

/// Looks the unmangled `name` up in `dylib` alone, linking what it needs.
LLVMErrorRef executorLookupInDylib(LLVMOrcLLJITRef jit,
                                   LLVMOrcJITDylibRef dylib, const char *name,
                                   uint64_t *address) {
  auto symbol = unwrapJit(jit).lookup(unwrapDylib(dylib), name);
  if (!symbol)
    return llvm::wrap(symbol.takeError());
  *address = symbol->getValue();
  return nullptr;
}

/// The next object of `jit` whose constructors are to run, and its
/// constructors (`*functions`, `*count`: valid until the next call on this
/// thread); null when every linked object's have been handed out
/// (Initializers.h).
LLVMOrcJITDylibRef executorNextInitializers(LLVMOrcLLJITRef jit,
                                            const uint64_t **functions,
                                            size_t *count) {
  static thread_local std::vector<uint64_t> handedOut;
  auto *dylib = executor::nextInitializers(
      unwrapJit(jit).getExecutionSession(), handedOut);
  *functions = handedOut.data();
  *count = handedOut.size();
  return reinterpret_cast<LLVMOrcJITDylibRef>(dylib);
}

/// Runs the destructors of the objects `jit` linked (Initializers.h), before
/// it is disposed; calls `announce` with `context` and each object's JITDylib
/// before that object's destructors run.
void executorRunDestructors(LLVMOrcLLJITRef jit,
                            void (*announce)(void *context,
                                             LLVMOrcJITDylibRef dylib),
                            void *context) {
  executor::runDestructors(
      unwrapJit(jit).getExecutionSession(),
      [announce, context](llvm::orc::JITDylib &dylib) {
        announce(context, reinterpret_cast<LLVMOrcJITDylibRef>(&dylib));
      });
}

} // extern "C"
