//! Executor addresses, the strings `executor.open` takes: `local` (also
//! `local:` and `local:<name>`) for an executor embedded in the process,
//! `<host>:<port>` for an executor-server, `unix:<path>` for one on this
//! host, `slurm:<index>` for one that the client's configuration file names
//! (executor-slurm writes it). The runtime keeps one session per
//! parsed address (its `open` is idempotent per address), and the compiler's
//! session analysis must tell which `open`s give the same session, so both
//! parse them here.

use std::{
    fmt,
    path::{Component, Path, PathBuf},
};

/// The accepted forms, as error messages list them.
pub const ADDRESS_FORMS: &str =
    "'local', 'local:<name>', '<host>:<port>', 'unix:<absolute path>' or 'slurm:<index>'";

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    /// The embedded executor; `name` tells separate local executors apart.
    Local { name: String },
    /// An executor-server over TCP.
    Remote { host: String, port: u16 },
    /// An executor-server on this host, at the Unix-domain socket `path`
    /// (absolute, its components normalized: `unix:/run//x.sock` and
    /// `unix:/run/x.sock` are one address).
    Unix { path: PathBuf },
    /// The `index`-th executor-server of a Slurm step: its section of the
    /// client's configuration file names its address (`executor-slurm`
    /// writes that file). A session of its own, whatever that address is.
    Slurm { index: u32 },
}

impl Address {
    /// The address `text` names; None when it is none of the accepted forms.
    pub fn parse(text: &str) -> Option<Self> {
        if text == "local" {
            return Some(Self::Local {
                name: String::new(),
            });
        }
        if let Some(name) = text.strip_prefix("local:") {
            return Some(Self::Local {
                name: name.to_owned(),
            });
        }
        // `unix:9000` stays the host `unix`'s port: a socket path is absolute.
        if let Some(path) = text
            .strip_prefix("unix:")
            .filter(|path| path.starts_with('/'))
        {
            return Self::unix(Path::new(path));
        }
        // `slurm:9000` is executor 9000 of a Slurm step; the host `slurm`'s
        // port is `[slurm]:9000`.
        if let Some(index) = text.strip_prefix("slurm:") {
            return index
                .bytes()
                .all(|byte| byte.is_ascii_digit())
                .then(|| index.parse().ok())
                .flatten()
                .map(|index| Self::Slurm { index });
        }
        let (host, port) = text.rsplit_once(':')?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if host.is_empty() || host.contains(char::is_whitespace) {
            return None;
        }
        let port = port.parse::<u16>().ok().filter(|port| *port != 0)?;
        Some(Self::Remote {
            host: host.to_owned(),
            port,
        })
    }

    /// The Unix-socket address of `path`, normalized; None unless it is
    /// absolute, names a file (not `/` itself) and holds no NUL byte (which
    /// no socket path can).
    fn unix(path: &Path) -> Option<Self> {
        if path.as_os_str().as_encoded_bytes().contains(&0) {
            return None;
        }
        let path: PathBuf = path.components().collect();
        if !path.is_absolute() || path.components().all(|c| c == Component::RootDir) {
            return None;
        }
        Some(Self::Unix { path })
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
            Self::Unix { path } => write!(formatter, "unix:{}", path.display()),
            Self::Slurm { index } => write!(formatter, "slurm:{index}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_forms() {
        let local = Address::Local {
            name: String::new(),
        };
        assert_eq!(Address::parse("local"), Some(local.clone()));
        assert_eq!(Address::parse("local:"), Some(local));
        assert_eq!(
            Address::parse("local:gpu0"),
            Some(Address::Local {
                name: "gpu0".into()
            })
        );
        assert_eq!(
            Address::parse("127.0.0.1:9000"),
            Some(Address::Remote {
                host: "127.0.0.1".into(),
                port: 9000
            })
        );
        assert_eq!(
            Address::parse("[::1]:9000"),
            Some(Address::Remote {
                host: "::1".into(),
                port: 9000
            })
        );
        assert_eq!(
            Address::parse("[::1]:9000").unwrap().to_string(),
            "[::1]:9000"
        );
        assert_eq!(
            Address::parse("unix:/run/executor/server.sock"),
            Some(Address::Unix {
                path: "/run/executor/server.sock".into()
            })
        );
        assert_eq!(
            Address::parse("unix:/tmp/a b:9000").unwrap().to_string(),
            "unix:/tmp/a b:9000"
        );
        // The host named `unix`, not a socket.
        assert_eq!(
            Address::parse("unix:9000"),
            Some(Address::Remote {
                host: "unix".into(),
                port: 9000
            })
        );
        assert_eq!(Address::parse("slurm:0"), Some(Address::Slurm { index: 0 }));
        assert_eq!(Address::parse("slurm:12").unwrap().to_string(), "slurm:12");
        // The host named `slurm`, not an executor of a step.
        assert_eq!(
            Address::parse("[slurm]:9000"),
            Some(Address::Remote {
                host: "slurm".into(),
                port: 9000
            })
        );
    }

    #[test]
    fn spellings_of_one_address_parse_equal() {
        for (a, b) in [
            ("local", "local:"),
            ("host:9000", "[host]:9000"),
            ("host:9000", "host:09000"),
            ("host:9000", "host:+9000"),
            ("unix:/run/x.sock", "unix:/run//x.sock"),
            ("unix:/run/x.sock", "unix:/run/./x.sock"),
            ("unix:/run/x.sock", "unix://run/x.sock/"),
            ("slurm:7", "slurm:007"),
        ] {
            assert_eq!(Address::parse(a), Address::parse(b), "{a} and {b}");
        }
        assert_ne!(Address::parse("local"), Address::parse("local:gpu0"));
        assert_ne!(
            Address::parse("unix:/run/x.sock"),
            Address::parse("unix:/run/../x.sock")
        );
        assert_eq!(
            Address::parse("unix:/run//x.sock").unwrap().to_string(),
            "unix:/run/x.sock"
        );
    }

    #[test]
    fn rejected_forms() {
        for text in [
            "",
            "localhost",
            "host:",
            ":9000",
            "host:0",
            "host:99999",
            "a b:1",
            "unix:",
            "unix:/",
            "unix:relative.sock",
            "unix:/nul\0.sock",
            "slurm:",
            "slurm:x",
            "slurm:-1",
            "slurm:+1",
            "slurm:1.5",
            "slurm:4294967296",
        ] {
            assert_eq!(Address::parse(text), None, "{text}");
        }
    }
}
