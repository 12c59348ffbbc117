//! The client of an executor-server: an [`Executor`] whose session lives in a
//! worker process of the server, over one TCP or Unix-socket connection
//! (docs/protocol.md).
//!
//! Data crosses the connection by value: `send_binary` ships the file's bytes,
//! `launch` sends each input's elements to the server (from the memref's own
//! buffer when it is densely packed in row-major order) and copies each
//! result back into a `malloc`ed buffer here. Changes a kernel makes to its *inputs* are
//! not copied back.
//!
//! The token and the deadlines of each address come from `crate::config`.
//! A session whose server went away (it restarted, its worker was killed)
//! is seen as ended without a round trip ([`Executor::has_ended`]), so that
//! `executor.open` starts a new one and closing the old one is no error.

mod channel;
mod connection;
#[cfg(test)]
pub(crate) mod fake_server;
mod options;
mod tls;

use std::{
    collections::HashSet,
    sync::{Mutex, MutexGuard, PoisonError},
};

use connection::{Connection, unexpected};
pub use options::{
    ConnectOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_DEAD_LINK_TIMEOUT, DEFAULT_HANDSHAKE_TIMEOUT,
    TOKEN_ENV, TOKEN_FILE_ENV,
};
pub use tls::TlsTrust;

use executor_abi::call_buffer::Layout;

use crate::{
    error::{Result, RuntimeError, object_of_destructors},
    executor::{BinaryFormat, Executor},
    machine,
    memref::Descriptor,
    object_names::ObjectNames,
    packed,
    protocol::{OutputShape, Request, Response},
    trace,
};

pub struct RemoteExecutor {
    session: Mutex<Session>,
    /// The server knows each sent file by its canonical path on this host.
    names: ObjectNames,
}

struct Session {
    connection: Connection,
    /// Files already shipped, by canonical path: a file is loaded once per
    /// session, however it is spelled.
    sent_paths: HashSet<String>,
    /// Async launches not awaited yet: a session that ends with some lost
    /// cannot close quietly.
    outstanding_launches: usize,
}

/// What `executor-server --check` reports of a server that admitted it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Health {
    pub protocol_version: u32,
    /// Whether a token was presented (and accepted).
    pub authenticated: bool,
    /// The server's sessions besides the checking connection.
    pub sessions: u32,
    pub max_sessions: u32,
    /// Over TLS, the fingerprint of the certificate the server presented.
    pub tls_fingerprint: Option<crate::protocol::Fingerprint>,
    /// The LLVM triple of the machine the server runs kernels on.
    pub triple: String,
}

/// Connects to the server at `address`, completes the handshake and pings
/// it: no worker process is started for this. Every wait is bounded by the
/// options' connect and handshake timeouts.
pub fn check(address: &str, options: &ConnectOptions) -> Result<Health> {
    let mut connection = Connection::open(address, options)?;
    let (sessions, max_sessions) = connection.ping(options.handshake_timeout)?;
    let tls_fingerprint = connection.peer_fingerprint();
    let triple = connection.triple().to_owned();
    connection.end("checked".to_owned());
    Ok(Health {
        protocol_version: crate::protocol::PROTOCOL_VERSION,
        authenticated: options.token.is_some(),
        sessions,
        max_sessions,
        tls_fingerprint,
        triple,
    })
}

impl RemoteExecutor {
    /// Connects to the executor-server at `address` (`host:port` or
    /// `unix:<path>`, as [`executor_abi::address::Address`] displays it).
    pub fn connect_with(address: &str, options: &ConnectOptions) -> Result<Self> {
        let mut connection = Connection::open(address, options)?;
        tracing::debug!(address, "connected to executor-server");
        if trace::tracing_to_file() {
            connection.start_trace()?;
        }
        Ok(Self {
            session: Mutex::new(Session {
                connection,
                sent_paths: HashSet::new(),
                outstanding_launches: 0,
            }),
            names: ObjectNames::default(),
        })
    }

    fn session(&self) -> MutexGuard<'_, Session> {
        // A panic while the lock was held leaves nothing half-done that a
        // later call could trip over: a failed round trip ends the connection.
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Executor for RemoteExecutor {
    fn send_binary(&self, path: &str, format: BinaryFormat) -> Result<()> {
        let mut session = self.session();
        let name = self.names.canonical(path)?;
        if session.sent_paths.contains(&*name) {
            return Ok(());
        }
        let bytes = std::fs::read(path).map_err(|error| RuntimeError::Unreadable {
            path: path.to_owned(),
            cause: error,
        })?;
        // Refused here, not sent: the server's JIT would only say it cannot
        // link it.
        machine::check(&bytes, format, session.connection.triple())?;
        let request = Request::SendBinary {
            name: name.to_string(),
            format,
            bytes,
        };
        let reply = session
            .connection
            .round_trip(&request)
            .map_err(|error| match error {
                // The worker ran no kernel: the file's load-time code crashed
                // (named here as the program spelled it).
                RuntimeError::KernelCrashed { signal, name, .. }
                | RuntimeError::LoadCrashed { signal, name, .. } => RuntimeError::LoadCrashed {
                    path: path.to_owned(),
                    signal,
                    name,
                },
                other => other,
            })?;
        match reply {
            Response::Done => {
                session.sent_paths.insert(name.to_string());
                Ok(())
            }
            other => Err(unexpected(other, "Done")),
        }
    }

    fn launch(
        &self,
        entry: &str,
        object: &str,
        inputs: &[Descriptor],
        outputs: &[Descriptor],
    ) -> Result<()> {
        // The inputs go out from the caller's buffers (row-major ones are not
        // copied here at all).
        let views: Vec<_> = inputs.iter().map(Descriptor::dense_view).collect();
        let shapes: Vec<OutputShape> = outputs
            .iter()
            .map(|output| OutputShape {
                rank: output.rank() as u64,
                element_size: output.element_size() as u64,
            })
            .collect();
        let object = self.names.canonical(object)?;
        self.session()
            .connection
            .launch(entry, &object, &views, &shapes, outputs)
    }

    fn launch_async(&self, entry: &str, object: &str) -> Result<u64> {
        let request = Request::LaunchAsync {
            entry: entry.to_owned(),
            object: self.names.canonical(object)?.to_string(),
        };
        let mut session = self.session();
        match session.connection.round_trip(&request)? {
            Response::Token(token) => {
                session.outstanding_launches += 1;
                Ok(token)
            }
            other => Err(unexpected(other, "Token")),
        }
    }

    fn await_launch(&self, token: u64) -> Result<()> {
        let mut session = self.session();
        let reply = session.connection.round_trip(&Request::Await(token));
        if !matches!(reply, Err(RuntimeError::Remote(_))) {
            // Awaited, or lost with the session: not outstanding any more.
            session.outstanding_launches = session.outstanding_launches.saturating_sub(1);
        }
        match reply? {
            Response::Done => Ok(()),
            other => Err(unexpected(other, "Done")),
        }
    }

    fn call(&self, symbol: &str, layout: Layout, arguments: &[u8]) -> Result<Vec<u8>> {
        let request = Request::Call {
            symbol: symbol.to_owned(),
            layout,
            arguments: arguments.to_vec(),
        };
        let mut session = self.session();
        let result = match session.connection.round_trip(&request)? {
            Response::CallResult(result) => result,
            other => return Err(unexpected(other, "CallResult")),
        };
        // The lowered code copies each output record into its buffer by the
        // sizes it sent: a record that does not match would be read past.
        // (Catalyst's layout carries no sizes to check against.)
        if layout == Layout::ThisProject
            && let Err(what) = packed::check_outputs(arguments, &result)
        {
            return Err(session
                .connection
                .reject_reply(format!("calling '{symbol}': {what}")));
        }
        Ok(result)
    }

    fn close(&self) -> Result<()> {
        let mut session = self.session();
        // A session that already failed has nothing left to close; one that
        // ended unseen with launches in flight says how they were lost.
        if session.connection.has_ended() && session.outstanding_launches == 0 {
            session.connection.end("it was closed".to_owned());
            tracing::debug!("closed a session that had already ended");
            return Ok(());
        }
        let reply = session
            .connection
            .round_trip(&Request::Close)
            .map_err(|error| match error {
                // The worker ran the destructors of a binary: a kernel
                // still running when close came is named as a kernel.
                RuntimeError::KernelCrashed {
                    symbol,
                    signal,
                    name,
                } => match object_of_destructors(&symbol) {
                    Some(object) => RuntimeError::DestructorsCrashed {
                        object: object.to_owned(),
                        signal,
                        name,
                    },
                    None => RuntimeError::KernelCrashed {
                        symbol,
                        signal,
                        name,
                    },
                },
                other => other,
            });
        session.connection.end("it was closed".to_owned());
        match reply? {
            Response::Done => Ok(()),
            other => Err(unexpected(other, "Done")),
        }
    }

    fn has_ended(&self) -> bool {
        // A session busy on another thread is in use, not ended.
        match self.session.try_lock() {
            Ok(session) => session.connection.has_ended(),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                poisoned.into_inner().connection.has_ended()
            }
            Err(std::sync::TryLockError::WouldBlock) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        memref::DenseBuffer,
        packed::{CallArguments, encode_arguments, encode_outputs},
        remote::fake_server::serve,
    };

    fn floats(len: i64) -> DenseBuffer {
        DenseBuffer {
            element_size: 4,
            sizes: vec![len],
            data: vec![0; 4 * len as usize],
        }
    }

    #[test]
    fn an_object_for_another_machine_than_the_servers_is_refused_before_it_is_sent() {
        let directory = tempfile::tempdir().unwrap();
        // An x86-64 ELF header; the fake server runs s390x.
        let mut header = vec![0; machine::ELF_MACHINE_END];
        header[..6].copy_from_slice(b"\x7fELF\x02\x01");
        header[18] = 62;
        let object = directory.path().join("kernels.o");
        std::fs::write(&object, &header).unwrap();
        let object = object.to_str().unwrap();
        // The one reply is for the asset: the object never reaches the server.
        let (address, server) = serve(vec![Response::Done]);
        let session = RemoteExecutor::connect_with(&address, &ConnectOptions::default()).unwrap();
        let error = session
            .send_binary(object, BinaryFormat::RelocatableObject)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "the object file is for x86_64, the executor runs {}",
                crate::remote::fake_server::TRIPLE
            )
        );
        session.send_binary(object, BinaryFormat::Asset).unwrap();
        server.join().unwrap();
    }

    #[test]
    fn a_call_result_that_does_not_fit_the_outputs_sent_ends_the_session() {
        let arguments = encode_arguments(&CallArguments {
            buffers: vec![floats(64), floats(64)],
            num_inputs: 1,
        });
        let fitting = encode_outputs(&[floats(64)]);
        let short = encode_outputs(&[floats(39)]);
        let (address, server) = serve(vec![
            Response::CallResult(fitting.clone()),
            Response::CallResult(short),
        ]);
        let session = RemoteExecutor::connect_with(&address, &ConnectOptions::default()).unwrap();
        let call = || session.call("f", Layout::ThisProject, &arguments);
        assert_eq!(call().unwrap(), fitting);
        let error = call().unwrap_err().to_string();
        assert!(
            error.contains(&format!("the executor at {address}")),
            "{error}"
        );
        assert!(
            error.contains(
                "calling 'f': output 0 has sizes [39] of 4-byte elements, where sizes [64]"
            ),
            "{error}"
        );
        let after = call().unwrap_err().to_string();
        assert!(after.contains("ended"), "{after}");
        server.join().unwrap();
    }
}
