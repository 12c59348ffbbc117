//! `executor-dispatch`: compiles the host module's nested kernel modules
//! (`executor.target`) to object files in process and turns the host's calls
//! to their kernels (`func.call`s to `executor.kernel` declarations) into
//! executor ops. `td/ExecutorPasses.td` describes the form and its rules; the
//! C++ shell (`cpp/DispatchPass.cpp`) runs `kernel-lowering` for it.
//!
//! Three phases: read and check the whole host, reporting every broken rule
//! before anything changes; compile each target module to its object file;
//! rewrite the host as `dispatch_plan` says and erase the target modules and
//! kernel declarations.

use std::{
    collections::HashMap,
    ffi::OsStr,
    os::unix::ffi::OsStrExt,
    path::{Path, PathBuf},
};

use melior::{
    Context,
    dialect::ods::func,
    ir::{
        Attribute, BlockLike, Location, OperationRef, Type, Value, ValueLike,
        attribute::DictionaryAttribute,
        operation::OperationLike,
        r#type::{FunctionType, MemRefType},
    },
};

use super::{
    catalyst_form,
    dispatch_plan::{self, FunctionSessions, FunctionUse},
    host_module::{
        Prologue, block_operations, entry_block, first_result, function_type, is_function,
        is_public, lossy, nearest_isolated_ancestor, returns,
    },
    ir, module_symbols, object_file,
};
use crate::{dialect::executor, ffi};

pub const ARGUMENT: &str = "executor-dispatch";

// The dispatch form's attributes, as the dialect defines and verifies them
// (ExecutorDialect::k*AttrName in td/ExecutorDialect.td).
const TARGET_ATTRIBUTE: &str = "executor.target";
const TARGET_ADDRESS_KEY: &str = "address";
const TARGET_TRIPLE_KEY: &str = "triple";
const KERNEL_ATTRIBUTE: &str = "executor.kernel";
const ASYNC_ATTRIBUTE: &str = "executor.async";
/// Makes convert-func-to-llvm emit `_mlir_ciface_<kernel>`, the entry
/// `executor.launch` runs under the default entry convention.
const C_INTERFACE_ATTRIBUTE: &str = "llvm.emit_c_interface";

/// The pass's options, as the C++ shell hands them over.
pub struct Options<'o> {
    /// Where the object files go; created if missing.
    pub object_dir: &'o Path,
    /// The `kernel-lowering` pipeline, for messages (the shell runs it).
    pub kernel_lowering: &'o str,
    /// The function that opens every session and sends every object.
    pub setup_function: Option<&'o [u8]>,
    /// Runs `kernel-lowering` on a target module; false after its errors.
    pub lower_kernels: &'o dyn Fn(OperationRef<'_, '_>) -> bool,
}

/// Runs the pass on `module`; false once errors have been reported.
pub fn run(module: OperationRef<'_, '_>, options: &Options<'_>) -> bool {
    ir::with_context(module, |context| {
        super::run_guarded(ARGUMENT, module, || dispatch(context, module, options))
    })
}

/// Diagnostics were emitted at the ops at fault.
struct Failed;

fn dispatch<'c>(
    context: &'c Context,
    module: OperationRef<'c, '_>,
    options: &Options<'_>,
) -> Result<(), Failed> {
    let host = Host::read(module, options)?;
    if host.targets.is_empty() && host.declarations.is_empty() {
        return Ok(());
    }
    // Every module is compiled, so that each failure is reported.
    let compiled: Vec<Result<(), Failed>> = host
        .targets
        .iter()
        .map(|target| compile(context, target, options))
        .collect();
    compiled.into_iter().collect::<Result<(), Failed>>()?;
    host.rewrite(context);
    Ok(())
}

//===----------------------------------------------------------------------===//
// Phase 1: read and check the host
//===----------------------------------------------------------------------===//

/// A module of kernels marked `executor.target`.
struct TargetModule<'c, 'a> {
    operation: OperationRef<'c, 'a>,
    name: &'c [u8],
    /// Index into `Host::addresses`.
    address: usize,
    object: PathBuf,
    machine: object_file::Machine,
}

/// A `func.func` declaration marked `executor.kernel`.
struct Declaration<'c, 'a> {
    operation: OperationRef<'c, 'a>,
    /// Its kernel: the target module's index and the kernel's name, or why it
    /// has none.
    kernel: Result<(usize, &'c [u8]), NoKernel>,
}

/// Why a declaration has no kernel.
#[derive(Clone)]
enum NoKernel {
    /// Its target module is in error, which that module's own error says:
    /// reported again at the declaration, it would read as a second mistake.
    TargetInError,
    /// Reported at each call, or at the declaration if it is not called.
    Because(String),
}

/// A `func.func` of the host with a body.
struct HostFunction<'c, 'a> {
    operation: OperationRef<'c, 'a>,
    kernel_calls: Vec<KernelCall<'c, 'a>>,
    uses: FunctionUse,
}

struct KernelCall<'c, 'a> {
    operation: OperationRef<'c, 'a>,
    module: usize,
    kernel: &'c [u8],
    is_async: bool,
}

struct Host<'c, 'a> {
    /// Distinct addresses, in the order of the first target module at each.
    addresses: Vec<&'c [u8]>,
    targets: Vec<TargetModule<'c, 'a>>,
    declarations: Vec<Declaration<'c, 'a>>,
    functions: Vec<HostFunction<'c, 'a>>,
    setup: Option<usize>,
}

/// Errors found while reading, reported together.
#[derive(Default)]
struct Errors<'c>(Vec<(Location<'c>, String)>);

impl<'c> Errors<'c> {
    fn at(&mut self, operation: OperationRef<'c, '_>, message: String) {
        self.0.push((operation.location(), message));
    }

    fn report(self) -> Result<(), Failed> {
        if self.0.is_empty() {
            return Ok(());
        }
        for (location, message) in self.0 {
            ir::emit_error(location, &message);
        }
        Err(Failed)
    }
}

impl<'c, 'a> Host<'c, 'a> {
    fn read(module: OperationRef<'c, 'a>, options: &Options<'_>) -> Result<Self, Failed> {
        let mut errors = Errors::default();
        if module.has_attribute(TARGET_ATTRIBUTE) {
            errors.at(
                module,
                format!(
                    "{ARGUMENT} runs on the host module, which holds the target modules; this module is itself marked {TARGET_ATTRIBUTE}"
                ),
            );
            return errors.report().map(|()| Self::empty());
        }
        // Catalyst's form is another pass's, and would otherwise be left as
        // it is without a word.
        for (operation, what) in catalyst_form::operations_in(module) {
            errors.at(
                operation,
                format!(
                    "{ARGUMENT} does not take Catalyst's dispatch form: this {what} is for dispatch-executor-targets"
                ),
            );
        }
        let Some(body) = module_symbols::table_body(module) else {
            return errors.report().map(|()| Self::empty());
        };
        let top_level = block_operations(body);

        let mut host = Self::empty();
        let mut addresses_by_name: HashMap<&[u8], usize> = HashMap::new();
        let mut declaration_names: HashMap<&[u8], usize> = HashMap::new();
        let mut function_names: HashMap<&[u8], usize> = HashMap::new();
        let mut targets_in_error: Vec<&[u8]> = Vec::new();
        for &operation in &top_level {
            if operation.has_attribute(TARGET_ATTRIBUTE) {
                let addresses = &mut host.addresses;
                let index_of = |address| {
                    let next = addresses_by_name.len();
                    *addresses_by_name.entry(address).or_insert_with(|| {
                        addresses.push(address);
                        next
                    })
                };
                match read_target(operation, options.object_dir, index_of) {
                    Ok(target) => host.targets.push(target),
                    Err(message) => {
                        targets_in_error.extend(module_symbols::symbol_name(operation));
                        errors.at(operation, message);
                    }
                }
            } else if is_function(operation) && operation.has_attribute(KERNEL_ATTRIBUTE) {
                if let Some(name) = module_symbols::symbol_name(operation) {
                    declaration_names.insert(name, host.declarations.len());
                }
                host.declarations.push(Declaration {
                    operation,
                    kernel: Err(NoKernel::TargetInError),
                });
            } else if is_function(operation) && entry_block(operation).is_some() {
                if let Some(name) = module_symbols::symbol_name(operation) {
                    function_names.insert(name, host.functions.len());
                }
                host.functions.push(HostFunction {
                    operation,
                    kernel_calls: Vec::new(),
                    uses: FunctionUse::default(),
                });
            }
        }
        for target in ir::collect_operations(module, |operation| {
            operation.has_attribute(TARGET_ATTRIBUTE)
                && operation.parent_operation() != Some(module)
        }) {
            errors.at(
                target,
                format!(
                    "{ARGUMENT} compiles the target modules directly inside the module it runs on; this one is nested deeper"
                ),
            );
        }
        for index in 0..host.declarations.len() {
            host.declarations[index].kernel =
                host.resolve(host.declarations[index].operation, &targets_in_error);
        }
        if let Some(setup) = options.setup_function {
            host.setup = function_names.get(setup).copied();
            if host.setup.is_none() {
                errors.at(
                    module,
                    format!(
                        "{ARGUMENT}: setup-function={} names no function with a body in this module",
                        lossy(setup)
                    ),
                );
            }
        }

        let symbols = Symbols {
            module,
            declarations: &declaration_names,
            functions: &function_names,
        };
        let mut called = vec![false; host.declarations.len()];
        for &operation in &top_level {
            if operation.has_attribute(TARGET_ATTRIBUTE) {
                continue;
            }
            let function = module_symbols::symbol_name(operation)
                .and_then(|name| function_names.get(name).copied())
                .filter(|index| host.functions[*index].operation == operation);
            for nested in ir::collect_operations(operation, |_| true) {
                host.read_operation(
                    nested,
                    operation,
                    function,
                    &symbols,
                    &mut called,
                    &mut errors,
                );
            }
        }
        for (declaration, called) in host.declarations.iter().zip(called) {
            if let (Err(NoKernel::Because(message)), false) = (&declaration.kernel, called) {
                errors.at(declaration.operation, message.clone());
            }
        }
        errors.report()?;
        Ok(host)
    }

    fn empty() -> Self {
        Self {
            addresses: Vec::new(),
            targets: Vec::new(),
            declarations: Vec::new(),
            functions: Vec::new(),
            setup: None,
        }
    }

    /// The kernel a declaration names, checked against it; none without a
    /// word when it names one of `targets_in_error`.
    fn resolve(
        &self,
        declaration: OperationRef<'c, 'a>,
        targets_in_error: &[&[u8]],
    ) -> Result<(usize, &'c [u8]), NoKernel> {
        let reference = declaration
            .attribute(KERNEL_ATTRIBUTE)
            .ok()
            .and_then(ir::symbol_reference_path);
        if reference
            .as_ref()
            .and_then(|path| path.first())
            .is_some_and(|module| targets_in_error.contains(module))
        {
            return Err(NoKernel::TargetInError);
        }
        self.check_kernel(declaration).map_err(NoKernel::Because)
    }

    /// The kernel a declaration names, checked against it, or what is wrong.
    fn check_kernel(&self, declaration: OperationRef<'c, 'a>) -> Result<(usize, &'c [u8]), String> {
        let name = lossy(module_symbols::symbol_name(declaration).unwrap_or_default());
        let reference = declaration
            .attribute(KERNEL_ATTRIBUTE)
            .ok()
            .and_then(ir::symbol_reference_path)
            .filter(|path| path.len() == 2)
            .ok_or_else(|| format!("the declaration @{name} names no kernel @module::@kernel"))?;
        let (module_name, kernel_name) = (reference[0], reference[1]);
        let full_name = format!("@{}::@{}", lossy(module_name), lossy(kernel_name));
        let module = self
            .targets
            .iter()
            .position(|target| target.name == module_name)
            .ok_or_else(|| {
                format!(
                    "no kernel {full_name} for @{name}: this module has no target module @{} (a module marked {TARGET_ATTRIBUTE})",
                    lossy(module_name)
                )
            })?;
        let kernel = module_symbols::table_body(self.targets[module].operation)
            .map(block_operations)
            .unwrap_or_default()
            .into_iter()
            .find(|operation| module_symbols::symbol_name(*operation) == Some(kernel_name))
            .ok_or_else(|| {
                format!(
                    "no kernel {full_name} for @{name}: the target module has no symbol @{}",
                    lossy(kernel_name)
                )
            })?;
        if !is_function(kernel) || entry_block(kernel).is_none() {
            return Err(format!(
                "the kernel {full_name} of @{name} is not a func.func with a body"
            ));
        }
        if !is_public(kernel) {
            return Err(format!(
                "the kernel {full_name} of @{name} is not public, so its object file would not export it"
            ));
        }
        let kernel_type = function_type(kernel).ok_or("the kernel has no function_type")?;
        let declared_type =
            function_type(declaration).ok_or("the declaration has no function_type")?;
        if kernel_type != declared_type {
            return Err(format!(
                "the kernel {full_name} has type {kernel_type} but its declaration @{name} has type {declared_type}"
            ));
        }
        let function = FunctionType::try_from(kernel_type).map_err(|error| error.to_string())?;
        let inputs = (0..function.input_count()).filter_map(|index| function.input(index).ok());
        let results = (0..function.result_count()).filter_map(|index| function.result(index).ok());
        for (kind, value_type) in inputs
            .map(|value_type| ("an operand", value_type))
            .chain(results.map(|value_type| ("a result", value_type)))
        {
            if MemRefType::try_from(value_type).is_err() {
                return Err(format!(
                    "the kernel {full_name} has {kind} of type {value_type}: executor.launch passes memrefs only"
                ));
            }
        }
        Ok((module, kernel_name))
    }

    /// Reads one op inside the top-level op `top` (the host function
    /// `function`, if it is one): kernel calls, calls between host functions,
    /// and other uses of their symbols.
    fn read_operation(
        &mut self,
        operation: OperationRef<'c, 'a>,
        top: OperationRef<'c, 'a>,
        function: Option<usize>,
        symbols: &Symbols<'_, 'c, 'a>,
        called: &mut [bool],
        errors: &mut Errors<'c>,
    ) {
        let is_call = ir::operation_name(operation) == func::CallOperation::name();
        if ir::operation_name(operation) == func::CallIndirectOperation::name()
            && let Some(function) = function
        {
            self.functions[function].uses.calls_indirectly = true;
        }
        if is_call && operation.has_attribute(ASYNC_ATTRIBUTE) {
            let callee = operation
                .attribute("callee")
                .ok()
                .and_then(ir::flat_symbol_reference);
            if let Some(callee) = callee.filter(|callee| !symbols.declarations.contains_key(callee))
            {
                // It would run as an ordinary, synchronous call.
                errors.at(
                    operation,
                    format!(
                        "{ASYNC_ATTRIBUTE} marks a call to a kernel declaration ({KERNEL_ATTRIBUTE}); @{} is not one",
                        lossy(callee)
                    ),
                );
            }
        }
        for (name, attribute) in operation.attributes() {
            let Some(symbol) = ir::flat_symbol_reference(attribute) else {
                continue;
            };
            let is_callee = is_call && name.as_string_ref().as_str() == Ok("callee");
            if !symbols.resolve_in_host(operation) {
                continue;
            }
            if let Some(&declaration) = symbols.declarations.get(symbol) {
                if !is_callee {
                    errors.at(
                        operation,
                        format!(
                            "{} uses the kernel declaration @{}; only func.call runs a kernel",
                            ir::operation_name(operation),
                            lossy(symbol)
                        ),
                    );
                    continue;
                }
                called[declaration] = true;
                let kernel = match &self.declarations[declaration].kernel {
                    Ok(kernel) => *kernel,
                    Err(NoKernel::Because(message)) => {
                        errors.at(operation, message.clone());
                        continue;
                    }
                    Err(NoKernel::TargetInError) => continue,
                };
                match self.kernel_call(operation, top, function, kernel) {
                    Ok((function, call)) => {
                        let uses = &mut self.functions[function].uses;
                        uses.modules.insert(call.module);
                        self.functions[function].kernel_calls.push(call);
                    }
                    Err(message) => errors.at(operation, message),
                }
            } else if let Some(&callee) = symbols.functions.get(symbol) {
                if !is_callee {
                    self.functions[callee].uses.escapes = true;
                } else if let Some(function) = function {
                    self.functions[function].uses.callees.push(callee);
                }
            }
        }
    }

    /// Checks a call to a kernel declaration whose kernel is `kernel`.
    fn kernel_call(
        &self,
        call: OperationRef<'c, 'a>,
        top: OperationRef<'c, 'a>,
        function: Option<usize>,
        (module, kernel): (usize, &'c [u8]),
    ) -> Result<(usize, KernelCall<'c, 'a>), String> {
        let function = function.ok_or_else(|| {
            format!(
                "a kernel is called from a func.func of the module, not from '{}'",
                ir::operation_name(top)
            )
        })?;
        if let Some(isolated) = nearest_isolated_ancestor(call).filter(|isolated| *isolated != top)
        {
            return Err(format!(
                "this kernel call is inside '{}', which is isolated from above: the function's session is out of its reach",
                ir::operation_name(isolated)
            ));
        }
        let is_async = call.has_attribute(ASYNC_ATTRIBUTE);
        if is_async {
            if call.operand_count() != 0 || call.result_count() != 0 {
                return Err(format!(
                    "an {ASYNC_ATTRIBUTE} call starts a () -> () kernel without waiting for it, so it has no operands or results; this one has {} and {}",
                    call.operand_count(),
                    call.result_count()
                ));
            }
            if call.block() != entry_block(top) {
                return Err(format!(
                    "an {ASYNC_ATTRIBUTE} call is in the entry block of its function, so that its executor.await can be placed before every return"
                ));
            }
        }
        Ok((
            function,
            KernelCall {
                operation: call,
                module,
                kernel,
                is_async,
            },
        ))
    }
}

/// The host's symbols that calls and references resolve to.
struct Symbols<'s, 'c, 'a> {
    module: OperationRef<'c, 'a>,
    declarations: &'s HashMap<&'c [u8], usize>,
    functions: &'s HashMap<&'c [u8], usize>,
}

impl Symbols<'_, '_, '_> {
    /// Whether a flat reference held by `operation` resolves in the host's
    /// symbol table (rather than in a symbol table nested in it).
    fn resolve_in_host(&self, operation: OperationRef<'_, '_>) -> bool {
        let mut ancestor = operation.parent_operation();
        while let Some(current) = ancestor {
            if ffi::is_symbol_table(current) {
                return current == self.module;
            }
            ancestor = current.parent_operation();
        }
        false
    }
}

/// The target module, checked; `index_of` gives its address's index in
/// `Host::addresses` (called only for a module without errors).
fn read_target<'c, 'a>(
    target: OperationRef<'c, 'a>,
    object_dir: &Path,
    index_of: impl FnOnce(&'c [u8]) -> usize,
) -> Result<TargetModule<'c, 'a>, String> {
    let name = module_symbols::symbol_name(target)
        .ok_or_else(|| format!("a module marked {TARGET_ATTRIBUTE} needs a name"))?;
    let dictionary = target
        .attribute(TARGET_ATTRIBUTE)
        .ok()
        .and_then(|attribute| DictionaryAttribute::try_from(attribute).ok());
    let string = |key: &str| {
        dictionary
            .and_then(|target| target.element_by_name(key))
            .and_then(|value| melior::ir::attribute::StringAttribute::try_from(value).ok())
            .map(|value| lossy(ir::string_bytes(value)))
    };
    let address = dictionary
        .and_then(|target| target.element_by_name(TARGET_ADDRESS_KEY))
        .and_then(|address| melior::ir::attribute::StringAttribute::try_from(address).ok())
        .map(ir::string_bytes)
        .filter(|address| !address.is_empty())
        .ok_or_else(|| format!("{TARGET_ATTRIBUTE} needs {{{TARGET_ADDRESS_KEY} = \"...\"}}"))?;
    let machine = object_file::Machine {
        // An empty triple is the default one, as in Catalyst.
        triple: string(TARGET_TRIPLE_KEY).filter(|triple| !triple.is_empty()),
        cpu: string("cpu").unwrap_or_default(),
        features: string("features").unwrap_or_default(),
    };
    machine.check().map_err(|error| {
        format!(
            "cannot compile the target module @{} for its {TARGET_TRIPLE_KEY}: {error}",
            lossy(name)
        )
    })?;
    let object = object_path(object_dir, name)?;
    Ok(TargetModule {
        operation: target,
        name,
        address: index_of(address),
        object,
        machine,
    })
}

/// `<object_dir>/<module name>.o`, absolute, so the host may run elsewhere.
fn object_path(object_dir: &Path, module_name: &[u8]) -> Result<PathBuf, String> {
    let file_name = OsStr::from_bytes(module_name);
    if module_name.contains(&b'/')
        || module_name.contains(&0)
        || file_name == "."
        || file_name == ".."
    {
        return Err(format!(
            "the object file of a target module is named after it, and @{} is not a file name",
            lossy(module_name)
        ));
    }
    let mut object = object_dir.join(file_name);
    object.as_mut_os_string().push(".o");
    std::path::absolute(&object)
        .map_err(|error| format!("cannot make {} absolute: {error}", object.display()))
}

//===----------------------------------------------------------------------===//
// Phase 2: compile the target modules
//===----------------------------------------------------------------------===//

fn compile(
    context: &Context,
    target: &TargetModule<'_, '_>,
    options: &Options<'_>,
) -> Result<(), Failed> {
    let fail = |message: String| {
        ir::emit_error(target.operation.location(), &message);
        Failed
    };
    let name = lossy(target.name);
    for kernel in module_symbols::table_body(target.operation)
        .map(block_operations)
        .unwrap_or_default()
    {
        if is_function(kernel) && entry_block(kernel).is_some() && is_public(kernel) {
            ir::set_attribute(kernel, C_INTERFACE_ATTRIBUTE, Attribute::unit(context));
        }
    }
    if !(options.lower_kernels)(target.operation) {
        return Err(fail(format!(
            "cannot lower the target module @{name} with kernel-lowering='{}' (the errors above say why)",
            options.kernel_lowering
        )));
    }
    let object = object_file::emit_object(target.operation, &target.machine).map_err(|error| {
        fail(match error {
            object_file::ObjectError::Translation => format!(
                "the target module @{name} does not translate to LLVM IR after kernel-lowering='{}' (the errors above say why)",
                options.kernel_lowering
            ),
            other => format!("cannot compile the target module @{name}: {other}"),
        })
    })?;
    if let Some(directory) = target.object.parent() {
        std::fs::create_dir_all(directory).map_err(|error| {
            fail(format!(
                "cannot create the object directory {}: {error}",
                directory.display()
            ))
        })?;
    }
    std::fs::write(&target.object, object).map_err(|error| {
        fail(format!(
            "cannot write the object file of @{name} to {}: {error}",
            target.object.display()
        ))
    })
}

//===----------------------------------------------------------------------===//
// Phase 3: rewrite the host
//===----------------------------------------------------------------------===//

impl<'c, 'a> Host<'c, 'a> {
    fn rewrite(self, context: &'c Context) {
        let module_addresses: Vec<usize> =
            self.targets.iter().map(|target| target.address).collect();
        let uses: Vec<FunctionUse> = self
            .functions
            .iter()
            .map(|function| function.uses.clone())
            .collect();
        let plan = dispatch_plan::plan(&module_addresses, &uses, self.setup);
        for (function, sessions) in self.functions.iter().zip(&plan) {
            if !sessions.opens.is_empty() {
                self.rewrite_function(context, function, sessions);
            }
        }
        for declaration in &self.declarations {
            ir::erase(declaration.operation);
        }
        for target in &self.targets {
            ir::erase(target.operation);
        }
    }

    fn rewrite_function(
        &self,
        context: &'c Context,
        function: &HostFunction<'c, 'a>,
        sessions: &FunctionSessions,
    ) {
        let Some(entry) = entry_block(function.operation) else {
            return;
        };
        let location = function.operation.location();
        let session_type = ffi::session_type(context);
        let mut prologue = Prologue::of(entry);
        let mut session_of: HashMap<usize, Value<'c, 'a>> = HashMap::new();
        for &address in &sessions.opens {
            let open = executor::open(
                context,
                session_type,
                ir::string_attribute_typed(context, self.addresses[address]),
                location,
            );
            let open = prologue.append(open.into());
            session_of.insert(address, first_result(open));
        }
        for &module in &sessions.sends {
            let target = &self.targets[module];
            let send = executor::send_binary(
                context,
                session_of[&target.address],
                ir::string_attribute_typed(context, target.object.as_os_str().as_bytes()),
                location,
            );
            prologue.append(send.into());
        }

        let mut tokens = Vec::new();
        for call in &function.kernel_calls {
            let target = &self.targets[call.module];
            let session = session_of[&target.address];
            let callee = ir::string_attribute_typed(context, call.kernel);
            let object = ir::string_attribute_typed(context, target.object.as_os_str().as_bytes());
            let location = call.operation.location();
            let Some(block) = call.operation.block() else {
                continue;
            };
            if call.is_async {
                let launch = executor::launch_async(
                    context,
                    ffi::token_type(context),
                    session,
                    callee,
                    object,
                    location,
                );
                let launch = block.insert_operation_before(call.operation, launch.into());
                tokens.push(first_result(launch));
            } else {
                let result_types: Vec<Type> = call
                    .operation
                    .results()
                    .map(|result| Value::from(result).r#type())
                    .collect();
                let inputs: Vec<Value> = call.operation.operands().collect();
                let launch = executor::launch(
                    context,
                    &result_types,
                    session,
                    &inputs,
                    callee,
                    object,
                    location,
                );
                let launch = block.insert_operation_before(call.operation, launch.into());
                for (old, new) in call.operation.results().zip(launch.results()) {
                    ir::replace_all_uses(old.into(), new.into());
                }
            }
            ir::erase(call.operation);
        }

        for ret in returns(function.operation) {
            let Some(block) = ret.block() else {
                continue;
            };
            let location = ret.location();
            for &token in &tokens {
                block.insert_operation_before(
                    ret,
                    executor::r#await(context, token, location).into(),
                );
            }
            for &address in &sessions.closes {
                block.insert_operation_before(
                    ret,
                    executor::close(context, session_of[&address], location).into(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_named_after_their_module_in_the_object_directory() {
        let object = object_path(Path::new("/objects"), b"kernels").unwrap();
        assert_eq!(object, Path::new("/objects/kernels.o"));
        let relative = object_path(Path::new("objects"), b"k.v2").unwrap();
        assert!(relative.is_absolute());
        assert!(relative.ends_with("objects/k.v2.o"));
    }

    #[test]
    fn module_names_that_are_not_file_names_are_rejected() {
        for name in [&b"a/b"[..], b"..", b".", b"a\0b"] {
            assert!(
                object_path(Path::new("/objects"), name).is_err(),
                "{name:?}"
            );
        }
    }
}
