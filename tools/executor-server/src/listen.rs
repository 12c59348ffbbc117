//! The listen address, and whether it only reaches this machine.

use std::{
    net::{SocketAddr, ToSocketAddrs},
    path::PathBuf,
};

use executor_abi::address::Address;

use crate::ServerError;

/// What a listen address names.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The addresses of a `host:port`.
    Tcp(Vec<SocketAddr>),
    /// The socket file of a `unix:<path>`.
    Unix(PathBuf),
}

/// Resolves `host:port` to the addresses to bind, or takes `unix:<path>`'s
/// path (the syntax `executor.open` takes).
pub(crate) fn resolve(address: &str) -> Result<Resolved, ServerError> {
    let bad = |reason: String| ServerError::BadListenAddress {
        address: address.to_owned(),
        reason,
    };
    if let Some(Address::Unix { path }) = Address::parse(address) {
        return Ok(Resolved::Unix(path));
    }
    if address.starts_with("unix:") && !address.starts_with("unix:/") {
        return Err(bad(
            "a socket file's path must be absolute (expected unix:<absolute path>)".to_owned(),
        ));
    }
    resolve_tcp(address).map(Resolved::Tcp).map_err(bad)
}

/// The addresses `host:port` resolves to; the error is the reason.
fn resolve_tcp(address: &str) -> Result<Vec<SocketAddr>, String> {
    let addresses: Vec<SocketAddr> = address
        .to_socket_addrs()
        .map_err(|error| format!("{error} (expected <host>:<port> or unix:<path>)"))?
        .collect();
    if addresses.is_empty() {
        return Err("it resolves to no address".to_owned());
    }
    Ok(addresses)
}

/// Whether every address is a loopback one (127.0.0.0/8, ::1), reachable from
/// this machine only: the only kind served without a token.
pub fn is_loopback_only(addresses: &[SocketAddr]) -> bool {
    !addresses.is_empty() && addresses.iter().all(|address| address.ip().is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addresses(texts: &[&str]) -> Vec<SocketAddr> {
        texts.iter().map(|text| text.parse().unwrap()).collect()
    }

    #[test]
    fn only_loopback_addresses_are_loopback_only() {
        assert!(is_loopback_only(&addresses(&["127.0.0.1:9000"])));
        assert!(is_loopback_only(&addresses(&[
            "127.8.9.10:0",
            "[::1]:9000"
        ])));
        assert!(!is_loopback_only(&addresses(&["0.0.0.0:9000"])));
        assert!(!is_loopback_only(&addresses(&["[::]:9000"])));
        assert!(!is_loopback_only(&addresses(&[
            "127.0.0.1:9000",
            "10.0.0.1:9000"
        ])));
        assert!(!is_loopback_only(&[]));
    }

    #[test]
    fn resolving_checks_the_form() {
        assert_eq!(
            resolve("127.0.0.1:0").unwrap(),
            Resolved::Tcp(addresses(&["127.0.0.1:0"]))
        );
        let Resolved::Tcp(local) = resolve("localhost:0").unwrap() else {
            panic!("localhost is TCP")
        };
        assert!(local.iter().all(|a| a.ip().is_loopback()));
        assert_eq!(
            resolve("unix:/run/x//s.sock").unwrap(),
            Resolved::Unix("/run/x/s.sock".into())
        );
        let error = resolve("no-port").unwrap_err().to_string();
        assert!(error.contains("<host>:<port> or unix:<path>"), "{error}");
        let error = resolve("unix:relative.sock").unwrap_err().to_string();
        assert!(error.contains("must be absolute"), "{error}");
    }
}
