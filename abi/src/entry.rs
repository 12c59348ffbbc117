//! The symbol `executor.launch` and `executor.launch_async` run for a kernel,
//! and how it is called.

/// How a kernel's entry is named and called (the pass option
/// `entry-convention`). The discriminants cross the C boundary between the
/// pass's C++ shell and its Rust body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum EntryConvention {
    /// The default. `void _mlir_ciface_<kernel>(results *, inputs *...)`: the wrapper
    /// `llvm.emit_c_interface` makes, one pointer per input descriptor.
    #[default]
    MlirCInterface = 0,
    /// Catalyst's `void _catalyst_pyface_<kernel>(results *, args *)`, `args`
    /// an array of pointers to the input descriptors.
    CatalystPyface = 1,
}

impl EntryConvention {
    /// Every convention, in the order of their discriminants.
    pub const ALL: [Self; 2] = [Self::MlirCInterface, Self::CatalystPyface];

    /// The value of the pass option that selects this convention.
    pub const fn option_value(self) -> &'static str {
        match self {
            Self::MlirCInterface => "mlir-ciface",
            Self::CatalystPyface => "catalyst-pyface",
        }
    }

    /// What the option value means, for `--help`.
    pub const fn description(self) -> &'static str {
        match self {
            Self::MlirCInterface => {
                "_mlir_ciface_<kernel>(results, inputs...), the wrapper of llvm.emit_c_interface"
            }
            Self::CatalystPyface => "Catalyst's _catalyst_pyface_<kernel>(results, args)",
        }
    }

    /// The prefix that turns a kernel's name into its entry symbol.
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::MlirCInterface => "_mlir_ciface_",
            Self::CatalystPyface => "_catalyst_pyface_",
        }
    }

    /// The identifier of the C++ enumerator generated for this convention.
    pub const fn cpp_name(self) -> &'static str {
        match self {
            Self::MlirCInterface => "MlirCInterface",
            Self::CatalystPyface => "CatalystPyface",
        }
    }

    /// The entry symbol `executor.launch` runs for `kernel`.
    pub fn entry_symbol(self, kernel: &[u8]) -> Vec<u8> {
        [self.prefix().as_bytes(), kernel].concat()
    }

    /// The entry symbol `executor.launch_async` runs for `kernel`, which has
    /// no arguments: the kernel itself (`void kernel(void)`) by default, and
    /// Catalyst's `_catalyst_pyface_<kernel>`, called with two null pointers,
    /// under Catalyst's convention.
    pub fn async_entry_symbol(self, kernel: &[u8]) -> Vec<u8> {
        match self {
            Self::MlirCInterface => kernel.to_vec(),
            Self::CatalystPyface => self.entry_symbol(kernel),
        }
    }

    /// The convention an entry symbol follows, told by its prefix; None for a
    /// symbol of neither (a plain function).
    pub fn of_entry_symbol(symbol: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|convention| symbol.starts_with(convention.prefix()))
    }

    /// The convention whose discriminant is `value`.
    pub fn from_discriminant(value: u32) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|convention| *convention as u32 == value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_convention_round_trips_through_its_symbol_and_discriminant() {
        for convention in EntryConvention::ALL {
            let symbol = String::from_utf8(convention.entry_symbol(b"saxpy")).unwrap();
            assert_eq!(EntryConvention::of_entry_symbol(&symbol), Some(convention));
            assert_eq!(
                EntryConvention::from_discriminant(convention as u32),
                Some(convention)
            );
        }
        assert_eq!(EntryConvention::of_entry_symbol("saxpy"), None);
        assert_eq!(EntryConvention::from_discriminant(2), None);
    }

    #[test]
    fn async_entries_are_bare_except_under_catalyst_convention() {
        assert_eq!(
            EntryConvention::MlirCInterface.async_entry_symbol(b"k"),
            b"k"
        );
        assert_eq!(
            EntryConvention::CatalystPyface.async_entry_symbol(b"k"),
            b"_catalyst_pyface_k"
        );
    }

    #[test]
    fn option_values_and_prefixes_are_distinct() {
        let [a, b] = EntryConvention::ALL;
        assert_ne!(a.option_value(), b.option_value());
        assert!(!a.prefix().starts_with(b.prefix()) && !b.prefix().starts_with(a.prefix()));
    }
}
