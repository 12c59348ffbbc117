//! The lowerings of kernel launches, synchronous and asynchronous, and of
//! the await of an asynchronous one.

use executor_abi::{EntryConvention, functions, launch_site};
use melior::ir::{Type, Value, ValueLike};

use super::{
    lowering::{LaunchFrame, Lowering, generated},
    memrefs::{dim_sizes, memref_element_size, memref_rank},
};
use crate::{
    dialect::executor,
    passes::{
        executor_ops::Borrowed,
        ir,
        llvm_builder::Emitter,
        module_symbols::{SiteDescription, SiteDescriptors},
    },
};

/// How a launch passes what its op fixes.
enum FixedArguments<'c, 'a> {
    /// In its launch site, at this address (`LAUNCH_AT_SITE`).
    Site(Value<'c, 'a>),
    /// As arguments (`LAUNCH`): the entry's and object's strings here, the
    /// counts and arrays made at the call.
    Strings {
        entry: Value<'c, 'a>,
        object: Value<'c, 'a>,
    },
}

impl<'c, 'a> Lowering<'c, 'a> {
    //===------------------------------------------------------------------===//
    // executor.launch -> __executor__launch_at_site (__catalyst__executor__launch
    //                   under Catalyst's entry convention)
    //===------------------------------------------------------------------===//

    /// Each input's descriptor is stored into its slot, the runtime gets the
    /// arrays of pointers to the input and result slots, and the results are
    /// read back from their filled slots. What else a launch passes (entry,
    /// object, counts, and constant arrays of ranks and element sizes) is
    /// fixed by the op: under the default entry convention it sits in the
    /// launch site (`executor_abi::launch_site`) that the launches of a
    /// kernel, object and signature share, and the call to `LAUNCH_AT_SITE`
    /// passes only the site, the session and the two arrays, so that every
    /// argument travels in a register; the site's cache lets the runtime call
    /// the resolved entry directly from the second launch on. Code lowered
    /// for Catalyst's convention calls Catalyst's `LAUNCH`, which Catalyst's
    /// runtime has too, with every argument.
    pub(super) fn lower_launch(
        &mut self,
        at: &Emitter<'c, 'a>,
        launch: &Borrowed<'c, 'a, executor::LaunchOperation<'c>>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let session = launch.anchor(generated(launch.session())?);
        let callee = ir::string_bytes(generated(launch.kernel_callee())?);
        let object = ir::string_bytes(generated(launch.object())?);

        let inputs: Vec<Value> = launch.inputs().map(|input| launch.anchor(input)).collect();
        let input_types: Vec<Type> = inputs.iter().map(|value| value.r#type()).collect();
        let result_types: Vec<Type> = launch.results().map(|result| result.r#type()).collect();
        let description = SiteDescription {
            entry_symbol: self.convention.entry_symbol(callee),
            object: object.to_vec(),
            inputs: site_descriptors(&input_types),
            outputs: site_descriptors(&result_types),
            output_sizes: result_types
                .iter()
                .filter_map(|result| dim_sizes(*result))
                .flatten()
                .map(|size| size.unwrap_or(launch_site::DYNAMIC_SIZE))
                .collect(),
        };
        // The addresses first, so that the prologue lists them before the frame.
        let fixed = match self.convention {
            EntryConvention::MlirCInterface => {
                let site = self.symbols().launch_site(callee, &description);
                FixedArguments::Site(self.prologue(at).address_of(&site))
            }
            EntryConvention::CatalystPyface => FixedArguments::Strings {
                entry: self.string(at, &description.entry_symbol),
                object: self.string(at, object),
            },
        };
        let frame = self.launch_frame(at, &input_types, &result_types);
        for ((input, input_type), slot) in inputs.iter().zip(&input_types).zip(&frame.input_slots) {
            let descriptor = at.cast(*input, self.descriptor_type(*input_type));
            at.store(descriptor, *slot);
        }
        match fixed {
            FixedArguments::Site(site) => {
                let operands = [site, session, frame.input_array, frame.output_array];
                self.call(at, &functions::LAUNCH_AT_SITE, &operands)?;
            }
            FixedArguments::Strings { entry, object } => {
                let mut operands = vec![session, entry, object];
                for (descriptors, array) in [
                    (&description.inputs, frame.input_array),
                    (&description.outputs, frame.output_array),
                ] {
                    operands.extend([
                        self.constant(at, self.types.i64, descriptors.ranks.len() as i64),
                        array,
                        self.i64_array(at, &descriptors.ranks),
                        self.i64_array(at, &descriptors.elem_sizes),
                    ]);
                }
                self.call(at, &functions::LAUNCH, &operands)?;
            }
        }

        Ok(result_types
            .iter()
            .zip(&frame.output_slots)
            .map(|(result_type, slot)| {
                let descriptor = at.load(*slot, self.descriptor_type(*result_type));
                at.cast(descriptor, *result_type)
            })
            .collect())
    }

    /// The slots of launches with these input and result types in the scope of `at`.
    fn launch_frame(
        &mut self,
        at: &Emitter<'c, 'a>,
        input_types: &[Type<'c>],
        result_types: &[Type<'c>],
    ) -> LaunchFrame<'c, 'a> {
        let inputs: Vec<Type> = input_types
            .iter()
            .map(|t| self.descriptor_type(*t))
            .collect();
        let outputs: Vec<Type> = result_types
            .iter()
            .map(|t| self.descriptor_type(*t))
            .collect();
        let key = (at.prologue.key(), inputs, outputs);
        if let Some(frame) = self.launch_frames.get(&key) {
            return frame.clone();
        }
        let prologue = self.prologue(at);
        let mut slots_and_array = |descriptors: &[Type<'c>]| {
            let slots: Vec<Value> = descriptors
                .iter()
                .map(|descriptor| prologue.alloca(*descriptor))
                .collect();
            let array = if slots.is_empty() {
                prologue.null()
            } else {
                prologue.pointer_array(&slots)
            };
            (slots, array)
        };
        let (input_slots, input_array) = slots_and_array(&key.1);
        let (output_slots, output_array) = slots_and_array(&key.2);
        let frame = LaunchFrame {
            input_slots,
            output_slots,
            input_array,
            output_array,
        };
        self.launch_frames.insert(key, frame.clone());
        frame
    }

    //===------------------------------------------------------------------===//
    // executor.launch_async -> __catalyst__executor__launch_async
    //===------------------------------------------------------------------===//

    pub(super) fn lower_launch_async(
        &mut self,
        at: &Emitter<'c, 'a>,
        launch: &Borrowed<'c, 'a, executor::LaunchAsyncOperation<'c>>,
    ) -> Result<Value<'c, 'a>, String> {
        let session = launch.anchor(generated(launch.session())?);
        let callee = ir::string_bytes(generated(launch.kernel_callee())?);
        let entry = self.string(at, &self.convention.async_entry_symbol(callee));
        let object = self.string_of(at, generated(launch.object())?);
        self.call_with_result(at, &functions::LAUNCH_ASYNC, &[session, entry, object])
    }

    //===------------------------------------------------------------------===//
    // executor.await -> __catalyst__executor__await
    //===------------------------------------------------------------------===//

    pub(super) fn lower_await(
        &mut self,
        at: &Emitter<'c, 'a>,
        wait: &Borrowed<'c, 'a, executor::AwaitOperation<'c>>,
    ) -> Result<(), String> {
        let token = wait.anchor(generated(wait.token())?);
        self.call(at, &functions::AWAIT, &[token])?;
        Ok(())
    }
}

/// The ranks and element sizes of memrefs of `types`, as a launch passes them.
fn site_descriptors(types: &[Type<'_>]) -> SiteDescriptors {
    SiteDescriptors {
        ranks: types.iter().map(|t| memref_rank(*t) as i64).collect(),
        elem_sizes: types.iter().map(|t| memref_element_size(*t)).collect(),
    }
}
