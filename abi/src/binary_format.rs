//! What `executor.send_binary`'s `format` says the file is, and so what the
//! executor does with it.

use std::fmt;

/// The values of `__catalyst__executor__send_binary`'s `format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u32)]
pub enum BinaryFormat {
    /// 0: a relocatable object file, JIT-linked; its symbols serve launches.
    RelocatableObject = 0,
    /// 1: an asset, as in Catalyst: stored on the executor under its base
    /// name, not loaded.
    Asset = 1,
    /// 2: a shared library, opened with `dlopen`; its symbols serve launches
    /// and calls.
    SharedLibrary = 2,
}

impl BinaryFormat {
    /// Every format, in the order of their values.
    pub const ALL: [Self; 3] = [Self::RelocatableObject, Self::Asset, Self::SharedLibrary];

    /// The format whose value is `format`.
    pub fn from_abi(format: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|known| *known as u32 == format)
    }

    /// What the format is, as messages and the verifier name it.
    pub const fn description(self) -> &'static str {
        match self {
            Self::RelocatableObject => "object file",
            Self::Asset => "asset",
            Self::SharedLibrary => "shared library",
        }
    }
}

impl fmt::Display for BinaryFormat {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.description())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_others_are_unknown() {
        for format in BinaryFormat::ALL {
            assert_eq!(BinaryFormat::from_abi(format as u32), Some(format));
        }
        assert_eq!(BinaryFormat::from_abi(3), None);
        assert_eq!(BinaryFormat::from_abi(u32::MAX), None);
    }
}
