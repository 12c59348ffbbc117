//! Token files, read the same way by the server (`--token-file`) and the
//! client (`EXECUTOR_TOKEN_FILE`).

use std::{io, path::Path};

/// Reads a token file as both ends do: surrounding whitespace (a trailing
/// newline, say) is not part of the token, and an empty token is an error.
pub fn read_token_file(path: &Path) -> io::Result<String> {
    let token = std::fs::read_to_string(path)?.trim().to_owned();
    if token.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the token file is empty",
        ));
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_files_are_trimmed_and_must_not_be_empty() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("token");
        std::fs::write(&path, "  s3cret\n").unwrap();
        assert_eq!(read_token_file(&path).unwrap(), "s3cret");
        std::fs::write(&path, "\n").unwrap();
        assert!(read_token_file(&path).is_err());
    }
}
