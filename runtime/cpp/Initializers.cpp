//===- Initializers.cpp - An object's load-time code and destructors ------===//
//
// See Initializers.h. An object's load-time code is named by its
// `.init_array` sections (`.init_array.N` first, by N, then `.init_array`),
// its destructors by `.fini_array` and by what its code registers with
// `__cxa_atexit` or `atexit`, keyed by the object's `__dso_handle` (which a
// linker defines in each shared library; here, an address in the memory of
// the piece of the object that refers to it). What a link holds is recorded
// once the link has applied its relocations, and kept once it succeeded.
//
//===----------------------------------------------------------------------===//
#include "Initializers.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/JITLink/x86_64.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

extern "C" int __cxa_atexit(void (*function)(void *), void *argument,
                            void *dso);

namespace executor {
namespace {

using llvm::Error;
using llvm::function_ref;
using llvm::orc::ExecutionSession;
using llvm::orc::JITDylib;
using llvm::orc::MaterializationResponsibility;
using llvm::orc::ResourceKey;
namespace jitlink = llvm::jitlink;
using llvm::operator|;

constexpr const char *kInitArray = ".init_array";
constexpr const char *kFiniArray = ".fini_array";
constexpr const char *kDsoHandle = "__dso_handle";
constexpr const char *kDsoHandleSection = "__executor.dso_handle";
constexpr const char *kAtexit = "atexit";
constexpr const char *kAtexitSection = "__executor.atexit";
constexpr const char *kCxaAtexit = "__cxa_atexit";
/// The priority of an entry of a section without one (`.init_array`): after
/// every numbered one, whose numbers go to 65535.
constexpr unsigned kDefaultPriority = 65536;

/// A function of an `.init_array` or `.fini_array` section.
struct Entry {
  unsigned priority;
  uint64_t address;
};

/// What one link (an object, or a piece of one) runs at load and at close.
struct Link {
  JITDylib *dylib = nullptr;
  /// When the link ended, among the JIT's links.
  uint64_t sequence = 0;
  std::vector<Entry> initializers;
  std::vector<Entry> finalizers;
  /// The link's `__dso_handle`, 0 if its code refers to none.
  uint64_t dsoHandle = 0;
  /// Whether its initializers were handed out to run.
  bool handedOut = false;
};

/// A destructor registered with `__cxa_atexit`.
struct Registration {
  JITDylib *dylib;
  void (*function)(void *);
  void *argument;
};

/// The priority of `section`'s entries if it is one of `array`'s sections
/// (`array`, `array.N`, or `array.` and another suffix, which has the
/// default priority, as LLVM's linker gives it).
std::optional<unsigned> arrayPriority(llvm::StringRef section,
                                      llvm::StringRef array) {
  if (!section.consume_front(array))
    return std::nullopt;
  if (section.empty())
    return kDefaultPriority;
  if (!section.consume_front("."))
    return std::nullopt;
  unsigned priority;
  if (section.getAsInteger(10, priority) || priority >= kDefaultPriority)
    return kDefaultPriority;
  return priority;
}

/// Whether `section` holds legacy constructors or destructors: `.ctors`,
/// `.dtors`, or one of them with a priority (`.ctors.00101`).
bool isLegacyArraySection(llvm::StringRef section) {
  for (llvm::StringRef legacy : {".ctors", ".dtors"})
    if (section == legacy || section.starts_with((legacy + ".").str()))
      return true;
  return false;
}

bool isArraySection(llvm::StringRef section) {
  return arrayPriority(section, kInitArray) ||
         arrayPriority(section, kFiniArray);
}

/// Where each block of the array sections is in the object file: a C++
/// object has an `.init_array` section per COMDAT group (inline variables,
/// static members of templates) besides its own, which a linker takes in the
/// order of the file and JITLink lays out in any order.
using BlockPlaces = std::map<const jitlink::Block *, uintptr_t>;

/// The places of `graph`'s array blocks, read before the link copies them.
BlockPlaces arrayBlockPlaces(jitlink::LinkGraph &graph) {
  BlockPlaces places;
  for (auto &section : graph.sections())
    if (isArraySection(section.getName()))
      for (auto *block : section.blocks())
        places[block] = block->isZeroFill()
                            ? 0
                            : reinterpret_cast<uintptr_t>(
                                  block->getContent().data());
  return places;
}

/// The functions `array`'s sections of `graph` name, in the order they run
/// at load (priority, then place in the object file), their relocations
/// applied.
std::vector<Entry> arrayEntries(jitlink::LinkGraph &graph,
                                llvm::StringRef array,
                                const BlockPlaces &places) {
  struct Found {
    Entry entry;
    uintptr_t block;
    uint64_t offset;
  };
  std::vector<Found> found;
  for (auto &section : graph.sections()) {
    auto priority = arrayPriority(section.getName(), array);
    if (!priority)
      continue;
    for (auto *block : section.blocks()) {
      auto place = places.find(block);
      uintptr_t blockPlace = place == places.end() ? 0 : place->second;
      for (auto &edge : block->edges()) {
        uint64_t target =
            edge.getTarget().getAddress().getValue() + edge.getAddend();
        found.push_back({{*priority, target}, blockPlace, edge.getOffset()});
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const Found &left, const Found &right) {
    return std::tie(left.entry.priority, left.block, left.offset) <
           std::tie(right.entry.priority, right.block, right.offset);
  });
  std::vector<Entry> entries;
  for (auto &each : found)
    entries.push_back(each.entry);
  return entries;
}

void runInReverse(const std::vector<Entry> &entries, bool numbered) {
  for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry)
    if ((entry->priority != kDefaultPriority) == numbered)
      reinterpret_cast<void (*)()>(entry->address)();
}

class InitializersPlugin;

/// The plugin of each live JIT, by its execution session.
std::mutex registryMutex;
std::map<ExecutionSession *, InitializersPlugin *> &registry() {
  // Never destroyed: a JIT disposed during exit still finds it.
  static auto *plugins = new std::map<ExecutionSession *, InitializersPlugin *>();
  return *plugins;
}

class InitializersPlugin : public llvm::orc::LinkGraphLinkingLayer::Plugin {
public:
  explicit InitializersPlugin(ExecutionSession &session) : session(session) {
    std::lock_guard<std::mutex> lock(registryMutex);
    registry()[&session] = this;
  }

  ~InitializersPlugin() override {
    std::lock_guard<std::mutex> lock(registryMutex);
    registry().erase(&session);
  }

  static InitializersPlugin *of(ExecutionSession &session) {
    std::lock_guard<std::mutex> lock(registryMutex);
    auto found = registry().find(&session);
    return found == registry().end() ? nullptr : found->second;
  }

  /// Records `function(argument)` for the object whose `__dso_handle` is
  /// `dso`, if a live JIT linked it.
  static bool registerDestructor(void (*function)(void *), void *argument,
                                 void *dso) {
    std::lock_guard<std::mutex> lock(registryMutex);
    for (auto &[session, plugin] : registry())
      if (plugin->recordRegistration(function, argument, dso))
        return true;
    return false;
  }

  void modifyPassConfig(MaterializationResponsibility &responsibility,
                        jitlink::LinkGraph &,
                        jitlink::PassConfiguration &config) override {
    auto places = std::make_shared<BlockPlaces>();
    config.PrePrunePasses.push_back([places](jitlink::LinkGraph &graph) {
      *places = arrayBlockPlaces(graph);
      return prepare(graph);
    });
    config.PostFixupPasses.push_back(
        [this, &responsibility, places](jitlink::LinkGraph &graph) {
          record(responsibility, graph, *places);
          return Error::success();
        });
  }

  Error notifyEmitted(MaterializationResponsibility &responsibility) override {
    std::lock_guard<std::mutex> lock(stateMutex);
    auto found = inFlight.find(&responsibility);
    if (found != inFlight.end()) {
      found->second.sequence = nextSequence++;
      if (found->second.dsoHandle)
        handles[found->second.dsoHandle] = found->second.dylib;
      linked.push_back(std::move(found->second));
      inFlight.erase(found);
    }
    return Error::success();
  }

  Error notifyFailed(MaterializationResponsibility &responsibility) override {
    std::lock_guard<std::mutex> lock(stateMutex);
    inFlight.erase(&responsibility);
    return Error::success();
  }

  Error notifyRemovingResources(JITDylib &, ResourceKey) override {
    return Error::success();
  }

  void notifyTransferringResources(JITDylib &, ResourceKey,
                                   ResourceKey) override {}

  void noteDylib(JITDylib &dylib) {
    std::lock_guard<std::mutex> lock(stateMutex);
    dylibOrder.emplace(&dylib, dylibOrder.size());
  }

  JITDylib *nextInitializers(std::vector<uint64_t> &functions) {
    std::lock_guard<std::mutex> lock(stateMutex);
    functions.clear();
    JITDylib *first = nullptr;
    for (auto &link : linked)
      if (!link.handedOut && (!first || order(link.dylib) < order(first)))
        first = link.dylib;
    // `linked` is in the order links ended.
    for (auto &link : linked)
      if (!link.handedOut && link.dylib == first) {
        link.handedOut = true;
        for (auto &entry : link.initializers)
          functions.push_back(entry.address);
      }
    return first;
  }

  void runDestructors(function_ref<void(JITDylib &)> announce) {
    std::vector<Link> links;
    {
      std::lock_guard<std::mutex> lock(stateMutex);
      for (auto &link : linked)
        if (link.handedOut)
          links.push_back(std::move(link));
      linked.clear();
    }
    // The last sent first; within an object, the last link first.
    std::sort(links.begin(), links.end(), [this](const Link &left, const Link &right) {
      if (order(left.dylib) != order(right.dylib))
        return order(left.dylib) > order(right.dylib);
      return left.sequence > right.sequence;
    });
    for (size_t start = 0; start < links.size();) {
      JITDylib *dylib = links[start].dylib;
      size_t end = start;
      while (end < links.size() && links[end].dylib == dylib)
        ++end;
      announce(*dylib);
      for (size_t index = start; index < end; ++index)
        runInReverse(links[index].finalizers, /*numbered=*/false);
      runRegistrations(dylib, announce);
      for (size_t index = start; index < end; ++index)
        runInReverse(links[index].finalizers, /*numbered=*/true);
      start = end;
    }
    // Registered meanwhile for an object whose turn had passed.
    runRegistrations(nullptr, announce);
    std::lock_guard<std::mutex> lock(stateMutex);
    handles.clear();
  }

private:
  /// Refuses legacy constructors; keeps the array sections, and with them
  /// the code they name, which no symbol of the object reaches; gives the
  /// object a `__dso_handle` of its own if its code refers to one or calls
  /// `atexit`, and an `atexit` that registers with it.
  static Error prepare(jitlink::LinkGraph &graph) {
    for (auto &section : graph.sections()) {
      auto name = section.getName();
      if (isLegacyArraySection(name) && !section.empty())
        return llvm::make_error<llvm::StringError>(
            "it holds " + name.str() +
                " (legacy constructors or destructors), which this executor "
                "does not run: compile it with -fuse-init-array",
            llvm::inconvertibleErrorCode());
      if (isArraySection(name))
        for (auto *block : section.blocks())
          graph.addAnonymousSymbol(*block, 0, block->getSize(),
                                   /*IsCallable=*/false, /*IsLive=*/true);
    }
    jitlink::Symbol *handle = nullptr;
    if (auto *external =
            graph.findExternalSymbolByName(graph.intern(kDsoHandle)))
      handle = &defineDsoHandle(graph, external);
    if (auto *atexit = graph.findExternalSymbolByName(graph.intern(kAtexit));
        atexit && graph.getTargetTriple().getArch() == llvm::Triple::x86_64)
      defineAtexit(graph, *atexit,
                   handle ? *handle : defineDsoHandle(graph, nullptr));
    return Error::success();
  }

  /// Defines the link's own `__dso_handle`: `external`, the object's
  /// reference to it, or a new symbol if it has none.
  static jitlink::Symbol &defineDsoHandle(jitlink::LinkGraph &graph,
                                          jitlink::Symbol *external) {
    auto &section =
        graph.createSection(kDsoHandleSection, llvm::orc::MemProt::Read |
                                                   llvm::orc::MemProt::Write);
    auto &block =
        graph.createZeroFillBlock(section, 1, llvm::orc::ExecutorAddr(), 1, 0);
    if (!external)
      return graph.addAnonymousSymbol(block, 0, 1, /*IsCallable=*/false,
                                      /*IsLive=*/true);
    graph.makeDefined(*external, block, 0, 1, jitlink::Linkage::Strong,
                      jitlink::Scope::Local, /*IsLive=*/true);
    return *external;
  }

  /// Defines `atexit`, the object's reference to it, in the link: the C
  /// library's shared object has no such symbol (every program and library
  /// links its own, from libc_nonshared.a), and what it does is register
  /// the function with `__cxa_atexit` under the caller's `__dso_handle`,
  /// here `handle`:
  ///
  ///   xor  %esi, %esi                  ; no argument
  ///   lea  handle(%rip), %rdx
  ///   jmp  __cxa_atexit
  static void defineAtexit(jitlink::LinkGraph &graph, jitlink::Symbol &atexit,
                           jitlink::Symbol &handle) {
    static const char code[] = {
        // xor %esi, %esi
        '\x31', '\xf6',
        // lea 0(%rip), %rdx
        '\x48', '\x8d', '\x15', 0, 0, 0, 0,
        // jmp 0
        '\xe9', 0, 0, 0, 0,
    };
    constexpr size_t kHandleFixup = 5, kCallFixup = 10;
    auto &section = graph.createSection(
        kAtexitSection, llvm::orc::MemProt::Read | llvm::orc::MemProt::Exec);
    auto &block = graph.createContentBlock(
        section, llvm::ArrayRef<char>(code, sizeof(code)),
        llvm::orc::ExecutorAddr(), 16, 0);
    auto name = graph.intern(kCxaAtexit);
    auto *cxaAtexit = graph.findExternalSymbolByName(name);
    if (!cxaAtexit)
      cxaAtexit =
          &graph.addExternalSymbol(name, 0, /*IsWeaklyReferenced=*/false);
    block.addEdge(jitlink::x86_64::PCRel32, kHandleFixup, handle, 0);
    block.addEdge(jitlink::x86_64::BranchPCRel32, kCallFixup, *cxaAtexit, 0);
    graph.makeDefined(atexit, block, 0, sizeof(code), jitlink::Linkage::Strong,
                      jitlink::Scope::Local, /*IsLive=*/true);
  }

  void record(MaterializationResponsibility &responsibility,
              jitlink::LinkGraph &graph, const BlockPlaces &places) {
    Link link;
    link.dylib = &responsibility.getTargetJITDylib();
    link.initializers = arrayEntries(graph, kInitArray, places);
    link.finalizers = arrayEntries(graph, kFiniArray, places);
    if (auto *section = graph.findSectionByName(kDsoHandleSection))
      for (auto *block : section->blocks())
        link.dsoHandle = block->getAddress().getValue();
    // Most links (a kernel's piece, an object of MLIR's) have none of these:
    // nothing to keep, and nothing to scan at every later lookup.
    if (link.initializers.empty() && link.finalizers.empty() && !link.dsoHandle)
      return;
    std::lock_guard<std::mutex> lock(stateMutex);
    inFlight[&responsibility] = std::move(link);
  }

  /// Runs the destructors registered for `dylib` (any, if null), the last
  /// first, until none is left: one may register another as it runs (the
  /// first use of a function-local static, in a static's destructor), as
  /// `__cxa_finalize` runs those too. For any object, each is announced
  /// with its object first.
  void runRegistrations(JITDylib *dylib,
                        function_ref<void(JITDylib &)> announce) {
    while (true) {
      Registration next;
      {
        std::lock_guard<std::mutex> lock(stateMutex);
        auto last = std::find_if(registrations.rbegin(), registrations.rend(),
                                 [dylib](const Registration &registration) {
                                   return !dylib || registration.dylib == dylib;
                                 });
        if (last == registrations.rend())
          return;
        next = *last;
        registrations.erase(std::next(last).base());
      }
      if (!dylib)
        announce(*next.dylib);
      next.function(next.argument);
    }
  }

  bool recordRegistration(void (*function)(void *), void *argument,
                          void *dso) {
    std::lock_guard<std::mutex> lock(stateMutex);
    auto found = handles.find(reinterpret_cast<uint64_t>(dso));
    if (found == handles.end())
      return false;
    registrations.push_back({found->second, function, argument});
    return true;
  }

  /// Where `dylib` is in the order objects were sent (the JIT's own
  /// JITDylibs, such as the warm-up's, last).
  size_t order(JITDylib *dylib) const {
    auto found = dylibOrder.find(dylib);
    return found == dylibOrder.end() ? SIZE_MAX : found->second;
  }

  ExecutionSession &session;
  std::mutex stateMutex;
  /// Links under way, by their materialization.
  std::map<MaterializationResponsibility *, Link> inFlight;
  /// Links that ended, in the order they ended.
  std::vector<Link> linked;
  uint64_t nextSequence = 0;
  std::map<JITDylib *, size_t> dylibOrder;
  /// The JITDylib of each link's `__dso_handle`.
  std::map<uint64_t, JITDylib *> handles;
  std::vector<Registration> registrations;
};

} // namespace

bool holdsLoadTimeCode(llvm::StringRef section) {
  return isArraySection(section) || isLegacyArraySection(section);
}

/// What the objects of a JIT call as `__cxa_atexit`: a destructor for one of
/// them is kept for its JIT's close; any other goes to the process's.
extern "C" int executorCxaAtexit(void (*function)(void *), void *argument,
                                 void *dso) {
  if (InitializersPlugin::registerDestructor(function, argument, dso))
    return 0;
  return __cxa_atexit(function, argument, dso);
}

std::shared_ptr<llvm::orc::LinkGraphLinkingLayer::Plugin>
createInitializersPlugin(ExecutionSession &session) {
  return std::make_shared<InitializersPlugin>(session);
}

Error interceptCxaAtexit(llvm::orc::LLJIT &jit) {
  llvm::orc::SymbolMap symbols;
  symbols[jit.mangleAndIntern(kCxaAtexit)] = {
      llvm::orc::ExecutorAddr::fromPtr(&executorCxaAtexit),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  return jit.getMainJITDylib().define(
      llvm::orc::absoluteSymbols(std::move(symbols)));
}

void noteObjectDylib(ExecutionSession &session, JITDylib &dylib) {
  if (auto *plugin = InitializersPlugin::of(session))
    plugin->noteDylib(dylib);
}

JITDylib *nextInitializers(ExecutionSession &session,
                           std::vector<uint64_t> &functions) {
  auto *plugin = InitializersPlugin::of(session);
  return plugin ? plugin->nextInitializers(functions) : nullptr;
}

void runDestructors(ExecutionSession &session,
                    function_ref<void(JITDylib &)> announce) {
  if (auto *plugin = InitializersPlugin::of(session))
    plugin->runDestructors(announce);
}

} // namespace executor
