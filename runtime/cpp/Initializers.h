//===- Initializers.h - An object's load-time code and destructors -*- C++ -*-===//
//
// A JIT without a platform (ObjectDylibs.cpp) links an object's code but runs
// none of its load-time code: a C constructor, a C++ static object's
// constructor (which also registers its destructor with `__cxa_atexit`).
// This plugin keeps that code linked, runs it as `dlopen` would, and runs the
// destructors as `dlclose` would.
//
//===----------------------------------------------------------------------===//
#ifndef EXECUTOR_RUNTIME_INITIALIZERS_H
#define EXECUTOR_RUNTIME_INITIALIZERS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/LinkGraphLinkingLayer.h"

#include <memory>

namespace executor {

/// The plugin of the JIT of `session`: each object it links gets its own
/// `__dso_handle`, and keeps its `.init_array` and `.fini_array` entries and
/// the code they name.
std::shared_ptr<llvm::orc::LinkGraphLinkingLayer::Plugin>
createInitializersPlugin(llvm::orc::ExecutionSession &session);

/// Runs, in order, the initializers of the objects `session` linked since the
/// last call, on this thread. A thread that calls this while another runs
/// them waits for them to end, so that no kernel runs before its object's
/// load-time code has.
void runLinkedInitializers(llvm::orc::ExecutionSession &session);

/// Runs the destructors of every object `session` linked, the last linked
/// first: those its code registered with `__cxa_atexit` (`__cxa_finalize`
/// of its `__dso_handle`), then its `.fini_array`. For a JIT about to be
/// disposed: none of them may run after its memory is gone.
void runDestructors(llvm::orc::ExecutionSession &session);

} // namespace executor

#endif // EXECUTOR_RUNTIME_INITIALIZERS_H
