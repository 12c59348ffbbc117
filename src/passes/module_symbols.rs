//! The symbols the lowering adds to a symbol table (the `builtin.module` or
//! `gpu.module` around the lowered ops): runtime declarations (once per
//! table), internal constant globals (once per distinct content) and the
//! launch sites' caches (one per kernel and object), under readable names
//! that never collide with the table's own symbols.

use std::collections::{HashMap, HashSet};

use executor_abi::{
    functions::RuntimeFunction,
    launch_site::{self, field},
};
use melior::{
    Context,
    dialect::{
        llvm::{
            self,
            attributes::{Linkage, linkage},
        },
        ods,
    },
    ir::{
        Attribute, Block, BlockLike, BlockRef, Location, Operation, OperationRef, Region,
        RegionLike, Type, Value,
        attribute::{
            DenseElementsAttribute, DenseI64ArrayAttribute, IntegerAttribute, StringAttribute,
            TypeAttribute,
        },
        operation::OperationLike,
        r#type::RankedTensorType,
    },
};

use super::{
    ir,
    llvm_builder::{LlvmTypes, address_of_op, constant_op},
    symbol_names::SymbolNames,
};

pub struct ModuleSymbols<'c, 'a> {
    context: &'c Context,
    types: LlvmTypes<'c>,
    body: BlockRef<'c, 'a>,
    location: Location<'c>,
    names: SymbolNames,
    strings: HashMap<Vec<u8>, String>,
    i64_arrays: HashMap<Vec<i64>, String>,
    /// The launch site of each description.
    launch_sites: HashMap<SiteDescription, String>,
    declared: HashSet<&'static str>,
    last_inserted: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> ModuleSymbols<'c, 'a> {
    /// The symbols of the table op `table`, whose body is `body`.
    pub fn new(
        context: &'c Context,
        types: LlvmTypes<'c>,
        table: OperationRef<'c, 'a>,
        body: BlockRef<'c, 'a>,
    ) -> Self {
        let mut names = SymbolNames::default();
        let mut next = body.first_operation();
        while let Some(operation) = next {
            if let Some(name) = symbol_name(operation) {
                names.insert(name);
            }
            next = operation.next_in_block();
        }
        Self {
            context,
            types,
            body,
            location: table.location(),
            names,
            strings: HashMap::new(),
            i64_arrays: HashMap::new(),
            launch_sites: HashMap::new(),
            declared: HashSet::new(),
            last_inserted: None,
        }
    }

    /// Declares `function` unless it is declared already. A symbol of that
    /// name that is not an `llvm.func` of the same type is an error.
    pub fn declare(&mut self, function: &'static RuntimeFunction) -> Result<(), String> {
        if self.declared.contains(function.name) {
            return Ok(());
        }
        let declaration = llvm::func(
            self.context,
            StringAttribute::new(self.context, function.name),
            TypeAttribute::new(self.function_type(function)),
            Region::new(),
            &[],
            self.location,
        );
        if self.names.contains(function.name.as_bytes()) {
            let existing = self
                .find(function.name.as_bytes())
                .expect("a taken symbol names an operation of the table");
            let same = ir::operation_name(existing) == ods::llvm::LLVMFuncOperation::name()
                && existing.attribute("function_type").ok()
                    == declaration.attribute("function_type").ok();
            if !same {
                return Err(format!(
                    "the module already defines the symbol '{}' of the executor runtime ABI with another type; expected `{}`",
                    function.name,
                    declaration.to_string().trim_end()
                ));
            }
        } else {
            self.insert(declaration);
            self.names.insert(function.name.as_bytes());
        }
        self.declared.insert(function.name);
        Ok(())
    }

    /// The LLVM function type of `function`.
    fn function_type(&self, function: &RuntimeFunction) -> Type<'c> {
        let parameters: Vec<Type> = function
            .parameter_types()
            .map(|parameter| self.types.of(parameter))
            .collect();
        let result = function.result_type().map_or_else(
            || llvm::r#type::void(self.context),
            |result| self.types.of(result),
        );
        llvm::r#type::function(result, &parameters, false)
    }

    /// The name of an internal constant global that holds `text` followed by a
    /// NUL byte.
    pub fn string(&mut self, text: &[u8]) -> String {
        if let Some(name) = self.strings.get(text) {
            return name.clone();
        }
        let name = self
            .names
            .unique(&format!("__executor_str_{}", sanitize(text)));
        let mut bytes = text.to_vec();
        bytes.push(0);
        let global_type = llvm::r#type::array(self.types.i8, bytes.len() as u32);
        let value = ir::string_attribute(self.context, &bytes);
        self.insert_global(
            &name,
            global_type,
            Initial::Value(value),
            GlobalKind::Constant,
        );
        self.strings.insert(text.to_vec(), name.clone());
        name
    }

    /// The name of an internal constant global that holds `values` as `i64`s.
    pub fn i64_array(&mut self, values: &[i64]) -> String {
        if let Some(name) = self.i64_arrays.get(values) {
            return name.clone();
        }
        let joined: Vec<String> = values.iter().map(i64::to_string).collect();
        let name = self.names.unique(&format!(
            "__executor_i64s_{}",
            sanitize(joined.join("_").as_bytes())
        ));
        let elements: Vec<Attribute> = values
            .iter()
            .map(|value| IntegerAttribute::new(self.types.i64, *value).into())
            .collect();
        let tensor = RankedTensorType::new(&[values.len() as u64], self.types.i64, None);
        let value = DenseElementsAttribute::new(tensor.into(), &elements)
            .expect("i64 elements fit a tensor of i64")
            .into();
        let global_type = llvm::r#type::array(self.types.i64, values.len() as u32);
        self.insert_global(
            &name,
            global_type,
            Initial::Value(value),
            GlobalKind::Constant,
        );
        self.i64_arrays.insert(values.to_vec(), name.clone());
        name
    }

    /// The name of the launch site (`executor_abi::launch_site`) of the
    /// launches of `kernel` that `description` describes: an internal,
    /// writable global, one per kernel, object and argument signature, as
    /// their strings are. One per launch op would be correct too, but costs a
    /// global per launch: at 100,000 launches it made the pass 2.4x slower.
    /// Launches of one kernel on two sessions in turn then take the general
    /// path each time, since a site caches one session's entry.
    pub fn launch_site(&mut self, kernel: &[u8], description: &SiteDescription) -> String {
        if let Some(name) = self.launch_sites.get(description) {
            return name.clone();
        }
        let name = self
            .names
            .unique(&format!("__executor_site_{}", sanitize(kernel)));
        let mut fields = vec![
            (
                field::ENTRY_SYMBOL,
                SiteField::Global(self.string(&description.entry_symbol)),
            ),
            (
                field::OBJECT,
                SiteField::Global(self.string(&description.object)),
            ),
        ];
        for (count, ranks, sizes, descriptors) in [
            (
                field::NUM_INPUTS,
                field::INPUT_RANKS,
                field::INPUT_ELEM_SIZES,
                &description.inputs,
            ),
            (
                field::NUM_OUTPUTS,
                field::OUTPUT_RANKS,
                field::OUTPUT_ELEM_SIZES,
                &description.outputs,
            ),
        ] {
            // No descriptors: a count of 0 and null arrays, the zeros the
            // initializer starts from.
            if !descriptors.ranks.is_empty() {
                fields.extend([
                    (count, SiteField::Count(descriptors.ranks.len() as i64)),
                    (ranks, SiteField::Global(self.i64_array(&descriptors.ranks))),
                    (
                        sizes,
                        SiteField::Global(self.i64_array(&descriptors.elem_sizes)),
                    ),
                ]);
            }
        }
        // Results without dimensions: a null array, the zero it starts from.
        if !description.output_sizes.is_empty() {
            fields.push((
                field::OUTPUT_SIZES,
                SiteField::Global(self.i64_array(&description.output_sizes)),
            ));
        }
        let site_type = self.types.launch_site(self.context);
        let initializer = self.site_initializer(site_type, &fields);
        self.insert_global(
            &name,
            site_type,
            Initial::Region(initializer),
            GlobalKind::LaunchSite,
        );
        self.launch_sites.insert(description.clone(), name.clone());
        name
    }

    /// The initializer region of a launch site of `site_type`: zeros (an
    /// empty cache, null pointers and counts of 0) with `fields` set.
    fn site_initializer(&self, site_type: Type<'c>, fields: &[(usize, SiteField)]) -> Region<'c> {
        let (context, location) = (self.context, self.location);
        let block = Block::new(&[]);
        let value_of = |operation: Operation<'c>| -> Value<'c, '_> {
            block
                .append_operation(operation)
                .result(0)
                .expect("the op has a result")
                .into()
        };
        let mut site = value_of(llvm::zero(site_type, location));
        for (index, value) in fields {
            let value = value_of(match value {
                SiteField::Global(name) => address_of_op(context, self.types, name, location),
                SiteField::Count(count) => constant_op(context, self.types.i64, *count, location),
            });
            site = value_of(llvm::insert_value(
                context,
                site,
                DenseI64ArrayAttribute::new(context, &[field::position(*index) as i64]),
                value,
                location,
            ));
        }
        block.append_operation(llvm::r#return(Some(site), location));
        let region = Region::new();
        region.append_block(block);
        region
    }

    /// Adds the internal global `name` of `global_type`, initialized by `initial`.
    fn insert_global(
        &mut self,
        name: &str,
        global_type: Type<'c>,
        initial: Initial<'c>,
        kind: GlobalKind,
    ) {
        let context = self.context;
        let builder = ods::llvm::GlobalOperationBuilder::new(context, self.location)
            .global_type(TypeAttribute::new(global_type))
            .sym_name(StringAttribute::new(context, name))
            .linkage(linkage(context, Linkage::Internal))
            .addr_space(IntegerAttribute::new(self.types.i32, 0));
        let builder = match initial {
            Initial::Value(value) => builder.value(value).initializer(Region::new()),
            Initial::Region(region) => builder.initializer(region),
        };
        let global = match kind {
            GlobalKind::Constant => builder.constant(Attribute::unit(context)),
            // The runtime reads and writes a launch site's cache atomically.
            GlobalKind::LaunchSite => builder.alignment(IntegerAttribute::new(
                self.types.i64,
                launch_site::ALIGNMENT as i64,
            )),
        }
        .build();
        self.insert(global.into());
    }

    /// Keeps the added symbols together at the top of the table, in the order
    /// they were added.
    fn insert(&mut self, operation: Operation<'c>) {
        let inserted = match self.last_inserted {
            Some(previous) => self.body.insert_operation_after(previous, operation),
            None => self.body.insert_operation(0, operation),
        };
        self.last_inserted = Some(inserted);
    }

    fn find(&self, name: &[u8]) -> Option<OperationRef<'c, 'a>> {
        let mut next = self.body.first_operation();
        while let Some(operation) = next {
            if symbol_name(operation) == Some(name) {
                return Some(operation);
            }
            next = operation.next_in_block();
        }
        None
    }
}

/// What a launch site fixes (`executor_abi::launch_site::DESCRIPTION`):
/// launches with equal descriptions share a site.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SiteDescription {
    pub entry_symbol: Vec<u8>,
    pub object: Vec<u8>,
    pub inputs: SiteDescriptors,
    pub outputs: SiteDescriptors,
    /// Each result type's sizes in order, `launch_site::DYNAMIC_SIZE` where
    /// dynamic.
    pub output_sizes: Vec<i64>,
}

/// The rank and element size of each input (or each result) of a launch.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SiteDescriptors {
    pub ranks: Vec<i64>,
    pub elem_sizes: Vec<i64>,
}

/// What the lowering sets a field of a launch site to.
enum SiteField {
    /// The address of a global of the module.
    Global(String),
    Count(i64),
}

/// How a global added by the lowering is initialized.
enum Initial<'c> {
    Value(Attribute<'c>),
    Region(Region<'c>),
}

/// What a global added by the lowering is.
#[derive(Clone, Copy)]
enum GlobalKind {
    /// Read-only data (strings, arrays of ranks and sizes).
    Constant,
    /// A launch site, whose cache the runtime writes.
    LaunchSite,
}

/// The body block of a symbol table op.
pub fn table_body<'c, 'a>(table: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    table.region(0).ok()?.first_block()
}

/// The symbol name of `operation`, if it defines one.
pub fn symbol_name<'c>(operation: OperationRef<'c, '_>) -> Option<&'c [u8]> {
    let attribute = operation.attribute("sym_name").ok()?;
    StringAttribute::try_from(attribute)
        .ok()
        .map(ir::string_bytes)
}

/// A readable piece of a symbol name: letters, digits and `_`, at most 40 of them.
/// A character that is not valid UTF-8 counts as one.
fn sanitize(text: &[u8]) -> String {
    String::from_utf8_lossy(text)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_keeps_identifier_characters_only() {
        assert_eq!(sanitize(b"127.0.0.1:9000"), "127_0_0_1_9000");
        assert_eq!(sanitize(b"kernels.o"), "kernels_o");
        assert_eq!(sanitize(&[b'x'; 100]).len(), 40);
        assert_eq!(sanitize(b"\xff"), "_");
    }
}
