//! Executor addresses: `local` (also `local:` and `local:<name>`) for the
//! executor embedded in this process, `<host>:<port>` for an executor-server.
//! Their syntax is defined once, in executor_abi, which the compiler's session
//! analysis parses them with too.

pub use executor_abi::address::Address;

use crate::error::{Result, RuntimeError};

/// The address `text` names, or the error that lists the accepted forms.
pub fn parse(text: &str) -> Result<Address> {
    Address::parse(text).ok_or_else(|| RuntimeError::InvalidAddress(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_form_names_the_accepted_ones() {
        // Which forms are rejected is executor_abi::address's to test; here,
        // what the error says.
        let error = parse("localhost").unwrap_err().to_string();
        assert!(
            error.contains("'local', 'local:<name>' or '<host>:<port>'"),
            "{error}"
        );
    }
}
