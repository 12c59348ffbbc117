//! Catalyst's dispatch form: the ops and attributes its
//! `dispatch-executor-targets` takes, by the names Catalyst gives them, and
//! where they are in a module. This project has no `catalyst` dialect: the
//! ops are read by name and attribute, so they may be unregistered (parsed
//! with `--allow-unregistered-dialect`) or Catalyst's own.

use melior::ir::{
    Attribute, OperationRef,
    attribute::{DictionaryAttribute, StringAttribute},
    operation::OperationLike,
};

use super::ir;

/// Marks a nested module whose kernels run on an executor:
/// `catalyst.dispatch = {address = "..."}`.
pub const DISPATCH_ATTRIBUTE: &str = "catalyst.dispatch";
pub const ADDRESS_KEY: &str = "address";
/// The object file a dispatch module was compiled to (by Catalyst's
/// `cross-compile-targets`): `catalyst.object_file = "/path/module.o"`.
pub const OBJECT_FILE_ATTRIBUTE: &str = "catalyst.object_file";

/// `catalyst.launch_kernel @module::@kernel(...)`: the host runs a kernel.
pub const LAUNCH_KERNEL: &str = "catalyst.launch_kernel";
pub const CALLEE: &str = "callee";
/// On a `launch_kernel`: start it without waiting.
pub const NONBLOCKING_ATTRIBUTE: &str = "catalyst.nonblocking";

/// `catalyst.custom_call fn("symbol")(...)`: a call of a library symbol; with
/// a `dispatch` entry in its `backend_config`, on an executor.
pub const CUSTOM_CALL: &str = "catalyst.custom_call";
pub const CALL_TARGET_NAME: &str = "call_target_name";
pub const NUMBER_ORIGINAL_ARG: &str = "number_original_arg";
pub const BACKEND_CONFIG: &str = "backend_config";
pub const DISPATCH_KEY: &str = "dispatch";

/// Marks a function that brings the executors up: when one exists, only such
/// functions send objects.
pub const BRINGUP_ATTRIBUTE: &str = "catalyst.backline_bringup";

/// The `dispatch` entry of a `catalyst.custom_call`'s `backend_config`, if it
/// has one (a string, or something else the pass reports).
pub fn custom_call_dispatch<'c>(call: OperationRef<'c, '_>) -> Option<Attribute<'c>> {
    if ir::operation_name(call) != CUSTOM_CALL {
        return None;
    }
    let config = DictionaryAttribute::try_from(call.attribute(BACKEND_CONFIG).ok()?).ok()?;
    config.element_by_name(DISPATCH_KEY)
}

/// A string attribute's bytes, or None for another attribute.
pub fn string_value<'c>(attribute: Attribute<'c>) -> Option<&'c [u8]> {
    StringAttribute::try_from(attribute)
        .ok()
        .map(ir::string_bytes)
}

/// The ops of `root` (itself included) in Catalyst's dispatch form, each with
/// what it is, in pre-order: modules marked `catalyst.dispatch`, the
/// `catalyst.launch_kernel`s of their kernels, and `catalyst.custom_call`s
/// with a `dispatch` entry. What a pass that does not take the form reports.
pub fn operations_in<'c, 'a>(
    root: OperationRef<'c, 'a>,
) -> Vec<(OperationRef<'c, 'a>, &'static str)> {
    let operations = ir::collect_operations(root, |_| true);
    let dispatch_modules: Vec<&[u8]> = operations
        .iter()
        .filter(|operation| operation.has_attribute(DISPATCH_ATTRIBUTE))
        .filter_map(|operation| super::module_symbols::symbol_name(*operation))
        .collect();
    operations
        .into_iter()
        .filter_map(|operation| {
            let what = if operation.has_attribute(DISPATCH_ATTRIBUTE) {
                "module marked catalyst.dispatch"
            } else if ir::operation_name(operation) == LAUNCH_KERNEL
                && launch_root(operation).is_some_and(|root| dispatch_modules.contains(&root))
            {
                "catalyst.launch_kernel of a kernel of a module marked catalyst.dispatch"
            } else if custom_call_dispatch(operation).is_some() {
                "catalyst.custom_call with a dispatch entry in its backend_config"
            } else {
                return None;
            };
            Some((operation, what))
        })
        .collect()
}

/// The module a `launch_kernel`'s callee names (`@module` of `@module::@kernel`).
fn launch_root<'c>(launch: OperationRef<'c, '_>) -> Option<&'c [u8]> {
    let path = ir::symbol_reference_path(launch.attribute(CALLEE).ok()?)?;
    path.first().copied()
}
