//! The client's settings for each executor address, in one place: the file
//! named by `EXECUTOR_CONFIG` (its syntax in `file.rs`), whose section for an
//! address sets that address's token file, deadlines and TLS trust (which
//! has no environment variable); what it leaves unset
//! comes from the environment (`EXECUTOR_TOKEN`, `EXECUTOR_TOKEN_FILE`,
//! `EXECUTOR_LAUNCH_TIMEOUT_MS`) or the defaults. Secrets stay in token
//! files: neither the IR nor this file holds one.
//!
//! The file is read once, at the first `executor.open`; an error in it ends
//! the program there, naming the file and the line.

mod file;

use std::{ffi::OsString, path::Path, sync::OnceLock, time::Duration};

pub use file::{ConfigFile, Located, Section};

use crate::{
    address::Address,
    error::{Result, RuntimeError},
    protocol,
    remote::{ConnectOptions, TOKEN_ENV, TOKEN_FILE_ENV, TlsTrust},
};

/// The environment variable naming the configuration file.
pub const CONFIG_ENV: &str = "EXECUTOR_CONFIG";
/// The environment variable that sets every address's launch deadline, in
/// milliseconds, unless the file sets it for the address.
pub const LAUNCH_TIMEOUT_ENV: &str = "EXECUTOR_LAUNCH_TIMEOUT_MS";

/// The environment variable that sets how long the process waits at exit
/// for a session's outstanding launches, in milliseconds.
pub const EXIT_TIMEOUT_ENV: &str = "EXECUTOR_EXIT_TIMEOUT_MS";

/// How long `launch`, `await` and `call` wait for a kernel, and which
/// setting said so (for the message when it passes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchTimeout {
    pub duration: Duration,
    pub origin: String,
}

/// The address `text` names, or the error that lists the accepted forms.
/// (Their syntax is executor_abi's, which the compiler's session analysis
/// parses them with too.)
pub fn parse_address(text: &str) -> Result<Address> {
    Address::parse(text).ok_or_else(|| RuntimeError::InvalidAddress(text.to_owned()))
}

/// Everything the runtime needs to know about one address.
#[derive(Clone, Debug)]
pub struct AddressSettings {
    /// Where the executor is: the address itself, or the server address a
    /// `slurm:<index>` address stands for.
    pub target: Address,
    /// How to connect (for `<host>:<port>` and `unix:<path>` addresses).
    pub connect: ConnectOptions,
    pub launch_timeout: Option<LaunchTimeout>,
}

/// The configuration file, if there is one.
#[derive(Clone, Debug, Default)]
pub struct ClientConfig {
    file: Option<ConfigFile>,
}

impl ClientConfig {
    /// The file named by `EXECUTOR_CONFIG`; none if it is unset or empty.
    pub fn from_env() -> Result<Self> {
        match std::env::var_os(CONFIG_ENV).filter(|path| !path.is_empty()) {
            Some(path) => Self::read(Path::new(&path)),
            None => Ok(Self::default()),
        }
    }

    pub fn read(path: &Path) -> Result<Self> {
        let file = ConfigFile::read(path).map_err(RuntimeError::Config)?;
        Ok(Self { file: Some(file) })
    }

    /// The settings of `address`: its section's, else the environment's,
    /// else the defaults. Those of a `slurm:<index>` address are those of
    /// the address its section names.
    pub fn settings(&self, address: &Address) -> Result<AddressSettings> {
        if let Address::Slurm { .. } = address {
            return self.settings(&self.stands_for(address)?);
        }
        let section = self.file.as_ref().and_then(|file| {
            file.section(address)
                .map(|section| (file.path.as_path(), section))
        });
        let defaults = ConnectOptions::default();
        let timeout = |pick: fn(&Section) -> &Option<Located<Duration>>, default| {
            section
                .and_then(|(_, section)| pick(section).as_ref())
                .map_or(default, |setting| setting.value)
        };
        let token = match section
            .and_then(|(path, section)| Some((path, section.token_file.as_ref()?)))
        {
            Some((path, token_file)) => Some(read_token(&token_file.value).map_err(|reason| {
                RuntimeError::Config(format!(
                    "{}:{}: cannot read the token file of {address}: {reason}",
                    path.display(),
                    token_file.line
                ))
            })?),
            None => token_from_env()?,
        };
        let connect = ConnectOptions {
            token,
            connect_timeout: timeout(|section| &section.connect_timeout, defaults.connect_timeout),
            handshake_timeout: timeout(
                |section| &section.handshake_timeout,
                defaults.handshake_timeout,
            ),
            dead_link_timeout: timeout(
                |section| &section.dead_link_timeout,
                defaults.dead_link_timeout,
            ),
            tls: section.and_then(|(_, section)| tls_trust(section)),
            insecure_plaintext: section
                .and_then(|(_, section)| section.insecure_plaintext.as_ref())
                .is_some_and(|setting| setting.value),
        };
        let launch_timeout = match section
            .and_then(|(path, section)| Some((path, section.launch_timeout.as_ref()?)))
        {
            Some((path, setting)) => Some(LaunchTimeout {
                duration: setting.value,
                origin: format!("launch_timeout_ms, {}:{}", path.display(), setting.line),
            }),
            None => launch_timeout_from_env()?,
        };
        Ok(AddressSettings {
            target: address.clone(),
            connect,
            launch_timeout,
        })
    }

    /// The server address that the section of the `slurm:<index>` address
    /// names.
    fn stands_for(&self, address: &Address) -> Result<Address> {
        let Some(file) = &self.file else {
            return Err(RuntimeError::Config(format!(
                "{address} is an executor of a Slurm step, and {CONFIG_ENV} (which names them; \
                 executor-slurm sets it) is not set"
            )));
        };
        match file
            .section(address)
            .and_then(|section| section.address.as_ref())
        {
            Some(target) => Ok(target.value.clone()),
            None => Err(RuntimeError::Config(format!(
                "{}: no section for {address}: its Slurm step has fewer executors",
                file.path.display()
            ))),
        }
    }
}

/// The settings of `address`, from the configuration file `EXECUTOR_CONFIG`
/// names (read once per process) and the environment.
pub fn settings_for(address: &Address) -> Result<AddressSettings> {
    static CONFIG: OnceLock<std::result::Result<ClientConfig, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| ClientConfig::from_env().map_err(|error| error.to_string()))
        .as_ref()
        .map_err(|error| RuntimeError::Config(error.clone()))?
        .settings(address)
}

/// Whom a section trusts at its address, if it makes it TLS (the file's
/// parser allows one of the two settings, not both).
fn tls_trust(section: &Section) -> Option<TlsTrust> {
    match (&section.tls_fingerprint, &section.tls_ca) {
        (Some(pin), _) => Some(TlsTrust::Fingerprint(pin.value)),
        (None, Some(ca)) => Some(TlsTrust::CaFile(ca.value.clone())),
        (None, None) => None,
    }
}

fn read_token(path: &Path) -> std::result::Result<String, String> {
    protocol::read_token_file(path).map_err(|error| format!("'{}': {error}", path.display()))
}

/// `EXECUTOR_TOKEN`, or else the content of the file `EXECUTOR_TOKEN_FILE`
/// names; none if neither is set.
fn token_from_env() -> Result<Option<String>> {
    match (std::env::var(TOKEN_ENV), std::env::var_os(TOKEN_FILE_ENV)) {
        (Ok(token), _) => Ok(Some(token)),
        (Err(_), Some(path)) => read_token(Path::new(&path)).map(Some).map_err(|reason| {
            RuntimeError::Config(format!(
                "cannot read the token file {TOKEN_FILE_ENV} names, {reason}"
            ))
        }),
        (Err(_), None) => Ok(None),
    }
}

fn launch_timeout_from_env() -> Result<Option<LaunchTimeout>> {
    let duration = parse_timeout(std::env::var_os(LAUNCH_TIMEOUT_ENV)).map_err(|value| {
        RuntimeError::InvalidSetting {
            variable: LAUNCH_TIMEOUT_ENV,
            value,
            expected: "a positive number of milliseconds",
        }
    })?;
    Ok(duration.map(|duration| LaunchTimeout {
        duration,
        origin: LAUNCH_TIMEOUT_ENV.to_owned(),
    }))
}

/// What `EXECUTOR_EXIT_TIMEOUT_MS` sets, if it is set.
pub fn exit_timeout_from_env() -> Result<Option<Duration>> {
    parse_timeout(std::env::var_os(EXIT_TIMEOUT_ENV)).map_err(|value| {
        RuntimeError::InvalidSetting {
            variable: EXIT_TIMEOUT_ENV,
            value,
            expected: "a positive number of milliseconds",
        }
    })
}

/// The timeout `value` gives; unset or empty is none, the value itself is
/// the error.
fn parse_timeout(value: Option<OsString>) -> std::result::Result<Option<Duration>, String> {
    let Some(value) = value.filter(|value| !value.is_empty()) else {
        return Ok(None);
    };
    match value.to_str().and_then(|text| text.parse::<u64>().ok()) {
        Some(milliseconds) if milliseconds > 0 => Ok(Some(Duration::from_millis(milliseconds))),
        _ => Err(value.to_string_lossy().into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_address_names_the_accepted_forms() {
        // Which forms are rejected is executor_abi::address's to test; here,
        // what the error says.
        let error = parse_address("localhost").unwrap_err().to_string();
        assert!(
            error.contains(
                "'local', 'local:<name>', '<host>:<port>', 'unix:<absolute path>' or 'slurm:<index>'"
            ),
            "{error}"
        );
    }

    #[test]
    fn the_timeout_is_a_positive_number_of_milliseconds() {
        let parse = |value: &str| parse_timeout(Some(value.into()));
        assert_eq!(parse_timeout(None), Ok(None));
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("250"), Ok(Some(Duration::from_millis(250))));
        for wrong in ["0", "-5", "1.5", "10s", " 10"] {
            assert_eq!(parse(wrong), Err(wrong.to_owned()));
        }
    }

    #[test]
    fn a_slurm_address_takes_the_settings_of_the_address_it_stands_for() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::write(directory.path().join("node1.token"), "secret of node1\n").unwrap();
        let path = directory.path().join("executors.conf");
        std::fs::write(
            &path,
            "[10.0.0.11:40000]\ntoken_file = node1.token\nconnect_timeout_ms = 1500\n\
             [slurm:1]\naddress = 10.0.0.11:40000\n",
        )
        .unwrap();
        let config = ClientConfig::read(&path).unwrap();
        let address = |text| Address::parse(text).unwrap();

        let node1 = config.settings(&address("slurm:1")).unwrap();
        assert_eq!(node1.target, address("10.0.0.11:40000"));
        assert_eq!(node1.connect.token.as_deref(), Some("secret of node1"));
        assert_eq!(node1.connect.connect_timeout, Duration::from_millis(1500));
        let direct = config.settings(&address("10.0.0.11:40000")).unwrap();
        assert_eq!(direct.target, address("10.0.0.11:40000"));

        let absent = config
            .settings(&address("slurm:2"))
            .unwrap_err()
            .to_string();
        assert!(
            absent.ends_with(
                "executors.conf: no section for slurm:2: its Slurm step has fewer executors"
            ),
            "{absent}"
        );
        let unset = ClientConfig::default()
            .settings(&address("slurm:0"))
            .unwrap_err()
            .to_string();
        assert!(
            unset.starts_with("slurm:0 is an executor of a Slurm step, and EXECUTOR_CONFIG"),
            "{unset}"
        );
    }

    #[test]
    fn a_section_overrides_the_defaults_of_its_address_only() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::write(directory.path().join("b.token"), "secret of b\n").unwrap();
        let path = directory.path().join("executors.conf");
        std::fs::write(
            &path,
            "[10.0.0.2:9000]\ntoken_file = b.token\nconnect_timeout_ms = 1500\n\
             launch_timeout_ms = 700\n[10.0.0.3:9000]\ntoken_file = missing.token\n",
        )
        .unwrap();
        let config = ClientConfig::read(&path).unwrap();
        let address = |text| Address::parse(text).unwrap();

        let b = config.settings(&address("10.0.0.2:9000")).unwrap();
        assert_eq!(b.connect.token.as_deref(), Some("secret of b"));
        assert_eq!(b.connect.connect_timeout, Duration::from_millis(1500));
        assert_eq!(
            b.connect.dead_link_timeout,
            ConnectOptions::default().dead_link_timeout
        );
        let launch = b.launch_timeout.unwrap();
        assert_eq!(launch.duration, Duration::from_millis(700));
        assert!(
            launch.origin.ends_with("executors.conf:4"),
            "{}",
            launch.origin
        );

        let other = config.settings(&address("10.0.0.4:9000")).unwrap();
        assert_eq!(
            other.connect.connect_timeout,
            ConnectOptions::default().connect_timeout
        );

        let unreadable = config
            .settings(&address("10.0.0.3:9000"))
            .unwrap_err()
            .to_string();
        assert!(
            unreadable.contains("executors.conf:6: cannot read the token file of 10.0.0.3:9000"),
            "{unreadable}"
        );
    }
}
