//===- Initializers.cpp - An object's load-time code and destructors ------===//
//
// See Initializers.h. An object's load-time code is named by its
// `.init_array` sections (`.init_array.N` first, by N, then `.init_array`),
// its destructors by `.fini_array` and by what that code registers with
// `__cxa_atexit`, keyed by the object's `__dso_handle` (which a linker
// defines in each shared library; here, an address in the object's own
// memory). What an object holds is recorded when its link has applied its
// relocations, and kept once the link has succeeded.
//
//===----------------------------------------------------------------------===//
#include "Initializers.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

extern "C" int __cxa_finalize(void *dso);

namespace executor {
namespace {

using llvm::Error;
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
/// The priority of an entry of a section without one (`.init_array`): after
/// every numbered one, whose numbers go to 65535.
constexpr unsigned kDefaultPriority = 65536;

/// A function of an `.init_array` or `.fini_array` section.
struct Entry {
  unsigned priority;
  uint64_t address;
};

/// What one linked object runs at load and at close.
struct LinkedObject {
  std::vector<Entry> initializers;
  std::vector<Entry> finalizers;
  /// The object's `__dso_handle`, 0 if it has none.
  uint64_t dsoHandle = 0;
};

/// The priority of `section`'s entries if it is one of `array`'s sections
/// (`array` or `array.N`).
std::optional<unsigned> arrayPriority(llvm::StringRef section,
                                      llvm::StringRef array) {
  if (!section.consume_front(array))
    return std::nullopt;
  if (section.empty())
    return kDefaultPriority;
  unsigned priority;
  if (!section.consume_front(".") || section.getAsInteger(10, priority))
    return std::nullopt;
  return priority;
}

bool isArraySection(llvm::StringRef section) {
  return arrayPriority(section, kInitArray) ||
         arrayPriority(section, kFiniArray);
}

/// The functions `array`'s sections of `graph` name, in the order they run
/// at load (priority, then place in the section); their relocations applied.
std::vector<Entry> arrayEntries(jitlink::LinkGraph &graph,
                                llvm::StringRef array) {
  std::vector<std::pair<Entry, uint64_t>> found;
  for (auto &section : graph.sections()) {
    auto priority = arrayPriority(section.getName(), array);
    if (!priority)
      continue;
    for (auto *block : section.blocks())
      for (auto &edge : block->edges()) {
        uint64_t place = block->getAddress().getValue() + edge.getOffset();
        uint64_t target =
            edge.getTarget().getAddress().getValue() + edge.getAddend();
        found.push_back({{*priority, target}, place});
      }
  }
  // Places are distinct: the order is total.
  std::sort(found.begin(), found.end(),
                   [](const auto &left, const auto &right) {
                     if (left.first.priority != right.first.priority)
                       return left.first.priority < right.first.priority;
                     return left.second < right.second;
                   });
  std::vector<Entry> entries;
  for (auto &[entry, place] : found)
    entries.push_back(entry);
  return entries;
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

  void modifyPassConfig(MaterializationResponsibility &responsibility,
                        jitlink::LinkGraph &graph,
                        jitlink::PassConfiguration &config) override {
    config.PrePrunePasses.push_back(keepArraysAndDefineDsoHandle);
    config.PostFixupPasses.push_back(
        [this, &responsibility](jitlink::LinkGraph &graph) {
          record(responsibility, graph);
          return Error::success();
        });
    (void)graph;
  }

  Error notifyEmitted(MaterializationResponsibility &responsibility) override {
    std::lock_guard<std::mutex> lock(stateMutex);
    auto found = inFlight.find(&responsibility);
    if (found != inFlight.end()) {
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

  void runInitializers() {
    std::lock_guard<std::mutex> running(runMutex);
    while (true) {
      std::vector<Entry> initializers;
      {
        std::lock_guard<std::mutex> lock(stateMutex);
        if (initialized == linked.size())
          return;
        initializers = linked[initialized].initializers;
        ++initialized;
      }
      for (auto &entry : initializers)
        reinterpret_cast<void (*)()>(entry.address)();
    }
  }

  void runDestructors() {
    std::lock_guard<std::mutex> running(runMutex);
    std::vector<LinkedObject> objects;
    {
      std::lock_guard<std::mutex> lock(stateMutex);
      objects.assign(linked.begin(), linked.begin() + initialized);
      linked.clear();
      initialized = 0;
    }
    for (auto object = objects.rbegin(); object != objects.rend(); ++object) {
      if (object->dsoHandle)
        __cxa_finalize(reinterpret_cast<void *>(object->dsoHandle));
      for (auto entry = object->finalizers.rbegin();
           entry != object->finalizers.rend(); ++entry)
        reinterpret_cast<void (*)()>(entry->address)();
    }
  }

private:
  /// Keeps the array sections, and with them the code they name, which no
  /// symbol of the object reaches; gives the object a `__dso_handle` of its
  /// own if its code refers to one.
  static Error keepArraysAndDefineDsoHandle(jitlink::LinkGraph &graph) {
    for (auto &section : graph.sections())
      if (isArraySection(section.getName()))
        for (auto *block : section.blocks())
          graph.addAnonymousSymbol(*block, 0, block->getSize(),
                                   /*IsCallable=*/false, /*IsLive=*/true);
    if (auto *handle = graph.findExternalSymbolByName(graph.intern(kDsoHandle))) {
      auto &section = graph.createSection(
          kDsoHandleSection, llvm::orc::MemProt::Read | llvm::orc::MemProt::Write);
      auto &block = graph.createZeroFillBlock(section, 1, llvm::orc::ExecutorAddr(),
                                              1, 0);
      graph.makeDefined(*handle, block, 0, 1, jitlink::Linkage::Strong,
                        jitlink::Scope::Local, /*IsLive=*/true);
    }
    return Error::success();
  }

  void record(MaterializationResponsibility &responsibility,
              jitlink::LinkGraph &graph) {
    LinkedObject object;
    object.initializers = arrayEntries(graph, kInitArray);
    object.finalizers = arrayEntries(graph, kFiniArray);
    if (auto *section = graph.findSectionByName(kDsoHandleSection))
      for (auto *block : section->blocks())
        object.dsoHandle = block->getAddress().getValue();
    if (object.initializers.empty() && object.finalizers.empty() &&
        !object.dsoHandle)
      return;
    std::lock_guard<std::mutex> lock(stateMutex);
    inFlight[&responsibility] = std::move(object);
  }

  ExecutionSession &session;
  /// Held while load-time code or destructors run.
  std::mutex runMutex;
  std::mutex stateMutex;
  /// Objects whose link is under way, by their materialization.
  std::map<MaterializationResponsibility *, LinkedObject> inFlight;
  /// Linked objects, in the order their links ended.
  std::vector<LinkedObject> linked;
  /// How many of `linked` have had their initializers run.
  size_t initialized = 0;
};

} // namespace

std::shared_ptr<llvm::orc::LinkGraphLinkingLayer::Plugin>
createInitializersPlugin(ExecutionSession &session) {
  return std::make_shared<InitializersPlugin>(session);
}

void runLinkedInitializers(ExecutionSession &session) {
  if (auto *plugin = InitializersPlugin::of(session))
    plugin->runInitializers();
}

void runDestructors(ExecutionSession &session) {
  if (auto *plugin = InitializersPlugin::of(session))
    plugin->runDestructors();
}

} // namespace executor
