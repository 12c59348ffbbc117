//! The configuration file's syntax: sections named by an executor address,
//! each with `key = value` lines. Every error names the file, the line and
//! the column.
//!
//! ```text
//! # comments and blank lines are ignored
//! [10.0.0.2:9000]
//! token_file = /etc/executor/a.token
//! dead_link_timeout_ms = 5000
//! tls_fingerprint = sha256:<64 hex digits>
//! ```
//!
//! `tls_fingerprint` (the server certificate's SHA-256, which
//! `executor-server --gen-identity` printed) or `tls_ca` (a PEM file of CA
//! certificates) makes a `<host>:<port>` address TLS; one of the two, not
//! both. `insecure_plaintext = true` lets a session go to a non-loopback
//! address in plaintext, which the client otherwise refuses.
//!
//! A `[slurm:<index>]` section sets one key, `address`: the server address
//! (`<host>:<port>` or `unix:<path>`) it stands for, whose own section sets
//! the rest.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use crate::{
    address::{ADDRESS_FORMS, Address},
    protocol::Fingerprint,
};

/// The keys a section may set.
const KEYS: &[&str] = &[
    "address",
    "token_file",
    "connect_timeout_ms",
    "handshake_timeout_ms",
    "dead_link_timeout_ms",
    "launch_timeout_ms",
    "tls_fingerprint",
    "tls_ca",
    "insecure_plaintext",
];

/// A setting and the line that set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located<T> {
    pub value: T,
    pub line: usize,
}

/// What one address's section sets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// The server address a `slurm:<index>` section stands for.
    pub address: Option<Located<Address>>,
    /// Relative paths are taken from the configuration file's directory.
    pub token_file: Option<Located<PathBuf>>,
    pub connect_timeout: Option<Located<Duration>>,
    pub handshake_timeout: Option<Located<Duration>>,
    pub dead_link_timeout: Option<Located<Duration>>,
    pub launch_timeout: Option<Located<Duration>>,
    /// The server certificate's pinned fingerprint: the session is TLS.
    pub tls_fingerprint: Option<Located<Fingerprint>>,
    /// A PEM file of the CAs that issue the server's certificate (relative
    /// paths from the configuration file's directory): the session is TLS.
    pub tls_ca: Option<Located<PathBuf>>,
    /// `insecure_plaintext = true`: the network to this address is trusted,
    /// so a plaintext session off loopback is allowed.
    pub insecure_plaintext: Option<Located<bool>>,
}

/// A parsed configuration file.
#[derive(Clone, Debug, Default)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub sections: Vec<(Address, Section)>,
}

impl ConfigFile {
    /// Reads and parses the file at `path`; the error is one line.
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        Self::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Self, String> {
        let at = |line: usize, column: usize, message: String| {
            format!("{}:{line}:{column}: {message}", path.display())
        };
        let directory = path.parent().unwrap_or(Path::new("."));
        let mut sections: Vec<(Address, Section)> = Vec::new();
        // The line of the last section's header.
        let mut header_line = 0;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let indent = raw.len() - raw.trim_start().len();
            let content = raw.trim();
            let column = indent + 1;
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            if let Some(header) = content.strip_prefix('[') {
                let Some(name) = header.strip_suffix(']') else {
                    return Err(at(
                        line,
                        column,
                        "expected ']' at the end of the section name".into(),
                    ));
                };
                let name = name.trim();
                let address = Address::parse(name).ok_or_else(|| {
                    at(
                        line,
                        column + 1,
                        format!("'{name}' is not an executor address: expected {ADDRESS_FORMS}"),
                    )
                })?;
                if sections.iter().any(|(known, _)| *known == address) {
                    return Err(at(line, column, format!("a second section for {address}")));
                }
                check_complete(sections.last()).map_err(|error| at(header_line, 1, error))?;
                sections.push((address, Section::default()));
                header_line = line;
                continue;
            }
            let Some(equals) = content.find('=') else {
                return Err(at(
                    line,
                    column,
                    "expected '[<address>]' or '<key> = <value>'".into(),
                ));
            };
            let (key, rest) = (content[..equals].trim(), &content[equals + 1..]);
            let value = rest.trim();
            let value_column = column + equals + 1 + (rest.len() - rest.trim_start().len());
            let Some((address, section)) = sections.last_mut() else {
                return Err(at(
                    line,
                    column,
                    format!("'{key}' is outside any section: start one with '[<address>]'"),
                ));
            };
            if !KEYS.contains(&key) {
                return Err(at(
                    line,
                    column,
                    format!("unknown key '{key}' (expected one of: {})", KEYS.join(", ")),
                ));
            }
            let set_twice = || at(line, column, format!("'{key}' is set twice for {address}"));
            if matches!(address, Address::Slurm { .. }) != (key == "address") {
                let message = if key == "address" {
                    format!("'address' applies to 'slurm:<index>' sections only, not {address}")
                } else {
                    format!(
                        "'{key}' does not apply to {address}: set it in the section of the \
                         address it stands for"
                    )
                };
                return Err(at(line, column, message));
            }
            if key == "address" {
                let target = Address::parse(value)
                    .filter(|target| {
                        matches!(target, Address::Remote { .. } | Address::Unix { .. })
                    })
                    .ok_or_else(|| {
                        at(
                            line,
                            value_column,
                            format!(
                                "'{value}' is not a server address: expected '<host>:<port>' or \
                                 'unix:<absolute path>'"
                            ),
                        )
                    })?;
                fill(&mut section.address, target, line).ok_or_else(set_twice)?;
                continue;
            }
            if matches!(address, Address::Local { .. }) && key != "launch_timeout_ms" {
                return Err(at(
                    line,
                    column,
                    format!(
                        "'{key}' applies to server addresses only ('<host>:<port>', \
                         'unix:<path>'), not {address}"
                    ),
                ));
            }
            let remote_only = key.starts_with("tls_") || key == "insecure_plaintext";
            if remote_only && !matches!(address, Address::Remote { .. }) {
                return Err(at(
                    line,
                    column,
                    format!(
                        "'{key}' applies to '<host>:<port>' addresses only, not {address} \
                         (a Unix socket's peer is checked by the kernel)"
                    ),
                ));
            }
            let (tls_set, insecure_set) = (
                section.tls_fingerprint.is_some() || section.tls_ca.is_some(),
                section.insecure_plaintext.is_some(),
            );
            if (key.starts_with("tls_") && insecure_set) || (key == "insecure_plaintext" && tls_set)
            {
                return Err(at(
                    line,
                    column,
                    format!(
                        "'insecure_plaintext' and a 'tls_' key are both set for {address}: \
                         the session is either TLS or plaintext"
                    ),
                ));
            }
            if key == "insecure_plaintext" {
                let allowed = match value {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(at(
                            line,
                            value_column,
                            format!("'{value}' is not 'true' or 'false'"),
                        ));
                    }
                };
                fill(&mut section.insecure_plaintext, allowed, line).ok_or_else(set_twice)?;
                continue;
            }
            if key.starts_with("tls_") {
                let other = if key == "tls_ca" {
                    section.tls_fingerprint.is_some()
                } else {
                    section.tls_ca.is_some()
                };
                if other {
                    return Err(at(
                        line,
                        column,
                        format!(
                            "'tls_fingerprint' and 'tls_ca' are both set for {address}: \
                             pin the certificate or name its CA, not both"
                        ),
                    ));
                }
                if key == "tls_ca" {
                    if value.is_empty() {
                        return Err(at(line, value_column, "expected a file name".into()));
                    }
                    fill(&mut section.tls_ca, directory.join(value), line).ok_or_else(set_twice)?;
                } else {
                    let fingerprint = value
                        .parse::<Fingerprint>()
                        .map_err(|error| at(line, value_column, error.to_string()))?;
                    fill(&mut section.tls_fingerprint, fingerprint, line).ok_or_else(set_twice)?;
                }
                continue;
            }
            if key == "token_file" {
                if value.is_empty() {
                    return Err(at(line, value_column, "expected a file name".into()));
                }
                fill(&mut section.token_file, directory.join(value), line).ok_or_else(set_twice)?;
                continue;
            }
            let duration = match value.parse::<u64>() {
                Ok(milliseconds) if milliseconds > 0 => Duration::from_millis(milliseconds),
                _ => {
                    return Err(at(
                        line,
                        value_column,
                        format!("'{value}' is not a positive number of milliseconds"),
                    ));
                }
            };
            let slot = match key {
                "connect_timeout_ms" => &mut section.connect_timeout,
                "handshake_timeout_ms" => &mut section.handshake_timeout,
                "dead_link_timeout_ms" => &mut section.dead_link_timeout,
                _ => &mut section.launch_timeout,
            };
            fill(slot, duration, line).ok_or_else(set_twice)?;
        }
        check_complete(sections.last()).map_err(|error| at(header_line, 1, error))?;
        Ok(Self {
            path: path.to_owned(),
            sections,
        })
    }

    /// The section of `address`, if the file has one.
    pub fn section(&self, address: &Address) -> Option<&Section> {
        self.sections
            .iter()
            .find(|(known, _)| known == address)
            .map(|(_, section)| section)
    }
}

/// The error of a section that lacks what its kind requires: a
/// `slurm:<index>` section its `address`.
fn check_complete(section: Option<&(Address, Section)>) -> Result<(), String> {
    match section {
        Some((address @ Address::Slurm { .. }, section)) if section.address.is_none() => {
            Err(format!(
                "{address} stands for no address: set 'address = <host>:<port>' in its section"
            ))
        }
        _ => Ok(()),
    }
}

/// Sets an unset `slot`; None if it was set already.
fn fill<T>(slot: &mut Option<Located<T>>, value: T, line: usize) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(Located { value, line });
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ConfigFile, String> {
        ConfigFile::parse(Path::new("/etc/executor.conf"), text)
    }

    fn address(text: &str) -> Address {
        Address::parse(text).unwrap()
    }

    #[test]
    fn sections_set_their_addresses_settings() {
        let file = parse(
            "# three executors\n\
             [10.0.0.2:9000]\n\
             token_file = a.token\n\
             \n\
             dead_link_timeout_ms=3000\n\
             [local]\n  launch_timeout_ms = 250 \n\
             [unix:/run/executor//server.sock]\nhandshake_timeout_ms = 500\n",
        )
        .unwrap();
        let unix = file
            .section(&address("unix:/run/executor/server.sock"))
            .unwrap();
        assert_eq!(
            unix.handshake_timeout,
            Some(Located {
                value: Duration::from_millis(500),
                line: 9
            })
        );
        let remote = file.section(&address("10.0.0.2:9000")).unwrap();
        assert_eq!(
            remote.token_file,
            Some(Located {
                value: PathBuf::from("/etc/a.token"),
                line: 3
            })
        );
        assert_eq!(
            remote
                .dead_link_timeout
                .as_ref()
                .map(|setting| setting.value),
            Some(Duration::from_secs(3))
        );
        assert_eq!(remote.launch_timeout, None);
        let local = file.section(&address("local")).unwrap();
        assert_eq!(
            local.launch_timeout,
            Some(Located {
                value: Duration::from_millis(250),
                line: 7
            })
        );
        assert!(file.section(&address("10.0.0.3:9000")).is_none());
    }

    #[test]
    fn tls_settings_make_an_address_tls() {
        let pin = format!("sha256:{}", "ab".repeat(32));
        let file = parse(&format!(
            "[10.0.0.2:9000]\ntls_fingerprint = {pin}\n[10.0.0.3:9000]\ntls_ca = ca/lab.pem\n"
        ))
        .unwrap();
        let pinned = file.section(&address("10.0.0.2:9000")).unwrap();
        assert_eq!(
            pinned
                .tls_fingerprint
                .as_ref()
                .map(|setting| setting.value.to_string()),
            Some(pin)
        );
        let ca = file.section(&address("10.0.0.3:9000")).unwrap();
        assert_eq!(
            ca.tls_ca,
            Some(Located {
                value: PathBuf::from("/etc/ca/lab.pem"),
                line: 4
            })
        );
    }

    #[test]
    fn insecure_plaintext_is_read_per_address() {
        let file = parse("[10.0.0.2:9000]\ninsecure_plaintext = true\n[10.0.0.3:9000]\n").unwrap();
        let allowed = |name: &str| {
            file.section(&address(name))
                .and_then(|section| section.insecure_plaintext.as_ref())
                .map(|setting| setting.value)
        };
        assert_eq!(allowed("10.0.0.2:9000"), Some(true));
        assert_eq!(allowed("10.0.0.3:9000"), None);
    }

    #[test]
    fn a_slurm_section_names_the_address_it_stands_for() {
        let file = parse(
            "[10.0.0.2:40123]\ntoken_file = node0.token\n\
             [slurm:0]\naddress = 10.0.0.2:40123\n\
             [slurm:1]\n address = unix:/run/executor.sock\n",
        )
        .unwrap();
        assert_eq!(
            file.section(&address("slurm:0")).unwrap().address,
            Some(Located {
                value: address("10.0.0.2:40123"),
                line: 4
            })
        );
        assert_eq!(
            file.section(&address("slurm:1")).unwrap().address,
            Some(Located {
                value: address("unix:/run/executor.sock"),
                line: 6
            })
        );
        assert_eq!(
            file.section(&address("10.0.0.2:40123")).unwrap().address,
            None
        );
    }

    #[test]
    fn each_error_names_the_line_and_column() {
        let cases = [
            (
                "token_file = a\n",
                "/etc/executor.conf:1:1: 'token_file' is outside any section",
            ),
            (
                "[h:1]\n  colour = blue\n",
                "/etc/executor.conf:2:3: unknown key 'colour'",
            ),
            (
                "[h:1]\nconnect_timeout_ms =  soon\n",
                "/etc/executor.conf:2:23: 'soon' is not a positive number",
            ),
            (
                "[h:1]\nlaunch_timeout_ms = 0\n",
                "/etc/executor.conf:2:21: '0' is not a positive number",
            ),
            ("[h:1\n", "/etc/executor.conf:1:1: expected ']'"),
            (
                "[nowhere]\n",
                "/etc/executor.conf:1:2: 'nowhere' is not an executor address",
            ),
            (
                "[h:1]\n[h:1]\n",
                "/etc/executor.conf:2:1: a second section for h:1",
            ),
            (
                "[h:1]\njust words\n",
                "/etc/executor.conf:2:1: expected '[<address>]' or '<key> = <value>'",
            ),
            (
                "[h:1]\ntoken_file = a\ntoken_file = b\n",
                "/etc/executor.conf:3:1: 'token_file' is set twice",
            ),
            (
                "[local]\ntoken_file = a\n",
                "/etc/executor.conf:2:1: 'token_file' applies to server addresses only",
            ),
            (
                "[h:1]\ntoken_file =\n",
                "/etc/executor.conf:2:13: expected a file name",
            ),
            (
                "[h:1]\ntls_fingerprint = sha256:00\n",
                "/etc/executor.conf:2:19: invalid fingerprint 'sha256:00'",
            ),
            (
                "[h:1]\ntls_ca = ca.pem\ntls_fingerprint = sha256:00\n",
                "/etc/executor.conf:3:1: 'tls_fingerprint' and 'tls_ca' are both set for h:1",
            ),
            (
                "[unix:/run/s.sock]\ntls_ca = ca.pem\n",
                "/etc/executor.conf:2:1: 'tls_ca' applies to '<host>:<port>' addresses only",
            ),
            (
                "[h:1]\ninsecure_plaintext = yes\n",
                "/etc/executor.conf:2:22: 'yes' is not 'true' or 'false'",
            ),
            (
                "[h:1]\ntls_ca = ca.pem\ninsecure_plaintext = true\n",
                "/etc/executor.conf:3:1: 'insecure_plaintext' and a 'tls_' key are both set",
            ),
            (
                "[h:1]\ninsecure_plaintext = true\ntls_ca = ca.pem\n",
                "/etc/executor.conf:3:1: 'insecure_plaintext' and a 'tls_' key are both set",
            ),
            (
                "[unix:/run/s.sock]\ninsecure_plaintext = true\n",
                "/etc/executor.conf:2:1: 'insecure_plaintext' applies to '<host>:<port>' \
                 addresses only",
            ),
            (
                "[slurm:0]\ntoken_file = a\n",
                "/etc/executor.conf:2:1: 'token_file' does not apply to slurm:0: set it in the \
                 section of the address it stands for",
            ),
            (
                "[h:1]\naddress = h:2\n",
                "/etc/executor.conf:2:1: 'address' applies to 'slurm:<index>' sections only, not h:1",
            ),
            (
                "[slurm:0]\naddress = slurm:1\n",
                "/etc/executor.conf:2:11: 'slurm:1' is not a server address",
            ),
            (
                "[slurm:0]\naddress = local\n",
                "/etc/executor.conf:2:11: 'local' is not a server address",
            ),
            (
                "[slurm:0]\naddress = h:1\naddress = h:2\n",
                "/etc/executor.conf:3:1: 'address' is set twice for slurm:0",
            ),
            (
                "[slurm:0]\n[h:1]\n",
                "/etc/executor.conf:1:1: slurm:0 stands for no address: set 'address = <host>:<port>'",
            ),
            (
                "[h:1]\n\n[slurm:3]\n",
                "/etc/executor.conf:3:1: slurm:3 stands for no address",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.starts_with(expected), "{text:?}: {error}");
            assert!(!error.contains('\n'), "{error}");
        }
    }
}
