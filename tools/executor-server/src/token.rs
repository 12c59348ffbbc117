//! The server's token: loaded from `--token-file`, compared in constant time.

use std::{os::unix::fs::PermissionsExt, path::Path};

use crate::ServerError;
use executor_runtime::protocol::{self, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, PROTOCOL_VERSION};

pub(crate) fn load(path: &Path) -> Result<String, ServerError> {
    let refuse = |reason: String| ServerError::TokenFile {
        path: path.display().to_string(),
        reason,
    };
    let token = protocol::read_token_file(path).map_err(|error| refuse(error.to_string()))?;
    let mode = std::fs::metadata(path)
        .map_err(|error| refuse(error.to_string()))?
        .permissions()
        .mode();
    // Whoever can write the token can let anyone in.
    if mode & 0o022 != 0 {
        return Err(refuse(format!(
            "other users can write it (mode {:o}): chmod 600 it",
            mode & 0o777
        )));
    }
    if mode & 0o044 != 0 {
        tracing::warn!(path = %path.display(), "the token file is readable by other users (chmod 600 it)");
    }
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION,
        token: Some(token),
    };
    if let Err(error) = protocol::encode_frame(&hello, HANDSHAKE_MAX_MESSAGE_SIZE) {
        return Err(refuse(format!(
            "the token does not fit in a handshake message, so no client could present it: {error}"
        )));
    }
    Ok(hello.token.expect("set above"))
}

/// Whether `given` is `expected`, taking the same time whatever their
/// contents, so that timing does not tell an attacker how much of a guess was
/// right. (It does depend on the expected token's length.)
pub(crate) fn tokens_match(given: &[u8], expected: &[u8]) -> bool {
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

    fn token_file(contents: &str, mode: u32) -> (tempfile::TempDir, std::path::PathBuf) {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("token");
        std::fs::write(&path, contents).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        (directory, path)
    }

    #[test]
    fn a_token_file_only_its_owner_can_write_is_loaded() {
        for mode in [0o600, 0o400, 0o644] {
            let (_directory, path) = token_file("s3cret\n", mode);
            assert_eq!(load(&path).unwrap(), "s3cret", "mode {mode:o}");
        }
    }

    #[test]
    fn a_token_file_others_can_write_is_refused() {
        for mode in [0o620, 0o602, 0o666] {
            let (_directory, path) = token_file("s3cret\n", mode);
            let error = load(&path).unwrap_err().to_string();
            assert!(error.contains("other users can write it"), "{error}");
            assert!(error.contains(&format!("mode {mode:o}")), "{error}");
        }
    }

    #[test]
    fn a_token_no_hello_can_carry_is_refused() {
        let longest_fitting = HANDSHAKE_MAX_MESSAGE_SIZE as usize - 8;
        let (_directory, path) = token_file(&"t".repeat(longest_fitting), 0o600);
        assert!(load(&path).is_ok());
        let too_long = HANDSHAKE_MAX_MESSAGE_SIZE as usize;
        let (_directory, path) = token_file(&"t".repeat(too_long), 0o600);
        let error = load(&path).unwrap_err().to_string();
        assert!(
            error.contains("does not fit in a handshake message"),
            "{error}"
        );
    }

    #[test]
    fn only_the_same_token_matches() {
        assert!(tokens_match(b"s3cret", b"s3cret"));
        assert!(!tokens_match(b"s3creT", b"s3cret"));
        assert!(!tokens_match(b"s3cre", b"s3cret"));
        assert!(!tokens_match(b"s3crets3cret", b"s3cret"));
        assert!(!tokens_match(b"", b"s3cret"));
    }
}
