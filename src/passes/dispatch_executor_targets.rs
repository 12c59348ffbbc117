//! `dispatch-executor-targets`: Catalyst's dispatch form (`catalyst_form`)
//! turned into executor ops, under the name of Catalyst's own pass and with
//! its results. The kernels are compiled already: each module marked
//! `catalyst.dispatch` names its object in `catalyst.object_file`.
//!
//! - Each `catalyst.launch_kernel @module::@kernel(...)` of such a module
//!   becomes an `executor.launch` of the kernel in the module's object, or,
//!   marked `catalyst.nonblocking`, an `executor.launch_async` awaited before
//!   each return of its function.
//! - Each `catalyst.custom_call fn("sym")` whose `backend_config` has a
//!   `dispatch` entry becomes an `executor.call` of `sym` at that address (an
//!   empty one: the address of the program's only executor).
//! - A function that does either opens one session per address at its start,
//!   then sends each object it launches once. When a function is marked
//!   `catalyst.backline_bringup`, only such functions send objects.
//! - Sessions stay open: the runtime closes them at exit, as after Catalyst's
//!   pass. The dispatch modules are erased.
//!
//! Two phases, as in `executor-dispatch`: read and check the whole module,
//! reporting every broken rule at its op before anything changes; rewrite.

use melior::{
    Context,
    ir::{
        Attribute, Block, BlockLike, Location, OperationRef, Type, Value, ValueLike,
        attribute::{DictionaryAttribute, IntegerAttribute, StringAttribute},
        operation::OperationLike,
        r#type::MemRefType,
    },
};

use super::{
    catalyst_form::{self as form, string_value},
    host_module::{
        Prologue, block_operations, entry_block, first_result, is_function, is_public, lossy,
        nearest_isolated_ancestor, returns,
    },
    ir, module_symbols,
};
use crate::{
    dialect::executor,
    ffi::{self, Severity},
};

pub const ARGUMENT: &str = "dispatch-executor-targets";

/// This project's own dispatch form, which `executor-dispatch` takes.
const EXECUTOR_TARGET_ATTRIBUTE: &str = "executor.target";

/// Runs the pass on `module`; false once errors have been reported.
pub fn run(module: OperationRef<'_, '_>) -> bool {
    ir::with_context(module, |context| {
        super::run_guarded(ARGUMENT, module, || {
            let host = Host::read(context, module)?;
            host.rewrite(context);
            Ok::<(), Failed>(())
        })
    })
}

/// Diagnostics were emitted at the ops at fault.
struct Failed;

//===----------------------------------------------------------------------===//
// Reading and checking
//===----------------------------------------------------------------------===//

/// A module marked `catalyst.dispatch`.
struct Target<'c, 'a> {
    operation: OperationRef<'c, 'a>,
    name: &'c [u8],
    address: &'c [u8],
    object: &'c [u8],
}

/// An op the pass replaces, in a function of the host.
enum Site<'c, 'a> {
    Launch {
        operation: OperationRef<'c, 'a>,
        /// Index into `Host::targets`.
        target: usize,
        kernel: &'c [u8],
        nonblocking: bool,
    },
    LibCall {
        operation: OperationRef<'c, 'a>,
        address: &'c [u8],
        symbol: &'c [u8],
        num_input_args: Option<IntegerAttribute<'c>>,
    },
}

/// A `func.func` with sites, which are in it and in no other op isolated
/// from above, in the order they appear.
struct Function<'c, 'a> {
    operation: OperationRef<'c, 'a>,
    sites: Vec<Site<'c, 'a>>,
}

struct Host<'c, 'a> {
    targets: Vec<Target<'c, 'a>>,
    functions: Vec<Function<'c, 'a>>,
    /// Whether a function is marked `catalyst.backline_bringup`.
    has_bringup: bool,
}

/// A diagnostic's location and text.
type Note<'c> = (Location<'c>, String);

/// Errors found while reading, reported together, each with its notes.
#[derive(Default)]
struct Errors<'c>(Vec<(Note<'c>, Vec<Note<'c>>)>);

impl<'c> Errors<'c> {
    fn at(&mut self, operation: OperationRef<'c, '_>, message: String) {
        self.0.push(((operation.location(), message), Vec::new()));
    }

    fn report(self) -> Result<(), Failed> {
        if self.0.is_empty() {
            return Ok(());
        }
        for ((location, message), notes) in self.0 {
            ffi::emit_diagnostic(location, Severity::Error, &message, &notes);
        }
        Err(Failed)
    }
}

impl<'c, 'a> Host<'c, 'a> {
    fn read(context: &'c Context, module: OperationRef<'c, 'a>) -> Result<Self, Failed> {
        let mut errors = Errors::default();
        let mut host = Self {
            targets: Vec::new(),
            functions: Vec::new(),
            has_bringup: false,
        };
        if module.has_attribute(form::DISPATCH_ATTRIBUTE) {
            errors.at(
                module,
                format!(
                    "{ARGUMENT} runs on the host module, which holds the modules marked {}; this module is itself marked",
                    form::DISPATCH_ATTRIBUTE
                ),
            );
            return errors.report().map(|()| host);
        }
        let Some(body) = module_symbols::table_body(module) else {
            return Ok(host);
        };
        let top_level = block_operations(body);
        for &operation in &top_level {
            if operation.has_attribute(form::DISPATCH_ATTRIBUTE) {
                match read_target(operation) {
                    Ok(target) => host.targets.push(target),
                    Err(message) => errors.at(operation, message),
                }
            } else if operation.has_attribute(EXECUTOR_TARGET_ATTRIBUTE) {
                errors.at(
                    operation,
                    format!(
                        "{ARGUMENT} takes Catalyst's dispatch form; a module marked {EXECUTOR_TARGET_ATTRIBUTE} is this project's, which executor-dispatch takes"
                    ),
                );
            }
        }
        for nested in ir::collect_operations(module, |operation| {
            operation.has_attribute(form::DISPATCH_ATTRIBUTE)
                && operation.parent_operation() != Some(module)
        }) {
            errors.at(
                nested,
                format!(
                    "{ARGUMENT} takes the modules marked {} directly inside the module it runs on; this one is nested deeper",
                    form::DISPATCH_ATTRIBUTE
                ),
            );
        }

        // Every address the dispatch modules name: an empty custom_call
        // dispatch takes the only one.
        let mut addresses: Vec<&[u8]> = Vec::new();
        for target in &host.targets {
            if !addresses.contains(&target.address) {
                addresses.push(target.address);
            }
        }
        for &top in &top_level {
            if top.has_attribute(form::DISPATCH_ATTRIBUTE) {
                continue;
            }
            for operation in ir::collect_operations(top, |_| true) {
                if is_function(operation) && operation.has_attribute(form::BRINGUP_ATTRIBUTE) {
                    host.has_bringup = true;
                }
                let site = if ir::operation_name(operation) == form::LAUNCH_KERNEL {
                    host.read_launch(operation)
                } else if let Some(dispatch) = form::custom_call_dispatch(operation) {
                    read_lib_call(context, operation, dispatch, &addresses).map(Some)
                } else {
                    continue;
                };
                match site.and_then(|site| match site {
                    Some(site) => Ok(Some((in_function(operation)?, site))),
                    None => Ok(None),
                }) {
                    Ok(Some((function, site))) => host.add(function, site, &mut errors),
                    Ok(None) => {}
                    Err(message) => errors.at(operation, message),
                }
            }
        }
        errors.report()?;
        Ok(host)
    }

    /// A `launch_kernel` of a dispatch module's kernel; None for a launch of
    /// another module's kernel, which is not for this pass (Catalyst lowers
    /// those itself).
    fn read_launch(&self, launch: OperationRef<'c, 'a>) -> Result<Option<Site<'c, 'a>>, String> {
        let path = launch
            .attribute(form::CALLEE)
            .ok()
            .and_then(ir::symbol_reference_path)
            .ok_or_else(|| {
                format!(
                    "a {} names its kernel in '{}' as @module::@kernel",
                    form::LAUNCH_KERNEL,
                    form::CALLEE
                )
            })?;
        let Some(target) = self
            .targets
            .iter()
            .position(|target| Some(&target.name) == path.first())
        else {
            return Ok(None);
        };
        let module = lossy(self.targets[target].name);
        let [_, kernel] = path[..] else {
            return Err(format!(
                "a launch of a kernel of @{module}, which is marked {}, names it as @{module}::@kernel",
                form::DISPATCH_ATTRIBUTE
            ));
        };
        let defined = module_symbols::table_body(self.targets[target].operation)
            .map(block_operations)
            .unwrap_or_default()
            .into_iter()
            .any(|operation| {
                module_symbols::symbol_name(operation) == Some(kernel)
                    && is_function(operation)
                    && is_public(operation)
            });
        if !defined {
            return Err(format!(
                "no kernel @{module}::@{}: the module has no public func.func of that name",
                lossy(kernel)
            ));
        }
        for (kind, value_type) in launch
            .operands()
            .map(|operand| ("an operand", operand.r#type()))
            .chain(launch.results().map(|result| ("a result", result.r#type())))
        {
            if MemRefType::try_from(value_type).is_err() {
                return Err(format!(
                    "the launch of @{module}::@{} has {kind} of type {value_type}: executor.launch passes memrefs only",
                    lossy(kernel)
                ));
            }
        }
        let nonblocking = launch.has_attribute(form::NONBLOCKING_ATTRIBUTE);
        if nonblocking && (launch.operand_count() != 0 || launch.result_count() != 0) {
            return Err(format!(
                "a {} launch starts a () -> () kernel without waiting for it, so it has no operands or results; this one has {} and {}",
                form::NONBLOCKING_ATTRIBUTE,
                launch.operand_count(),
                launch.result_count()
            ));
        }
        Ok(Some(Site::Launch {
            operation: launch,
            target,
            kernel,
            nonblocking,
        }))
    }

    /// Adds `site` to its function's, checking what needs the function.
    fn add(&mut self, function: OperationRef<'c, 'a>, site: Site<'c, 'a>, errors: &mut Errors<'c>) {
        if let Site::Launch {
            operation,
            nonblocking: true,
            ..
        } = site
            && operation.block() != entry_block(function)
        {
            // At the function: its returns, where the await goes, are the
            // reason (as Catalyst reports it).
            errors.0.push((
                (
                    function.location(),
                    format!(
                        "a {} launch is in the entry block of its function, so that its executor.await can be placed before every return",
                        form::NONBLOCKING_ATTRIBUTE
                    ),
                ),
                vec![(operation.location(), "this launch is not".to_owned())],
            ));
            return;
        }
        match self
            .functions
            .iter_mut()
            .find(|known| known.operation == function)
        {
            Some(known) => known.sites.push(site),
            None => self.functions.push(Function {
                operation: function,
                sites: vec![site],
            }),
        }
    }
}

/// A module marked `catalyst.dispatch`, checked.
fn read_target<'c, 'a>(module: OperationRef<'c, 'a>) -> Result<Target<'c, 'a>, String> {
    let name = module_symbols::symbol_name(module)
        .ok_or_else(|| format!("a module marked {} needs a name", form::DISPATCH_ATTRIBUTE))?;
    let address = module
        .attribute(form::DISPATCH_ATTRIBUTE)
        .ok()
        .and_then(|dispatch| DictionaryAttribute::try_from(dispatch).ok())
        .and_then(|dispatch| dispatch.element_by_name(form::ADDRESS_KEY))
        .and_then(string_value)
        .filter(|address| !address.is_empty())
        .ok_or_else(|| {
            format!(
                "{} needs {{{} = \"...\"}}, a non-empty address",
                form::DISPATCH_ATTRIBUTE,
                form::ADDRESS_KEY
            )
        })?;
    let object = module
        .attribute(form::OBJECT_FILE_ATTRIBUTE)
        .ok()
        .and_then(string_value)
        .filter(|object| !object.is_empty())
        .ok_or_else(|| {
            format!(
                "a module marked {} needs {} = \"<path>\", the object its kernels were compiled to (Catalyst's cross-compile-targets sets it)",
                form::DISPATCH_ATTRIBUTE,
                form::OBJECT_FILE_ATTRIBUTE
            )
        })?;
    Ok(Target {
        operation: module,
        name,
        address,
        object,
    })
}

/// A `custom_call` whose `backend_config` has the entry `dispatch`, checked
/// against the `executor.call` it becomes.
fn read_lib_call<'c, 'a>(
    context: &'c Context,
    call: OperationRef<'c, 'a>,
    dispatch: Attribute<'c>,
    addresses: &[&'c [u8]],
) -> Result<Site<'c, 'a>, String> {
    let dispatch = string_value(dispatch).ok_or_else(|| {
        format!(
            "the {} entry of a custom_call's {} is an executor's address, a string; this one is {dispatch}",
            form::DISPATCH_KEY,
            form::BACKEND_CONFIG
        )
    })?;
    let address = match (dispatch, addresses) {
        ([_, ..], _) => dispatch,
        ([], [only]) => only,
        ([], []) => {
            return Err(format!(
                "this custom_call names no executor: its {} is empty, which means the address of the module's only module marked {}, and there is none",
                form::DISPATCH_KEY,
                form::DISPATCH_ATTRIBUTE
            ));
        }
        ([], several) => {
            let names: Vec<String> = several.iter().map(|address| lossy(address)).collect();
            return Err(format!(
                "ambiguous executor: this custom_call's {} is empty, which means the program's only executor, but its modules marked {} name {} addresses ({}); name one",
                form::DISPATCH_KEY,
                form::DISPATCH_ATTRIBUTE,
                several.len(),
                names.join(", ")
            ));
        }
    };
    let symbol = call
        .attribute(form::CALL_TARGET_NAME)
        .ok()
        .and_then(string_value)
        .filter(|symbol| !symbol.is_empty())
        .ok_or_else(|| {
            format!(
                "a custom_call names the symbol it calls in a non-empty '{}'",
                form::CALL_TARGET_NAME
            )
        })?;
    let num_input_args = match call.attribute(form::NUMBER_ORIGINAL_ARG) {
        Err(_) => None,
        Ok(count) => Some(IntegerAttribute::try_from(count).map_err(|_| {
            format!(
                "a custom_call's '{}' is an i32; this one is {count}",
                form::NUMBER_ORIGINAL_ARG
            )
        })?),
    };
    if !becomes_valid_call(context, call, symbol, num_input_args) {
        return Err(
            "this custom_call cannot become an executor.call (the error above says why)".into(),
        );
    }
    Ok(Site::LibCall {
        operation: call,
        address,
        symbol,
        num_input_args,
    })
}

/// Whether the `executor.call` that `call` becomes passes the verifier, which
/// reports why not at `call`. Tried on a detached call, on a placeholder
/// session, so that nothing changes while the module is read.
fn becomes_valid_call(
    context: &Context,
    call: OperationRef<'_, '_>,
    symbol: &[u8],
    num_input_args: Option<IntegerAttribute<'_>>,
) -> bool {
    let location = call.location();
    let placeholder = Block::new(&[(ffi::session_type(context), location)]);
    let Ok(session) = placeholder.argument(0) else {
        return false;
    };
    let inputs: Vec<Value> = call.operands().collect();
    let result_types: Vec<Type> = call.results().map(|result| result.r#type()).collect();
    let probe = executor_call(
        context,
        session.into(),
        &inputs,
        &result_types,
        ir::string_attribute_typed(context, symbol),
        num_input_args,
        location,
    );
    probe.verify()
}

fn executor_call<'c>(
    context: &'c Context,
    session: Value<'c, '_>,
    inputs: &[Value<'c, '_>],
    result_types: &[Type<'c>],
    symbol: StringAttribute<'c>,
    num_input_args: Option<IntegerAttribute<'c>>,
    location: Location<'c>,
) -> melior::ir::Operation<'c> {
    let builder = executor::CallOperationBuilder::new(context, location)
        .results(result_types)
        .session(session)
        .symbol(symbol)
        .inputs(inputs);
    match num_input_args {
        Some(count) => builder.num_input_args(count).build().into(),
        None => builder.build().into(),
    }
}

/// The function whose session `operation` will use: the `func.func` it is
/// in, with no other op isolated from above between.
fn in_function<'c, 'a>(operation: OperationRef<'c, 'a>) -> Result<OperationRef<'c, 'a>, String> {
    match nearest_isolated_ancestor(operation) {
        Some(function) if is_function(function) => Ok(function),
        Some(other) => Err(format!(
            "'{}' runs on an executor through a session opened at the start of its func.func; this one is inside '{}', which is isolated from above",
            ir::operation_name(operation),
            ir::operation_name(other)
        )),
        None => Err(format!(
            "'{}' runs on an executor through a session opened at the start of its func.func; this one is in none",
            ir::operation_name(operation)
        )),
    }
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

impl<'c, 'a> Host<'c, 'a> {
    fn rewrite(self, context: &'c Context) {
        for function in &self.functions {
            self.rewrite_function(context, function);
        }
        for target in &self.targets {
            ir::erase(target.operation);
        }
    }

    fn rewrite_function(&self, context: &'c Context, function: &Function<'c, 'a>) {
        let Some(entry) = entry_block(function.operation) else {
            return;
        };
        let sends_objects =
            !self.has_bringup || function.operation.has_attribute(form::BRINGUP_ATTRIBUTE);
        // The addresses it opens and the objects it sends, in the order of
        // their first use.
        let mut addresses: Vec<&[u8]> = Vec::new();
        let mut objects: Vec<(&[u8], &[u8])> = Vec::new();
        for site in &function.sites {
            let address = match site {
                Site::Launch { target, .. } => {
                    let target = &self.targets[*target];
                    if sends_objects && !objects.contains(&(target.address, target.object)) {
                        objects.push((target.address, target.object));
                    }
                    target.address
                }
                Site::LibCall { address, .. } => address,
            };
            if !addresses.contains(&address) {
                addresses.push(address);
            }
        }

        let location = function.operation.location();
        let mut prologue = Prologue::of(entry);
        let mut sessions: Vec<(&[u8], Value<'c, 'a>)> = Vec::new();
        for address in addresses {
            let open = executor::open(
                context,
                ffi::session_type(context),
                ir::string_attribute_typed(context, address),
                location,
            );
            sessions.push((address, first_result(prologue.append(open.into()))));
        }
        let session_at = |address: &[u8]| {
            sessions
                .iter()
                .find(|(opened, _)| *opened == address)
                .map(|(_, session)| *session)
                .expect("every address of the function's sites is opened")
        };
        for (address, object) in objects {
            let send = executor::send_binary(
                context,
                session_at(address),
                ir::string_attribute_typed(context, object),
                location,
            );
            prologue.append(send.into());
        }

        let mut tokens = Vec::new();
        for site in &function.sites {
            match *site {
                Site::Launch {
                    operation,
                    target,
                    kernel,
                    nonblocking,
                } => {
                    let target = &self.targets[target];
                    let session = session_at(target.address);
                    let kernel = ir::string_attribute_typed(context, kernel);
                    let object = ir::string_attribute_typed(context, target.object);
                    let location = operation.location();
                    let replacement = if nonblocking {
                        let token_type = ffi::token_type(context);
                        executor::launch_async(
                            context, token_type, session, kernel, object, location,
                        )
                        .into()
                    } else {
                        let inputs: Vec<Value> = operation.operands().collect();
                        executor::launch(
                            context,
                            &result_types(operation),
                            session,
                            &inputs,
                            kernel,
                            object,
                            location,
                        )
                        .into()
                    };
                    let replacement = replace(operation, replacement);
                    if nonblocking {
                        tokens.push(first_result(replacement));
                    }
                }
                Site::LibCall {
                    operation,
                    address,
                    symbol,
                    num_input_args,
                } => {
                    let inputs: Vec<Value> = operation.operands().collect();
                    let call = executor_call(
                        context,
                        session_at(address),
                        &inputs,
                        &result_types(operation),
                        ir::string_attribute_typed(context, symbol),
                        num_input_args,
                        operation.location(),
                    );
                    replace(operation, call);
                }
            }
        }

        for ret in returns(function.operation) {
            let Some(block) = ret.block() else {
                continue;
            };
            for &token in &tokens {
                let wait = executor::r#await(context, token, ret.location());
                block.insert_operation_before(ret, wait.into());
            }
        }
    }
}

fn result_types<'c>(operation: OperationRef<'c, '_>) -> Vec<Type<'c>> {
    operation.results().map(|result| result.r#type()).collect()
}

/// Puts `replacement` where `operation` is, gives its results' uses to
/// `replacement`'s and erases `operation`.
fn replace<'c, 'a>(
    operation: OperationRef<'c, 'a>,
    replacement: melior::ir::Operation<'c>,
) -> OperationRef<'c, 'a> {
    let block = operation
        .block()
        .expect("a site is in a block of its function");
    let replacement = block.insert_operation_before(operation, replacement);
    for (old, new) in operation.results().zip(replacement.results()) {
        ir::replace_all_uses(old.into(), new.into());
    }
    ir::erase(operation);
    replacement
}
