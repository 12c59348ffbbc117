//! The server's TLS identity: its certificate chain and private key, read
//! from the PEM files `--tls-cert` and `--tls-key` name, or made by
//! `--gen-identity DIR` as a self-signed certificate that clients pin by its
//! fingerprint.

use std::{
    fs::{self, OpenOptions},
    io::{self, Write},
    os::unix::fs::{DirBuilderExt, OpenOptionsExt},
    path::{Path, PathBuf},
};

use executor_protocol::Fingerprint;
use rustls::pki_types::{
    CertificateDer, PrivateKeyDer,
    pem::{self, PemObject},
};
use thiserror::Error;

/// The files `--gen-identity DIR` writes in `DIR`.
pub const CERT_FILE: &str = "cert.pem";
pub const KEY_FILE: &str = "key.pem";

#[derive(Debug, Error)]
pub enum IdentityError {
    #[error("cannot write the identity in '{}'", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot make a certificate")]
    Generate(#[from] rcgen::Error),
    #[error("cannot read the TLS certificate '{}'", path.display())]
    Certificate {
        path: PathBuf,
        #[source]
        source: pem::Error,
    },
    #[error("the TLS certificate file '{}' holds no certificate", path.display())]
    NoCertificate { path: PathBuf },
    #[error("cannot read the TLS key '{}'", path.display())]
    Key {
        path: PathBuf,
        #[source]
        source: pem::Error,
    },
}

/// A certificate chain, its key, and the fingerprint of its first (the
/// server's own) certificate.
pub struct Identity {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
    pub fingerprint: Fingerprint,
}

/// Writes a new self-signed certificate for `names` and its key into `dir`
/// (made, private, if missing), refusing to replace an identity there;
/// returns the certificate's fingerprint.
pub fn generate(dir: &Path, names: Vec<String>) -> Result<Fingerprint, IdentityError> {
    let failed = |path: &Path| {
        let path = path.to_owned();
        move |source| IdentityError::Write { path, source }
    };
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(failed(dir))?;
    let certified = rcgen::generate_simple_self_signed(names)?;
    // The key first, created private: never a moment readable by others,
    // and never over an existing identity.
    let key_path = dir.join(KEY_FILE);
    write_new(
        &key_path,
        0o600,
        certified.key_pair.serialize_pem().as_bytes(),
    )
    .map_err(failed(&key_path))?;
    let cert_path = dir.join(CERT_FILE);
    write_new(&cert_path, 0o644, certified.cert.pem().as_bytes()).map_err(failed(&cert_path))?;
    Ok(Fingerprint::of_certificate(certified.cert.der()))
}

/// Creates `path` with `mode`, failing if it exists, and writes `bytes`.
fn write_new(path: &Path, mode: u32, bytes: &[u8]) -> io::Result<()> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?
        .write_all(bytes)
}

/// Reads the certificate chain at `cert` and the private key at `key`.
pub fn load(cert: &Path, key: &Path) -> Result<Identity, IdentityError> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|source| IdentityError::Certificate {
            path: cert.to_owned(),
            source,
        })?;
    let Some(own) = chain.first() else {
        return Err(IdentityError::NoCertificate {
            path: cert.to_owned(),
        });
    };
    let fingerprint = Fingerprint::of_certificate(own);
    let key = PrivateKeyDer::from_pem_file(key).map_err(|source| IdentityError::Key {
        path: key.to_owned(),
        source,
    })?;
    Ok(Identity {
        chain,
        key,
        fingerprint,
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_generated_identity_loads_with_the_fingerprint_printed() {
        let dir = tempfile::tempdir().unwrap();
        let identity_dir = dir.path().join("identity");
        let printed = generate(&identity_dir, vec!["localhost".to_owned()]).unwrap();
        let identity = load(&identity_dir.join(CERT_FILE), &identity_dir.join(KEY_FILE)).unwrap();
        assert_eq!(identity.fingerprint, printed);
        assert_eq!(identity.chain.len(), 1);
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&identity_dir), 0o700);
        assert_eq!(mode(&identity_dir.join(KEY_FILE)), 0o600);
    }

    #[test]
    fn an_existing_identity_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let first = generate(dir.path(), vec!["localhost".to_owned()]).unwrap();
        let error = generate(dir.path(), vec!["localhost".to_owned()]).unwrap_err();
        assert!(error.to_string().contains("key.pem"), "{error}");
        assert!(
            matches!(&error, IdentityError::Write { source, .. } if source.kind() == io::ErrorKind::AlreadyExists),
            "{error:?}"
        );
        let kept = load(&dir.path().join(CERT_FILE), &dir.path().join(KEY_FILE)).unwrap();
        assert_eq!(kept.fingerprint, first);
    }

    #[test]
    fn unreadable_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nothing.pem");
        let error = load(&missing, &missing).err().unwrap().to_string();
        assert!(
            error.starts_with("cannot read the TLS certificate '"),
            "{error}"
        );
        assert!(error.contains("nothing.pem"), "{error}");
        let empty = dir.path().join("empty.pem");
        fs::write(&empty, "").unwrap();
        let error = load(&empty, &missing).err().unwrap().to_string();
        assert!(error.contains("holds no certificate"), "{error}");
    }
}
