//! A certificate's SHA-256 fingerprint, written `sha256:` and 64 hex digits:
//! what `executor-server --gen-identity` and `--check` print, and what a
//! client pins with `tls_fingerprint` in its configuration file.

use std::{fmt, str::FromStr};

use thiserror::Error;

/// The SHA-256 digest of a certificate's DER bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

const PREFIX: &str = "sha256:";

impl Fingerprint {
    /// The fingerprint of the certificate whose DER encoding is `der`.
    pub fn of_certificate(der: &[u8]) -> Self {
        let digest = ring::digest::digest(&ring::digest::SHA256, der);
        let mut bytes = [0; 32];
        bytes.copy_from_slice(digest.as_ref());
        Self(bytes)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(PREFIX)?;
        self.0
            .iter()
            .try_for_each(|byte| write!(formatter, "{byte:02x}"))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, formatter)
    }
}

/// A text that is not `sha256:` and 64 hex digits.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("invalid fingerprint '{0}': expected sha256: and 64 hex digits")]
pub struct InvalidFingerprint(pub String);

impl FromStr for Fingerprint {
    type Err = InvalidFingerprint;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidFingerprint(text.to_owned());
        let hex = text.strip_prefix(PREFIX).ok_or_else(invalid)?;
        if hex.len() != 64 || !hex.is_ascii() {
            return Err(invalid());
        }
        let mut bytes = [0; 32];
        for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).map_err(|_| invalid())?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| invalid())?;
        }
        Ok(Self(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_reads_back_as_it_is_written() {
        let fingerprint = Fingerprint::of_certificate(b"not really DER");
        let text = fingerprint.to_string();
        assert!(
            text.starts_with("sha256:") && text.len() == 7 + 64,
            "{text}"
        );
        assert_eq!(text.parse(), Ok(fingerprint));
        assert_eq!(
            text.to_uppercase().replace("SHA256:", "sha256:").parse(),
            Ok(fingerprint)
        );
    }

    #[test]
    fn the_digest_is_sha256() {
        // SHA-256 of the empty string.
        assert_eq!(
            Fingerprint::of_certificate(b"").to_string(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn other_texts_are_refused_by_name() {
        for text in [
            "",
            "sha256:",
            "md5:00",
            "sha256:xyz",
            &format!("sha256:{}", "0".repeat(63)),
            &format!("sha256:{}+", "0".repeat(63)),
        ] {
            let error = text.parse::<Fingerprint>().unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("invalid fingerprint '{text}': expected sha256: and 64 hex digits")
            );
        }
    }
}
