//! The server's token: loaded from `--token-file`, compared in constant time.

use std::{os::unix::fs::PermissionsExt, path::Path};

use super::ServerError;
use crate::protocol;

pub(super) fn load(path: &Path) -> Result<String, ServerError> {
    let token = protocol::read_token_file(path).map_err(|error| ServerError::TokenFile {
        path: path.display().to_string(),
        reason: error.to_string(),
    })?;
    if let Ok(metadata) = std::fs::metadata(path)
        && metadata.permissions().mode() & 0o077 != 0
    {
        tracing::warn!(path = %path.display(), "the token file is readable by other users (chmod 600 it)");
    }
    Ok(token)
}

/// Whether `given` is `expected`, taking the same time whatever their
/// contents, so that timing does not tell an attacker how much of a guess was
/// right. (It does depend on the expected token's length.)
pub(super) fn tokens_match(given: &[u8], expected: &[u8]) -> bool {
    let mut difference = given.len() ^ expected.len();
    for (index, expected_byte) in expected.iter().enumerate() {
        let given_byte = given.get(index).copied().unwrap_or(0);
        difference |= usize::from(given_byte ^ expected_byte);
    }
    // Keeps the optimizer from turning the loop into an early exit.
    std::hint::black_box(difference) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_token_matches() {
        assert!(tokens_match(b"s3cret", b"s3cret"));
        assert!(!tokens_match(b"s3creT", b"s3cret"));
        assert!(!tokens_match(b"s3cre", b"s3cret"));
        assert!(!tokens_match(b"s3crets3cret", b"s3cret"));
        assert!(!tokens_match(b"", b"s3cret"));
    }
}
