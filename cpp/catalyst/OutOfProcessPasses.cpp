//===- OutOfProcessPasses.cpp - The executor passes inside Catalyst -------===//
//
// The `catalyst` CLI of pennylane-catalyst 0.15.0 cannot run this project's
// passes in its own process: they are Rust on the MLIR C API, which that binary
// lacks (docs/catalyst.md). The passes registered here are C++ without Rust:
// each prints the module it runs on in generic form, has this project's
// executor-opt run the real pass on it in a child process, and replaces the
// module's contents with the module executor-opt prints back. They have no
// options; one pass is registered per option value users need
// (`convert-executor-to-llvm-catalyst-pyface` for
// `convert-executor-to-llvm{entry-convention=catalyst-pyface}`).
//
// Diagnostics come back as text. Before printing, every op and block argument
// gets a location of its own (`executor-op:<n>:1`), so that executor-opt names
// the op a diagnostic is about by a number; the diagnostic is then emitted
// again in Catalyst's context at that op's original location, and the result's
// locations are mapped back the same way.
//
// Only the Catalyst plugin compiles this file (build/catalyst.rs). It calls
// into the host's MLIR through functions and classes whose layout is the same
// in both LLVMs; docs/catalyst.md says how that was checked.
//
//===----------------------------------------------------------------------===//

#include "ExecutorDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "EntryConventions.h.inc"

extern char **environ;

extern "C" {
/// Registers the out-of-process passes with the host's pass registry, once
/// per process (the pass plugin's entry point, plugin/src/lib.rs).
void executorRegisterOutOfProcessPasses();
}

using namespace mlir;

namespace {
/// The variable that names the executor-opt to run, when set.
constexpr const char *kExecutorOptVariable = "EXECUTOR_OPT";

/// The file name of the locations that number ops and block arguments.
constexpr llvm::StringLiteral kTagFile = "executor-op";

/// The modules a pass's pipeline leaves as they are.
enum class Unchanged {
  /// None: the child always runs.
  None,
  /// Those without executor ops or types (convert-executor-to-llvm).
  WithoutExecutor,
  /// Those without Catalyst's dispatch form (dispatch-executor-targets).
  WithoutCatalystDispatch,
};

/// One registered pass: its name, its --help line and the pipeline that
/// executor-opt runs for it.
struct Variant {
  std::string argument;
  std::string description;
  std::string childPipeline;
  /// Which modules the pipeline leaves as they are, for which no child runs.
  Unchanged unchanged;
};

//===----------------------------------------------------------------------===//
// The child process
//===----------------------------------------------------------------------===//

/// What a run of executor-opt gave.
struct ChildRun {
  /// Why the child could not be run or talked to; empty when it ran.
  std::string failure;
  /// waitpid's status.
  int status = 0;
  std::string output;
  std::string errors;
};

/// The executor-opt to run: $EXECUTOR_OPT, or the one next to this plugin.
/// Returns the reason in `failure` when there is none.
std::optional<std::string> findExecutorOpt(std::string &failure) {
  if (const char *named = std::getenv(kExecutorOptVariable);
      named && *named) {
    if (::access(named, X_OK) == 0)
      return std::string(named);
    failure = llvm::formatv("{0}={1} is not an executable file ({2})",
                            kExecutorOptVariable, named, std::strerror(errno))
                  .str();
    return std::nullopt;
  }
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&executorRegisterOutOfProcessPasses),
               &info) == 0 ||
      !info.dli_fname) {
    failure = llvm::formatv("{0} is not set and the plugin cannot tell where "
                            "it was loaded from",
                            kExecutorOptVariable)
                  .str();
    return std::nullopt;
  }
  std::string plugin = info.dli_fname;
  size_t slash = plugin.rfind('/');
  std::string next =
      (slash == std::string::npos ? std::string(".") : plugin.substr(0, slash)) +
      "/executor-opt";
  if (::access(next.c_str(), X_OK) == 0)
    return next;
  failure = llvm::formatv("{0} is not set and there is no executor-opt next "
                          "to the plugin ({1}: {2})",
                          kExecutorOptVariable, next, std::strerror(errno))
                .str();
  return std::nullopt;
}

/// A file descriptor closed when it goes out of scope.
class Descriptor {
public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd(fd) {}
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  ~Descriptor() { reset(); }
  int get() const { return fd; }
  void reset(int replacement = -1) {
    if (fd >= 0)
      ::close(fd);
    fd = replacement;
  }

private:
  int fd = -1;
};

/// A connected pair of stream sockets, both ends close-on-exec. Sockets rather
/// than pipes because `send` with MSG_NOSIGNAL reports a child that stopped
/// reading as EPIPE instead of raising SIGPIPE, which would end the host.
bool makeChannel(Descriptor &parentEnd, Descriptor &childEnd) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    return false;
  parentEnd.reset(ends[0]);
  childEnd.reset(ends[1]);
  return ::fcntl(parentEnd.get(), F_SETFL, O_NONBLOCK) == 0;
}

/// Runs `program` with `arguments`, writes `input` to its standard input and
/// collects its standard output and error until it exits.
ChildRun runChild(const std::string &program,
                  const std::vector<std::string> &arguments,
                  llvm::StringRef input) {
  ChildRun run;
  Descriptor in, childIn, out, childOut, err, childErr;
  if (!makeChannel(in, childIn) || !makeChannel(out, childOut) ||
      !makeChannel(err, childErr)) {
    run.failure = std::string("cannot create sockets: ") + std::strerror(errno);
    return run;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, childIn.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, childOut.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, childErr.get(), STDERR_FILENO);
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(program.c_str()));
  for (const std::string &argument : arguments)
    argv.push_back(const_cast<char *>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr,
                              argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    run.failure =
        llvm::formatv("cannot run {0}: {1}", program, std::strerror(spawned))
            .str();
    return run;
  }
  childIn.reset();
  childOut.reset();
  childErr.reset();

  // The child reads until end of file, which closing our end gives it.
  size_t written = 0;
  if (input.empty())
    in.reset();
  char buffer[1 << 16];
  while (out.get() >= 0 || err.get() >= 0) {
    pollfd fds[3];
    nfds_t count = 0;
    auto watch = [&](Descriptor &fd, short events) {
      if (fd.get() >= 0)
        fds[count++] = pollfd{fd.get(), events, 0};
    };
    watch(in, POLLOUT);
    watch(out, POLLIN);
    watch(err, POLLIN);
    if (::poll(fds, count, -1) < 0) {
      if (errno == EINTR)
        continue;
      run.failure = std::string("poll: ") + std::strerror(errno);
      break;
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (!fds[i].revents)
        continue;
      if (fds[i].fd == in.get()) {
        ssize_t sent = ::send(in.get(), input.data() + written,
                              input.size() - written, MSG_NOSIGNAL);
        if (sent < 0 && (errno == EAGAIN || errno == EINTR))
          continue;
        // A child that stops reading (it failed early) says why on stderr.
        if (sent < 0) {
          in.reset();
          continue;
        }
        written += sent;
        if (written == input.size())
          in.reset();
        continue;
      }
      Descriptor &source = fds[i].fd == out.get() ? out : err;
      std::string &sink = fds[i].fd == out.get() ? run.output : run.errors;
      ssize_t received = ::read(source.get(), buffer, sizeof(buffer));
      if (received > 0)
        sink.append(buffer, received);
      else if (received == 0 || (errno != EAGAIN && errno != EINTR))
        source.reset();
    }
  }
  in.reset();
  out.reset();
  err.reset();
  while (::waitpid(pid, &run.status, 0) < 0) {
    if (errno != EINTR) {
      run.failure = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
  }
  return run;
}

//===----------------------------------------------------------------------===//
// Locations
//===----------------------------------------------------------------------===//

/// Numbers the ops and block arguments of a module by giving each the
/// location `executor-op:<n>:1`, keeps what they had, and maps numbered
/// locations back to those.
class LocationTags {
public:
  explicit LocationTags(MLIRContext *context)
      : file(StringAttr::get(context, kTagFile)) {}

  /// Numbers in pre-order: an op, then the arguments of its blocks, then
  /// the ops inside.
  void tag(Operation *root) {
    root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      ops.push_back({op, op->getLoc()});
      op->setLoc(next(op->getLoc()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments()) {
            arguments.push_back({argument, argument.getLoc()});
            argument.setLoc(next(argument.getLoc()));
          }
    });
  }

  /// Gives the tagged IR back its own locations.
  void untag() {
    for (auto &[op, loc] : ops)
      op->setLoc(loc);
    for (auto &[argument, loc] : arguments)
      argument.setLoc(loc);
  }

  /// The original location numbered `line`, if there is one.
  std::optional<Location> original(llvm::StringRef fileName,
                                   unsigned line) const {
    if (fileName != kTagFile || line == 0 || line > originals.size())
      return std::nullopt;
    return originals[line - 1];
  }

  /// Replaces every numbered location inside `loc`, at any depth of fused,
  /// named and call-site locations, by the original.
  Location restore(Location loc) {
    if (auto known = restored.find(loc); known != restored.end())
      return known->second;
    Location result = loc;
    if (auto fileLoc = llvm::dyn_cast<FileLineColLoc>(loc)) {
      if (fileLoc.getFilename() == file)
        if (std::optional<Location> found =
                original(kTagFile, fileLoc.getLine()))
          result = *found;
    } else if (auto name = llvm::dyn_cast<NameLoc>(loc)) {
      result = NameLoc::get(name.getName(), restore(name.getChildLoc()));
    } else if (auto callSite = llvm::dyn_cast<CallSiteLoc>(loc)) {
      result = CallSiteLoc::get(restore(callSite.getCallee()),
                                restore(callSite.getCaller()));
    } else if (auto fused = llvm::dyn_cast<FusedLoc>(loc)) {
      llvm::SmallVector<Location> parts;
      for (Location part : fused.getLocations())
        parts.push_back(restore(part));
      result = FusedLoc::get(loc.getContext(), parts, fused.getMetadata());
    }
    restored.try_emplace(loc, result);
    return result;
  }

  void restoreAll(Operation *root) {
    root->walk([&](Operation *op) {
      op->setLoc(restore(op->getLoc()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments())
            argument.setLoc(restore(argument.getLoc()));
    });
  }

private:
  Location next(Location loc) {
    originals.push_back(loc);
    return FileLineColLoc::get(file, originals.size(), 1);
  }

  StringAttr file;
  std::vector<Location> originals;
  std::vector<std::pair<Operation *, Location>> ops;
  std::vector<std::pair<BlockArgument, Location>> arguments;
  llvm::DenseMap<Location, Location> restored;
};

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// One diagnostic executor-opt printed: `<file>:<line>:<column>: <severity>:
/// <message>`, and the lines after it that belong to it.
struct ChildDiagnostic {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  DiagnosticSeverity severity = DiagnosticSeverity::Error;
  bool isNote = false;
  std::string message;
};

/// Splits `<location>: <severity>: <message>`; the location is
/// `<file>:<line>:<column>` for file locations and anything else (such as
/// `loc(unknown)`) otherwise.
std::optional<ChildDiagnostic> parseDiagnosticLine(llvm::StringRef line) {
  static const std::pair<llvm::StringLiteral, DiagnosticSeverity> kinds[] = {
      {": error: ", DiagnosticSeverity::Error},
      {": warning: ", DiagnosticSeverity::Warning},
      {": remark: ", DiagnosticSeverity::Remark},
      {": note: ", DiagnosticSeverity::Note},
  };
  for (auto &[marker, severity] : kinds) {
    size_t at = line.find(marker);
    if (at == llvm::StringRef::npos)
      continue;
    ChildDiagnostic diagnostic;
    diagnostic.severity = severity;
    diagnostic.isNote = severity == DiagnosticSeverity::Note;
    diagnostic.message = line.substr(at + marker.size()).str();
    llvm::StringRef location = line.take_front(at);
    auto [rest, column] = location.rsplit(':');
    auto [file, lineNumber] = rest.rsplit(':');
    if (!column.getAsInteger(10, diagnostic.column) &&
        !lineNumber.getAsInteger(10, diagnostic.line))
      diagnostic.file = file.str();
    return diagnostic;
  }
  return std::nullopt;
}

/// The diagnostics in executor-opt's standard error. Lines before the first
/// one are dropped; the caller shows all of it when no error is found.
std::vector<ChildDiagnostic> parseDiagnostics(llvm::StringRef errors) {
  std::vector<ChildDiagnostic> diagnostics;
  llvm::SmallVector<llvm::StringRef> lines;
  errors.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    if (std::optional<ChildDiagnostic> diagnostic = parseDiagnosticLine(line))
      diagnostics.push_back(std::move(*diagnostic));
    else if (!diagnostics.empty())
      (diagnostics.back().message += "\n") += line.str();
  }
  return diagnostics;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Whether anything in `module` is of the executor dialect: an op, or a
/// session or token type at any depth of a value's type or of an attribute
/// (a function's type). convert-executor-to-llvm leaves any other module as it
/// is (test/Conversion/ExecutorToLLVM/no-executor-ops.mlir), so the plugin
/// need not run executor-opt for it.
bool mentionsExecutor(ModuleOp module) {
  llvm::DenseSet<const void *> seen;
  bool found = false;
  std::function<void(Type)> visitType;
  std::function<void(Attribute)> visitAttribute = [&](Attribute attribute) {
    if (found || !attribute || !seen.insert(attribute.getAsOpaquePointer()).second)
      return;
    attribute.walkImmediateSubElements(visitAttribute, visitType);
  };
  visitType = [&](Type type) {
    if (found || !type || !seen.insert(type.getAsOpaquePointer()).second)
      return;
    if (llvm::isa<catalyst::executor::SessionType,
                  catalyst::executor::TokenType>(type)) {
      found = true;
      return;
    }
    type.walkImmediateSubElements(visitAttribute, visitType);
  };
  module->walk([&](Operation *op) {
    if (op->getName().getDialectNamespace() ==
        catalyst::executor::ExecutorDialect::getDialectNamespace())
      found = true;
    for (Type type : op->getResultTypes())
      visitType(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          visitType(argument.getType());
    visitAttribute(op->getAttrDictionary());
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Whether `module` holds Catalyst's dispatch form: a module marked
/// `catalyst.dispatch`, or a `catalyst.custom_call` whose `backend_config` has a
/// `dispatch` entry (src/passes/catalyst_form.rs). dispatch-executor-targets
/// leaves any other module as it is.
bool holdsCatalystDispatch(ModuleOp module) {
  return module
      ->walk([](Operation *op) {
        if (op->hasAttr("catalyst.dispatch"))
          return WalkResult::interrupt();
        if (op->getName().getStringRef() == "catalyst.custom_call")
          if (auto config = op->getAttrOfType<DictionaryAttr>("backend_config"))
            if (config.get("dispatch"))
              return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

struct OutOfProcessPass
    : public PassWrapper<OutOfProcessPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OutOfProcessPass)

  explicit OutOfProcessPass(const Variant &variant) : variant(variant) {}

  llvm::StringRef getArgument() const override { return variant.argument; }
  llvm::StringRef getDescription() const override {
    return variant.description;
  }
  llvm::StringRef getName() const override { return variant.argument; }

  // The result is LLVM-dialect IR; executor types are printed for the child.
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, catalyst::executor::ExecutorDialect>();
  }

  void runOnOperation() override;

  /// Re-emits the child's diagnostics in this context. Returns whether one
  /// of them was an error.
  bool reemit(llvm::StringRef errors, const LocationTags &tags);

  Variant variant;
};

void OutOfProcessPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = module.getContext();
  // A pipeline such as Catalyst's runs the pass on every program; most have
  // nothing for it, and a child process costs tens of milliseconds.
  bool unchanged = false;
  switch (variant.unchanged) {
  case Unchanged::None:
    break;
  case Unchanged::WithoutExecutor:
    unchanged = !mentionsExecutor(module);
    break;
  case Unchanged::WithoutCatalystDispatch:
    unchanged = !holdsCatalystDispatch(module);
    break;
  }
  if (unchanged)
    return markAllAnalysesPreserved();

  std::string failure;
  std::optional<std::string> program = findExecutorOpt(failure);
  // The pass's own errors go to the module's location through
  // mlir::emitError, not Operation::emitError, which would add a dump of the
  // whole module to each.
  if (!program) {
    emitError(module.getLoc()) << variant.argument << ": " << failure;
    return signalPassFailure();
  }

  LocationTags tags(context);
  tags.tag(module);
  std::string input;
  {
    llvm::raw_string_ostream os(input);
    // Generic form, with every location, whatever --mlir-print-* options the
    // host was given: this text is for executor-opt to read, not for users.
    OpPrintingFlags flags;
    flags.printGenericOpForm()
        .enableDebugInfo(/*enable=*/true, /*prettyForm=*/false)
        .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
        .elideLargeResourceString(std::numeric_limits<int64_t>::max())
        .skipRegions(false);
    module->print(os, flags);
  }

  ChildRun run = runChild(
      *program,
      {"-", "--no-implicit-module",
       // The module may hold ops of Catalyst's dialects, which executor-opt
       // does not know; it prints them back as it read them.
       "--allow-unregistered-dialect", "--mlir-print-op-generic",
       "--mlir-print-debuginfo",
       "--pass-pipeline=builtin.module(" + variant.childPipeline + ")"},
      input);
  // The module keeps its own locations whatever happens next; the tags are
  // only needed to read the child's diagnostics and result.
  tags.untag();
  if (!run.failure.empty()) {
    emitError(module.getLoc()) << variant.argument << ": " << run.failure;
    return signalPassFailure();
  }
  bool exited = WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0;
  if (!exited) {
    if (reemit(run.errors, tags))
      return signalPassFailure();
    InFlightDiagnostic diagnostic = emitError(module.getLoc());
    diagnostic << variant.argument << ": " << *program;
    if (WIFSIGNALED(run.status))
      diagnostic << " was killed by signal " << WTERMSIG(run.status) << " ("
                 << strsignal(WTERMSIG(run.status)) << ")";
    else
      diagnostic << " failed with exit status " << WEXITSTATUS(run.status);
    if (!run.errors.empty())
      diagnostic.attachNote()
          << "its standard error:\n"
          << llvm::StringRef(run.errors).rtrim();
    return signalPassFailure();
  }
  reemit(run.errors, tags);

  // The parser loads the dialects the text names, which MLIR stops with a
  // fatal error while passes run on several threads. Catalyst's CLI runs them
  // on one and loads every dialect it registers first (a child printing types
  // of fourteen dialects was read back); elsewhere getDependentDialects has
  // the LLVM dialect, the only one the lowering adds.
  Block parsed;
  ParserConfig config(context);
  if (failed(parseSourceString(run.output, &parsed, config,
                               "executor-opt output"))) {
    emitError(module.getLoc())
        << variant.argument << ": cannot read the module executor-opt printed";
    return signalPassFailure();
  }
  auto result = llvm::hasSingleElement(parsed)
                    ? llvm::dyn_cast<ModuleOp>(&parsed.front())
                    : nullptr;
  if (!result) {
    emitError(module.getLoc())
        << variant.argument
        << ": executor-opt printed something else than one builtin.module";
    return signalPassFailure();
  }

  tags.restoreAll(result);
  module->setAttrs(result->getAttrDictionary());
  module->setLoc(result->getLoc());
  Block *body = module.getBody();
  body->clear();
  body->getOperations().splice(body->end(), result.getBody()->getOperations());
}

bool OutOfProcessPass::reemit(llvm::StringRef errors,
                              const LocationTags &tags) {
  std::vector<ChildDiagnostic> diagnostics = parseDiagnostics(errors);
  ModuleOp module = getOperation();
  MLIRContext *context = module.getContext();
  bool sawError = false;
  std::optional<InFlightDiagnostic> open;
  for (ChildDiagnostic &diagnostic : diagnostics) {
    Location loc = module.getLoc();
    llvm::StringRef message = diagnostic.message;
    std::string aboutInput;
    if (std::optional<Location> original =
            tags.original(diagnostic.file, diagnostic.line)) {
      loc = *original;
    } else if (diagnostic.file == "<stdin>") {
      // executor-opt could not read what the plugin printed (two MLIRs that
      // disagree on an op's form); the location is in that text.
      aboutInput = llvm::formatv("executor-opt cannot read the module "
                                 "Catalyst printed, at line {0}: {1}",
                                 diagnostic.line, diagnostic.message)
                       .str();
      message = aboutInput;
    } else if (!diagnostic.file.empty() && diagnostic.file != kTagFile) {
      loc = FileLineColLoc::get(context, diagnostic.file, diagnostic.line,
                                diagnostic.column);
    }
    if (diagnostic.isNote && open) {
      open->attachNote(loc) << message;
      continue;
    }
    if (open)
      open->report();
    DiagnosticSeverity severity =
        diagnostic.isNote ? DiagnosticSeverity::Remark : diagnostic.severity;
    sawError |= severity == DiagnosticSeverity::Error;
    switch (severity) {
    case DiagnosticSeverity::Warning:
      open.emplace(emitWarning(loc));
      break;
    case DiagnosticSeverity::Remark:
      open.emplace(emitRemark(loc));
      break;
    default:
      open.emplace(emitError(loc));
      break;
    }
    *open << message;
  }
  if (open)
    open->report();
  return sawError;
}

/// `pass` with `options` in pipeline syntax.
std::string withOptions(const std::string &pass,
                        const std::vector<std::string> &options) {
  if (options.empty())
    return pass;
  return pass + "{" + llvm::join(options, " ") + "}";
}

/// Every pass registered here: the two passes in each entry convention and
/// the lowering stage also with use-generic-functions. The default convention
/// keeps the plain names; another adds its option value (`-catalyst-pyface`).
/// Then dispatch-executor-targets, which has no options.
std::vector<Variant> variants() {
  std::vector<Variant> all;
  const llvm::cl::OptionEnumValue conventions[] = {
      EXECUTOR_ENTRY_CONVENTION_VALUES};
  const int defaultConvention =
      static_cast<int>(EXECUTOR_ENTRY_CONVENTION_DEFAULT);
  for (const llvm::cl::OptionEnumValue &convention : conventions) {
    bool isDefault = convention.Value == defaultConvention;
    std::string suffix = isDefault ? "" : "-" + convention.Name.str();
    std::vector<std::string> options;
    if (!isDefault)
      options.push_back("entry-convention=" + convention.Name.str());
    std::string how = llvm::formatv(" (entry-convention={0}: {1})",
                                    convention.Name, convention.Description)
                          .str();
    all.push_back({"convert-executor-to-llvm" + suffix,
                   "Lower executor ops to LLVM-dialect calls into the executor "
                   "runtime ABI, by executor-opt in a child process" +
                       how,
                   withOptions("convert-executor-to-llvm", options),
                   Unchanged::WithoutExecutor});
    for (bool generic : {false, true}) {
      std::vector<std::string> stageOptions = options;
      if (generic)
        stageOptions.push_back("use-generic-functions=true");
      all.push_back(
          {"executor-llvm-lowering-stage" + suffix +
               (generic ? "-generic-functions" : ""),
           "Lower a host module of func, scf, cf, arith, memref and executor "
           "ops to the LLVM dialect, by executor-opt in a child process" +
               how + (generic ? " (use-generic-functions=true)" : ""),
           withOptions("executor-llvm-lowering-stage", stageOptions),
           Unchanged::None});
    }
  }
  // Under the name of Catalyst's own pass, which catalyst 0.15.0 does not
  // have: its dispatch form to executor ops.
  all.push_back({"dispatch-executor-targets",
                 "Turn Catalyst's dispatch form (modules marked "
                 "catalyst.dispatch, their launch_kernel ops, custom_call ops "
                 "with a dispatch entry) into executor ops, by executor-opt in "
                 "a child process",
                 "dispatch-executor-targets",
                 Unchanged::WithoutCatalystDispatch});
  return all;
}
} // namespace

void executorRegisterOutOfProcessPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const Variant &variant : variants())
      registerPass([variant]() -> std::unique_ptr<Pass> {
        return std::make_unique<OutOfProcessPass>(variant);
      });
  });
}
