//===- Initializers.h - An object's load-time code and destructors -*- C++ -*-===//
//
// A JIT without a platform (ObjectDylibs.cpp) links an object's code but runs
// none of its load-time code: a C constructor, a C++ static object's
// constructor (which also registers its destructor with `__cxa_atexit`).
// This plugin keeps that code linked and hands it out to run as `dlopen`
// would, and runs the destructors as `dlclose` would.
//
//===----------------------------------------------------------------------===//
#ifndef EXECUTOR_RUNTIME_INITIALIZERS_H
#define EXECUTOR_RUNTIME_INITIALIZERS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/LinkGraphLinkingLayer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace executor {

/// The plugin of the JIT of `session`: each object it links gets its own
/// `__dso_handle`, and keeps its `.init_array` and `.fini_array` entries and
/// the code they name. Refuses legacy `.ctors` and `.dtors`.
std::shared_ptr<llvm::orc::LinkGraphLinkingLayer::Plugin>
createInitializersPlugin(llvm::orc::ExecutionSession &session);

/// Whether a section of this name names code the object runs at load or at
/// close (`.init_array`, `.fini_array`, and the legacy `.ctors`, `.dtors`).
bool holdsLoadTimeCode(llvm::StringRef section);

/// Makes `jit`'s objects register their destructors with the plugin instead
/// of the process (`__cxa_atexit`), so that they run when the JIT is closed,
/// not at exit after it: defines `__cxa_atexit` in its main JITDylib.
llvm::Error interceptCxaAtexit(llvm::orc::LLJIT &jit);

/// Notes that `dylib` holds the object sent after those noted before it:
/// an object's constructors run after those of the objects sent before it,
/// which it may use, and its destructors before theirs.
void noteObjectDylib(llvm::orc::ExecutionSession &session,
                     llvm::orc::JITDylib &dylib);

/// The next object whose constructors have not been handed out yet, among
/// those `session` has linked, the first sent first, and its constructors
/// in the order they run (`functions`, valid until the next call); null if
/// there is none. The caller runs them.
llvm::orc::JITDylib *nextInitializers(llvm::orc::ExecutionSession &session,
                                      std::vector<uint64_t> &functions);

/// Runs the destructors of every object `session` linked whose constructors
/// were handed out, the last sent first, each as `dlclose` does: its
/// default `.fini_array` entries, then what it registered with
/// `__cxa_atexit` (the last first), then its numbered `.fini_array` entries.
/// For a JIT about to be disposed: none of them may run after its memory is
/// gone. `announce` is called with each object before its destructors run
/// (a crash there is that object's).
void runDestructors(
    llvm::orc::ExecutionSession &session,
    llvm::function_ref<void(llvm::orc::JITDylib &)> announce);

} // namespace executor

#endif // EXECUTOR_RUNTIME_INITIALIZERS_H
