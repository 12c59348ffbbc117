//! The listen address, and whether it only reaches this machine.

use std::net::{SocketAddr, ToSocketAddrs};

use crate::ServerError;

/// Resolves `host:port` to the addresses to bind.
pub(crate) fn resolve(address: &str) -> Result<Vec<SocketAddr>, ServerError> {
    let bad = |reason: String| ServerError::BadListenAddress {
        address: address.to_owned(),
        reason,
    };
    let addresses: Vec<SocketAddr> = address
        .to_socket_addrs()
        .map_err(|error| bad(format!("{error} (expected <host>:<port>)")))?
        .collect();
    if addresses.is_empty() {
        return Err(bad("it resolves to no address".to_owned()));
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
        assert_eq!(resolve("127.0.0.1:0").unwrap(), addresses(&["127.0.0.1:0"]));
        assert!(
            resolve("localhost:0")
                .unwrap()
                .iter()
                .all(|a| a.ip().is_loopback())
        );
        let error = resolve("no-port").unwrap_err().to_string();
        assert!(error.contains("<host>:<port>"), "{error}");
    }
}
