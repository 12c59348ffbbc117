//! Executor addresses: `local` (also `local:` and `local:<name>`) for the
//! executor embedded in this process, `<host>:<port>` for an executor-server.

use std::fmt;

use crate::error::{Result, RuntimeError};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    /// The embedded executor; `name` tells separate local executors apart.
    Local { name: String },
    /// An executor-server.
    Remote { host: String, port: u16 },
}

impl Address {
    pub fn parse(text: &str) -> Result<Self> {
        let invalid = || RuntimeError::InvalidAddress(text.to_owned());
        if text == "local" {
            return Ok(Self::Local {
                name: String::new(),
            });
        }
        if let Some(name) = text.strip_prefix("local:") {
            return Ok(Self::Local {
                name: name.to_owned(),
            });
        }
        let (host, port) = text.rsplit_once(':').ok_or_else(invalid)?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(invalid());
        }
        let port = port
            .parse::<u16>()
            .ok()
            .filter(|port| *port != 0)
            .ok_or_else(invalid)?;
        Ok(Self::Remote {
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for Address {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Local { name } if name.is_empty() => write!(formatter, "local"),
            Self::Local { name } => write!(formatter, "local:{name}"),
            Self::Remote { host, port } if host.contains(':') => {
                write!(formatter, "[{host}]:{port}")
            }
            Self::Remote { host, port } => write!(formatter, "{host}:{port}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_forms() {
        assert_eq!(
            Address::parse("local").unwrap(),
            Address::Local {
                name: String::new()
            }
        );
        assert_eq!(
            Address::parse("local:").unwrap(),
            Address::Local {
                name: String::new()
            }
        );
        assert_eq!(
            Address::parse("local:gpu0").unwrap(),
            Address::Local {
                name: "gpu0".into()
            }
        );
        assert_eq!(
            Address::parse("127.0.0.1:9000").unwrap(),
            Address::Remote {
                host: "127.0.0.1".into(),
                port: 9000
            }
        );
        assert_eq!(
            Address::parse("[::1]:9000").unwrap(),
            Address::Remote {
                host: "::1".into(),
                port: 9000
            }
        );
        assert_eq!(
            Address::parse("[::1]:9000").unwrap().to_string(),
            "[::1]:9000"
        );
    }

    #[test]
    fn rejected_forms_name_the_accepted_ones() {
        for text in [
            "",
            "localhost",
            "host:",
            ":9000",
            "host:0",
            "host:99999",
            "a b:1",
        ] {
            let error = Address::parse(text).unwrap_err().to_string();
            assert!(
                error.contains("'local', 'local:<name>' or '<host>:<port>'"),
                "{text}: {error}"
            );
        }
    }
}
