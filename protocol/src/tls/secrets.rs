//! The continued session as it crosses the control channel: the cipher suite,
//! and for each direction the AEAD key, the IV and the next record's sequence
//! number, from rustls's `ExtractedSecrets`.
//!
//! The key bytes are zeroized when dropped and never printed by `Debug`. The
//! encoded form (postcard) holds them in clear: the channel it crosses is the
//! supervisor's own socket to its worker, and the buffer it was encoded into
//! is the sender's to clear.

use std::fmt;

use rustls::crypto::cipher::{
    AeadKey, Iv, MessageDecrypter, MessageEncrypter, NONCE_LEN, Tls13AeadAlgorithm,
};
use rustls::crypto::ring::cipher_suite::{
    TLS13_AES_128_GCM_SHA256, TLS13_AES_256_GCM_SHA384, TLS13_CHACHA20_POLY1305_SHA256,
};
use rustls::crypto::tls13::{HkdfExpander, OkmBlock, OutputLengthError};
use rustls::{CipherSuite, ConnectionTrafficSecrets, ExtractedSecrets, SupportedCipherSuite};
use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, ZeroizeOnDrop};

use super::error::TlsSessionError;

/// The TLS 1.3 cipher suites of rustls's ring provider: the ones a session
/// can be continued in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TlsSuite {
    Aes128GcmSha256,
    Aes256GcmSha384,
    Chacha20Poly1305Sha256,
}

impl TlsSuite {
    /// Every suite, for tests and for configurations that name them.
    pub const ALL: [TlsSuite; 3] = [
        TlsSuite::Aes128GcmSha256,
        TlsSuite::Aes256GcmSha384,
        TlsSuite::Chacha20Poly1305Sha256,
    ];

    /// The suite rustls negotiated, if it is one of these.
    pub fn from_rustls(suite: SupportedCipherSuite) -> Result<Self, TlsSessionError> {
        match suite.suite() {
            CipherSuite::TLS13_AES_128_GCM_SHA256 => Ok(TlsSuite::Aes128GcmSha256),
            CipherSuite::TLS13_AES_256_GCM_SHA384 => Ok(TlsSuite::Aes256GcmSha384),
            CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => Ok(TlsSuite::Chacha20Poly1305Sha256),
            other => Err(TlsSessionError::UnsupportedSuite(format!("{other:?}"))),
        }
    }

    /// The ring provider's implementation of the suite.
    pub fn to_rustls(self) -> SupportedCipherSuite {
        match self {
            TlsSuite::Aes128GcmSha256 => TLS13_AES_128_GCM_SHA256,
            TlsSuite::Aes256GcmSha384 => TLS13_AES_256_GCM_SHA384,
            TlsSuite::Chacha20Poly1305Sha256 => TLS13_CHACHA20_POLY1305_SHA256,
        }
    }

    /// How many records may be sent under one key: past it, a TLS 1.3
    /// sender must update its keys (RFC 8446, section 5.5).
    pub fn confidentiality_limit(self) -> u64 {
        self.to_rustls()
            .tls13()
            .map_or(u64::MAX, |suite| suite.common.confidentiality_limit)
    }

    /// The suite's name as IANA spells it.
    pub fn name(self) -> &'static str {
        match self {
            TlsSuite::Aes128GcmSha256 => "TLS13_AES_128_GCM_SHA256",
            TlsSuite::Aes256GcmSha384 => "TLS13_AES_256_GCM_SHA384",
            TlsSuite::Chacha20Poly1305Sha256 => "TLS13_CHACHA20_POLY1305_SHA256",
        }
    }

    fn aead(self) -> &'static dyn Tls13AeadAlgorithm {
        self.to_rustls()
            .tls13()
            .expect("the ring provider's TLS13_* suites are TLS 1.3 suites")
            .aead_alg
    }
}

/// One direction's record protection: the AEAD key and IV, and the sequence
/// number of the next record in that direction.
#[derive(Serialize, Deserialize, Zeroize, ZeroizeOnDrop)]
pub struct TrafficKeys {
    sequence: u64,
    key: Vec<u8>,
    iv: [u8; NONCE_LEN],
}

impl TrafficKeys {
    pub fn new(sequence: u64, key: Vec<u8>, iv: [u8; NONCE_LEN]) -> Self {
        Self { sequence, key, iv }
    }

    /// The sequence number of the next record in this direction.
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The key as rustls takes it, checked to be the suite's length (ring
    /// would panic on another).
    fn aead_key(&self, suite: TlsSuite) -> Result<AeadKey, TlsSessionError> {
        let aead = suite.aead();
        if self.key.len() != aead.key_len() {
            return Err(TlsSessionError::KeyLength {
                suite: suite.name(),
                expected: aead.key_len(),
                actual: self.key.len(),
            });
        }
        // rustls builds an `AeadKey` shorter than its 32-byte maximum (the
        // 16 bytes of AES-128) only through its own key derivation: the
        // shortening `AeadKey::with_length` is crate-private. So the key is
        // made by rustls's `derive_traffic_key`, from an "expander" that
        // expands to these very bytes; no key schedule or AEAD of ours.
        Ok(rustls::internal::derive_traffic_key(
            &VerbatimExpander(&self.key),
            aead,
        ))
    }

    fn iv(&self) -> Iv {
        Iv::from(self.iv)
    }
}

/// An `HkdfExpander` whose output is the given bytes themselves (then zeros),
/// whatever is asked: the one way to hand rustls a key of a given length.
struct VerbatimExpander<'a>(&'a [u8]);

impl HkdfExpander for VerbatimExpander<'_> {
    fn expand_slice(&self, _info: &[&[u8]], output: &mut [u8]) -> Result<(), OutputLengthError> {
        let (key, rest) = output
            .split_at_mut_checked(self.0.len())
            .ok_or(OutputLengthError)?;
        key.copy_from_slice(self.0);
        rest.fill(0);
        Ok(())
    }

    fn expand_block(&self, _info: &[&[u8]]) -> OkmBlock {
        OkmBlock::new(self.0)
    }

    fn hash_len(&self) -> usize {
        self.0.len()
    }
}

/// A TLS 1.3 session's record protection in both directions, as the
/// supervisor extracts it from rustls and the worker continues it.
#[derive(Serialize, Deserialize)]
pub struct TlsSessionSecrets {
    suite: TlsSuite,
    /// What this side sends (the server's traffic keys, for a server).
    tx: TrafficKeys,
    /// What this side receives.
    rx: TrafficKeys,
}

impl TlsSessionSecrets {
    pub fn new(suite: TlsSuite, tx: TrafficKeys, rx: TrafficKeys) -> Self {
        Self { suite, tx, rx }
    }

    /// Takes rustls's extracted secrets of a session in `suite` (the
    /// connection's `negotiated_cipher_suite()`), checking that both
    /// directions are of that suite's AEAD.
    pub fn from_extracted(
        suite: SupportedCipherSuite,
        secrets: ExtractedSecrets,
    ) -> Result<Self, TlsSessionError> {
        let suite = TlsSuite::from_rustls(suite)?;
        let ExtractedSecrets {
            tx: (tx_sequence, tx),
            rx: (rx_sequence, rx),
        } = secrets;
        Ok(Self {
            suite,
            tx: traffic_keys(suite, tx_sequence, tx)?,
            rx: traffic_keys(suite, rx_sequence, rx)?,
        })
    }

    pub fn suite(&self) -> TlsSuite {
        self.suite
    }

    pub fn tx(&self) -> &TrafficKeys {
        &self.tx
    }

    pub fn rx(&self) -> &TrafficKeys {
        &self.rx
    }

    /// The same session with the next record sent numbered `tx_sequence`:
    /// how the supervisor sends a last record after its worker, which sent
    /// the records since the handover, died.
    pub fn with_tx_sequence(&self, tx_sequence: u64) -> Self {
        let copy =
            |keys: &TrafficKeys, sequence| TrafficKeys::new(sequence, keys.key.clone(), keys.iv);
        Self {
            suite: self.suite,
            tx: copy(&self.tx, tx_sequence),
            rx: copy(&self.rx, self.rx.sequence),
        }
    }

    /// rustls's record encrypter for what this side sends, and the sequence
    /// number of the next record.
    pub(super) fn encrypter(&self) -> Result<(Box<dyn MessageEncrypter>, u64), TlsSessionError> {
        let key = self.tx.aead_key(self.suite)?;
        Ok((
            self.suite.aead().encrypter(key, self.tx.iv()),
            self.tx.sequence,
        ))
    }

    /// rustls's record decrypter for what this side receives, and the
    /// sequence number of the next record.
    pub(super) fn decrypter(&self) -> Result<(Box<dyn MessageDecrypter>, u64), TlsSessionError> {
        let key = self.rx.aead_key(self.suite)?;
        Ok((
            self.suite.aead().decrypter(key, self.rx.iv()),
            self.rx.sequence,
        ))
    }
}

/// One direction of rustls's extracted secrets, checked to be of `suite`.
fn traffic_keys(
    suite: TlsSuite,
    sequence: u64,
    secrets: ConnectionTrafficSecrets,
) -> Result<TrafficKeys, TlsSessionError> {
    let (key, iv) = match (suite, secrets) {
        (TlsSuite::Aes128GcmSha256, ConnectionTrafficSecrets::Aes128Gcm { key, iv })
        | (TlsSuite::Aes256GcmSha384, ConnectionTrafficSecrets::Aes256Gcm { key, iv })
        | (
            TlsSuite::Chacha20Poly1305Sha256,
            ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv },
        ) => (key, iv),
        _ => {
            return Err(TlsSessionError::UnsupportedSuite(format!(
                "{} with secrets of another AEAD",
                suite.name()
            )));
        }
    };
    let iv: [u8; NONCE_LEN] = iv.as_ref().try_into().map_err(|_| {
        TlsSessionError::UnsupportedSuite(format!("{} with a short IV", suite.name()))
    })?;
    Ok(TrafficKeys::new(sequence, key.as_ref().to_vec(), iv))
}

impl fmt::Debug for TrafficKeys {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("TrafficKeys")
            .field("sequence", &self.sequence)
            .field("key", &"<secret>")
            .field("iv", &"<secret>")
            .finish()
    }
}

impl fmt::Debug for TlsSessionSecrets {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("TlsSessionSecrets")
            .field("suite", &self.suite)
            .field("tx", &self.tx)
            .field("rx", &self.rx)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(suite: TlsSuite, key_len: usize) -> TlsSessionSecrets {
        TlsSessionSecrets::new(
            suite,
            TrafficKeys::new(7, vec![0xa5; key_len], [0x5a; NONCE_LEN]),
            TrafficKeys::new(9, vec![0xc3; key_len], [0x3c; NONCE_LEN]),
        )
    }

    #[test]
    fn debug_shows_no_key_or_iv_bytes() {
        let printed = format!("{:?}", secrets(TlsSuite::Aes256GcmSha384, 32));
        assert!(printed.contains("Aes256GcmSha384") && printed.contains("sequence: 9"));
        for byte in ["a5", "165", "5a", "90", "c3", "195", "3c", "60"] {
            assert!(!printed.contains(byte), "{byte} in {printed}");
        }
    }

    #[test]
    fn survives_postcard() {
        let encoded = postcard::to_stdvec(&secrets(TlsSuite::Chacha20Poly1305Sha256, 32)).unwrap();
        let decoded: TlsSessionSecrets = postcard::from_bytes(&encoded).unwrap();
        assert_eq!(decoded.suite(), TlsSuite::Chacha20Poly1305Sha256);
        assert_eq!((decoded.tx.sequence, decoded.rx.sequence), (7, 9));
        assert_eq!((decoded.tx.key[0], decoded.rx.iv[0]), (0xa5, 0x3c));
    }

    #[test]
    fn a_key_of_the_wrong_length_is_refused_not_a_panic() {
        let error = secrets(TlsSuite::Aes128GcmSha256, 32)
            .encrypter()
            .err()
            .unwrap();
        assert!(
            matches!(
                error,
                TlsSessionError::KeyLength {
                    expected: 16,
                    actual: 32,
                    ..
                }
            ),
            "{error}"
        );
        let error = secrets(TlsSuite::Aes256GcmSha384, 16)
            .decrypter()
            .err()
            .unwrap();
        assert!(
            matches!(error, TlsSessionError::KeyLength { .. }),
            "{error}"
        );
    }

    #[test]
    fn suites_map_both_ways() {
        for suite in TlsSuite::ALL {
            assert_eq!(TlsSuite::from_rustls(suite.to_rustls()).unwrap(), suite);
            assert_eq!(format!("{:?}", suite.to_rustls().suite()), suite.name());
        }
    }
}
