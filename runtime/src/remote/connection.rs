//! One connection to an executor-server, over TCP or a Unix-domain socket
//! (`executor_protocol::stream`), in TLS where the address's settings say so
//! (`tls.rs`): connecting, the handshakes, and request/response round trips. Once a connection fails (or the session
//! ends) it stays failed, and says why on every later use.

use std::{
    io::{self, BufRead},
    net::{SocketAddr, TcpStream, ToSocketAddrs},
    os::unix::fs::FileTypeExt,
    path::Path,
    time::Duration,
};

use executor_abi::address::Address;

use super::{channel::Channel, options::ConnectOptions, tls};
use crate::{
    error::{Result, RuntimeError, object_of_load_time_code},
    memref::{DenseView, Descriptor},
    polling::{poll_briefly, unless_not_ready, worth_polling},
    protocol::{
        self, Fingerprint, FrameReader, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, LaunchFrame,
        OutputShape, PROTOCOL_VERSION, PollableStream, ProtocolError, Request, Response, Step,
        Stream, signal_name,
    },
    trace::{self, ServerClock},
};

/// The most capacity a connection's payload buffer keeps from one reply to
/// the next: a loop of launches reads its replies into memory it already
/// has, but one large result (up to the server's limit, 256 MiB by default)
/// does not stay in the host program's memory for the rest of the session.
const RETAINED_PAYLOAD_CAPACITY: usize = 16 * 1024 * 1024;

pub(super) struct Connection {
    address: String,
    /// Requests are written to the channel (`get_mut`) and responses read
    /// from it through a buffer: a small frame then takes one system call,
    /// not one for its length and more for its payload.
    reader: FrameReader<Channel>,
    /// The fingerprint of the certificate the server presented, over TLS.
    peer_fingerprint: Option<Fingerprint>,
    /// The last reply's payload: every reply is read into this buffer,
    /// which is kept up to [`RETAINED_PAYLOAD_CAPACITY`].
    payload: Vec<u8>,
    /// The server's limit, which applies in both directions.
    max_message_size: u32,
    /// The LLVM triple of the machine the server runs kernels on.
    triple: String,
    /// How long the server's host may stay silent, as the socket applies it
    /// (whole seconds), for the message when it has.
    dead_link_timeout: Duration,
    /// Why the connection can no longer be used, once it can't.
    ended: Option<String>,
    /// The server's clock, once the session asked for the server's steps
    /// ([`Connection::start_trace`]): each reply is then followed by them.
    clock: Option<ServerClock>,
}

impl Connection {
    /// Connects to `address` (`host:port` or `unix:<path>`) and performs the
    /// handshake.
    pub fn open(address: &str, options: &ConnectOptions) -> Result<Self> {
        let stream = connect(address, options)?;
        let (mut channel, peer_fingerprint) = match &options.tls {
            None => (Channel::Plain(PollableStream::new(stream)), None),
            Some(trust) => {
                let (session, presented) =
                    tls::handshake(address, stream, trust, options.handshake_timeout).map_err(
                        |reason| RuntimeError::Unreachable {
                            address: address.to_owned(),
                            reason,
                        },
                    )?;
                (Channel::Tls(Box::new(session)), Some(presented))
            }
        };
        let (max_message_size, triple) = handshake(address, &mut channel, options)?;
        let over_tls = matches!(channel, Channel::Tls(_));
        Ok(Self {
            address: address.to_owned(),
            reader: FrameReader::for_session(over_tls, channel),
            peer_fingerprint,
            payload: Vec::new(),
            max_message_size,
            triple,
            dead_link_timeout: protocol::dead_peer::applied_timeout(options.dead_link_timeout),
            ended: None,
            clock: None,
        })
    }

    /// Asks the server for its steps from now on (for the trace), and
    /// estimates its clock: from two exchanges, the first of which also
    /// starts the session's worker, the one with the smaller error.
    pub fn start_trace(&mut self) -> Result<()> {
        let mut best: Option<ServerClock> = None;
        let mut steps = Vec::new();
        for _ in 0..2 {
            let sent = trace::now();
            let reply = self.round_trip(&Request::Trace)?;
            let received = trace::now();
            let Response::Clock {
                received_us,
                sent_us,
            } = reply
            else {
                return Err(unexpected(reply, "Clock"));
            };
            match self.read_steps() {
                Ok(more) => steps.extend(more),
                Err(error) => return Err(self.answer(Err(error)).unwrap_err()),
            }
            let sample = ServerClock::estimate(sent, received_us, sent_us, received);
            if best.is_none_or(|best| sample.error < best.error) {
                best = Some(sample);
            }
        }
        let clock = best.expect("two exchanges");
        trace::add_server_spans(steps.iter().map(|step| clock.place(step)));
        self.clock = Some(clock);
        Ok(())
    }

    /// Whether the session can no longer be used: it failed, or the server
    /// has closed the connection (it restarted, or the worker died) or sent
    /// something unasked (a crash report) since the last reply. Does not
    /// wait.
    pub fn has_ended(&self) -> bool {
        if self.ended.is_some() || !self.reader.buffer().is_empty() {
            return true;
        }
        let socket = self.socket();
        if socket.set_nonblocking(true).is_err() {
            return true;
        }
        let peeked = socket.peek(&mut [0; 1]);
        let restored = socket.set_nonblocking(false);
        let quiet = matches!(&peeked, Err(error) if error.kind() == io::ErrorKind::WouldBlock);
        !quiet || restored.is_err()
    }

    /// Asks the server how it is doing, waiting for the answer no longer
    /// than for the handshake's: the sessions it serves besides this one,
    /// and its limit.
    pub fn ping(&mut self, timeout: Duration) -> Result<(u32, u32)> {
        self.socket()
            .set_read_timeout(Some(timeout))
            .map_err(ProtocolError::Io)?;
        match self.round_trip(&Request::Ping)? {
            Response::Pong {
                sessions,
                max_sessions,
            } => Ok((sessions, max_sessions)),
            other => Err(RuntimeError::Protocol(format!(
                "expected Pong from the executor, got {other:?}"
            ))),
        }
    }

    /// Sends `request` and reads its response. `Failed` becomes
    /// [`RuntimeError::Remote`] and `Crashed` [`RuntimeError::KernelCrashed`];
    /// every other response is the caller's to check.
    pub fn round_trip(&mut self, request: &Request) -> Result<Response> {
        self.check_open()?;
        let frame = protocol::encode_frame(request, self.max_message_size).map_err(refused)?;
        self.exchange(|stream| io::Write::write_all(stream, &frame))
    }

    /// [`Connection::round_trip`] of a launch whose inputs are written
    /// straight from the caller's buffers and whose results are read
    /// straight into `results` (one descriptor per shape of `outputs`). Any
    /// other reply is the error it reports or an unexpected response.
    pub fn launch(
        &mut self,
        entry: &str,
        object: &str,
        inputs: &[DenseView<'_>],
        outputs: &[OutputShape],
        results: &[Descriptor],
    ) -> Result<()> {
        self.check_open()?;
        let frame = LaunchFrame::new(entry, object, inputs, outputs, self.max_message_size)
            .map_err(refused)?;
        let filled = self
            .send_and_receive(|stream| frame.write_to(stream))
            .and_then(|payload| protocol::fill_from_launched(payload, results));
        let response = match filled {
            Ok(true) => None,
            Ok(false) => Some(protocol::decode_payload(&self.payload)),
            Err(error) => Some(Err(error)),
        };
        self.release_large_payload();
        let response = match response {
            None => self.receive_steps().err().map(Err),
            Some(response) => Some(self.after_reply(response)),
        };
        match response {
            None => Ok(()),
            Some(response) => Err(unexpected(self.answer(response)?, "Launched")),
        }
    }

    /// The LLVM triple the server stated in its handshake.
    pub fn triple(&self) -> &str {
        &self.triple
    }

    /// The fingerprint of the server's certificate, for a TLS session.
    pub fn peer_fingerprint(&self) -> Option<Fingerprint> {
        self.peer_fingerprint
    }

    fn socket(&self) -> &Stream {
        self.reader.get_ref().socket()
    }

    /// Frees the payload buffer once a reply larger than what is kept has
    /// been used.
    fn release_large_payload(&mut self) {
        if self.payload.capacity() > RETAINED_PAYLOAD_CAPACITY {
            self.payload = Vec::new();
        }
    }

    fn check_open(&self) -> Result<()> {
        match &self.ended {
            Some(reason) => Err(self.unreachable(format!("the session has ended: {reason}"))),
            None => Ok(()),
        }
    }

    /// Sends a request with `send` and reads its response.
    fn exchange(&mut self, send: impl FnOnce(&mut Channel) -> io::Result<()>) -> Result<Response> {
        let response = self
            .send_and_receive(send)
            .and_then(protocol::decode_payload);
        self.release_large_payload();
        let response = self.after_reply(response);
        self.answer(response)
    }

    /// Takes the server's steps that follow a reply its worker sent, once
    /// they were asked for (a crash report comes from the server's
    /// supervisor, with none).
    fn after_reply(
        &mut self,
        response: std::result::Result<Response, ProtocolError>,
    ) -> std::result::Result<Response, ProtocolError> {
        let response = response?;
        if !matches!(response, Response::Crashed { .. }) {
            self.receive_steps()?;
        }
        Ok(response)
    }

    /// Reads the steps that follow a reply, if they were asked for, and adds
    /// them to the trace.
    fn receive_steps(&mut self) -> std::result::Result<(), ProtocolError> {
        let Some(clock) = self.clock else {
            return Ok(());
        };
        let steps = self.read_steps()?;
        trace::add_server_spans(steps.iter().map(|step| clock.place(step)));
        Ok(())
    }

    fn read_steps(&mut self) -> std::result::Result<Vec<Step>, ProtocolError> {
        match protocol::read_message::<Response>(&mut self.reader, self.max_message_size)? {
            Response::Steps(steps) => Ok(steps),
            other => Err(ProtocolError::Malformed(format!(
                "expected the server's Steps after its reply, got {other:?}"
            ))),
        }
    }

    /// Sends a request and reads the payload of its reply.
    fn send_and_receive(
        &mut self,
        send: impl FnOnce(&mut Channel) -> io::Result<()>,
    ) -> std::result::Result<&[u8], ProtocolError> {
        let channel = self.reader.get_mut();
        send(channel)?;
        io::Write::flush(channel)?;
        self.poll_for_reply()?;
        protocol::read_frame_into(&mut self.reader, self.max_message_size, &mut self.payload)?;
        Ok(&self.payload)
    }

    /// Waits for [`crate::polling::POLL`] at most for the reply's first
    /// bytes by reads that do not wait, yielding the CPU between them, before
    /// the read that blocks: a reply that comes within the poll is taken
    /// without sleeping for it. A reader asleep on a Unix socket is woken
    /// (for nothing) when the server takes the request, which costs two more
    /// context switches; on one CPU the server runs in the yields. Not on TCP
    /// in a process that runs on one CPU ([`worth_polling`]).
    fn poll_for_reply(&mut self) -> io::Result<()> {
        if !self.reader.buffer().is_empty()
            || !worth_polling(self.reader.get_ref().socket().transport())
        {
            return Ok(());
        }
        self.reader.get_mut().set_dont_wait(true);
        let polled = poll_briefly(|| unless_not_ready(self.reader.fill_buf().map(|_| ())));
        self.reader.get_mut().set_dont_wait(false);
        polled.unwrap_or(Ok(()))
    }

    /// What a reply says: its response, or the error it reports (a crash or
    /// a lost connection also ends the session).
    fn answer(
        &mut self,
        response: std::result::Result<Response, ProtocolError>,
    ) -> Result<Response> {
        match response {
            Ok(Response::Failed { message }) => Err(RuntimeError::Remote(message)),
            Ok(Response::Crashed { symbol, signal }) => {
                let name = signal_name(signal).to_owned();
                // No kernel raises SIGKILL: something outside killed the worker.
                let error = if symbol.is_empty() || signal == libc::SIGKILL {
                    RuntimeError::WorkerKilled {
                        address: self.address.clone(),
                        signal,
                        name,
                        running: (!symbol.is_empty()).then_some(symbol),
                    }
                } else if let Some(path) = object_of_load_time_code(&symbol) {
                    // Linking a sent object ahead of its launch, say.
                    RuntimeError::LoadCrashed {
                        path: path.to_owned(),
                        signal,
                        name,
                    }
                } else {
                    RuntimeError::KernelCrashed {
                        symbol,
                        signal,
                        name,
                    }
                };
                self.end(error.to_string());
                Err(error)
            }
            Ok(response) => Ok(response),
            Err(error) => {
                let error = self.lost(error);
                self.end(error.to_string());
                Err(error)
            }
        }
    }

    /// Marks the connection unusable and closes it, so the server's side
    /// ends as well.
    pub fn end(&mut self, reason: String) {
        if self.ended.is_none() {
            self.reader.get_mut().close();
            self.ended = Some(reason);
        }
    }

    /// Ends the session over a reply that does not fit its request
    /// (`what` says how), before any of it is used.
    pub fn reject_reply(&mut self, what: String) -> RuntimeError {
        let error = RuntimeError::UnfitReply {
            address: self.address.clone(),
            what,
        };
        self.end(error.to_string());
        error
    }

    fn unreachable(&self, reason: String) -> RuntimeError {
        RuntimeError::Unreachable {
            address: self.address.clone(),
            reason,
        }
    }

    fn lost(&self, error: ProtocolError) -> RuntimeError {
        match error {
            ProtocolError::Io(error) if error.kind() == io::ErrorKind::TimedOut => self
                .unreachable(format!(
                    "the link is dead: the executor's host has not answered for {} ms \
                     (dead_link_timeout_ms) ({error})",
                    self.dead_link_timeout.as_millis()
                )),
            ProtocolError::Io(error) if error.kind() == io::ErrorKind::WouldBlock => {
                self.unreachable("no answer in time".to_owned())
            }
            ProtocolError::Closed | ProtocolError::Truncated { .. } | ProtocolError::Io(_) => {
                self.unreachable(format!("lost the connection: {error}"))
            }
            other => other.into(),
        }
    }
}

/// A request that was not sent, since it is over the server's limit: the
/// session is still usable.
fn refused(error: ProtocolError) -> RuntimeError {
    match error {
        ProtocolError::TooLarge { size, limit } => RuntimeError::Protocol(format!(
            "the request is {size} bytes, over the executor's limit of {limit} \
             (executor-server --max-message-size)"
        )),
        other => other.into(),
    }
}

fn connect(address: &str, options: &ConnectOptions) -> Result<Stream> {
    let unreachable = |reason: String| RuntimeError::Unreachable {
        address: address.to_owned(),
        reason,
    };
    if let Some(Address::Unix { path }) = Address::parse(address) {
        return connect_unix(&path, options).map_err(unreachable);
    }
    let candidates: Vec<SocketAddr> = address
        .to_socket_addrs()
        .map_err(|error| unreachable(format!("cannot resolve it: {error}")))?
        .collect();
    let mut last_error = None;
    for candidate in &candidates {
        if options.tls.is_none() && !options.insecure_plaintext && !candidate.ip().is_loopback() {
            last_error = Some(plaintext_refused(candidate));
            continue;
        }
        match TcpStream::connect_timeout(candidate, options.connect_timeout) {
            Ok(stream) => {
                let stream = Stream::Tcp(stream);
                stream
                    .prepare(options.dead_link_timeout)
                    .map_err(|error| unreachable(error.to_string()))?;
                return Ok(stream);
            }
            Err(error) => last_error = Some(error),
        }
    }
    Err(unreachable(match last_error {
        Some(error) => error.to_string(),
        None => "it resolves to no address".to_owned(),
    }))
}

/// Why a plaintext session to `candidate`, off loopback, is not attempted:
/// the network could read the token and every object, and could pose as
/// the server.
fn plaintext_refused(candidate: &SocketAddr) -> io::Error {
    io::Error::other(format!(
        "refusing plaintext to {}, which is not loopback: pin the server's certificate \
         (tls_fingerprint or tls_ca in the address's EXECUTOR_CONFIG section), or set \
         insecure_plaintext = true there if the network is trusted",
        candidate.ip()
    ))
}

/// Connects to the server's socket file at `path`; the reason it cannot,
/// in words that say what to check.
fn connect_unix(path: &Path, options: &ConnectOptions) -> std::result::Result<Stream, String> {
    Stream::connect_unix(path, options.connect_timeout).map_err(|error| {
        // Linux refuses a connection to a file that is no socket as it
        // refuses one to a socket nothing listens on: the file tells which.
        let is_socket =
            std::fs::metadata(path).is_ok_and(|metadata| metadata.file_type().is_socket());
        match error.kind() {
            io::ErrorKind::NotFound => "no such socket file: is the server running?".to_owned(),
            io::ErrorKind::ConnectionRefused if !is_socket => {
                format!("'{}' is not a socket", path.display())
            }
            io::ErrorKind::ConnectionRefused => {
                "nothing listens on the socket file: the server that made it is gone".to_owned()
            }
            io::ErrorKind::PermissionDenied => {
                "permission denied: the socket file (or a directory above it) is not open to \
                 this user"
                    .to_owned()
            }
            _ => error.to_string(),
        }
    })
}

/// Sends `Hello`, reads the reply and returns the server's message size limit
/// and triple.
fn handshake(
    address: &str,
    channel: &mut Channel,
    options: &ConnectOptions,
) -> Result<(u32, String)> {
    let unreachable = |reason: String| RuntimeError::Unreachable {
        address: address.to_owned(),
        reason,
    };
    let set_timeouts = |channel: &Channel, timeout| {
        let stream = channel.socket();
        stream
            .set_read_timeout(timeout)
            .and_then(|()| stream.set_write_timeout(timeout))
            .map_err(|error| unreachable(error.to_string()))
    };
    set_timeouts(channel, Some(options.handshake_timeout))?;
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION,
        token: options.token.clone(),
    };
    protocol::write_message(channel, &hello, HANDSHAKE_MAX_MESSAGE_SIZE)
        .and_then(|()| io::Write::flush(channel).map_err(ProtocolError::Io))
        .map_err(|error| unreachable(format!("handshake failed: {error}")))?;
    let reply = protocol::read_message::<HelloReply>(channel, HANDSHAKE_MAX_MESSAGE_SIZE).map_err(
        |error| match error {
            ProtocolError::Io(error)
                if matches!(
                    error.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                unreachable(format!(
                    "no handshake reply within {:?}: is an executor-server listening there?",
                    options.handshake_timeout
                ))
            }
            ProtocolError::Malformed(_) | ProtocolError::TooLarge { .. } => {
                RuntimeError::Protocol(format!(
                    "{address} did not answer the handshake as an executor-server does: {error}"
                ))
            }
            other => unreachable(format!("handshake failed: {other}")),
        },
    )?;
    match reply {
        HelloReply::WelcomeWithTriple {
            protocol_version: PROTOCOL_VERSION,
            max_message_size,
            triple,
        } => {
            set_timeouts(channel, None)?;
            Ok((max_message_size, triple))
        }
        HelloReply::WelcomeWithTriple {
            protocol_version, ..
        }
        | HelloReply::Welcome {
            protocol_version, ..
        } => Err(RuntimeError::Protocol(format!(
            "the executor at {address} speaks protocol version {protocol_version}, this client {PROTOCOL_VERSION}"
        ))),
        HelloReply::Refused { reason } => Err(RuntimeError::Remote(format!(
            "the executor at {address} refused the session: {reason}"
        ))),
    }
}

/// The error for a reply other than the `expected` response.
pub(super) fn unexpected(response: Response, expected: &str) -> RuntimeError {
    RuntimeError::Protocol(format!(
        "expected {expected} from the executor, got {response:?}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        memref::{DenseBuffer, OwnedDescriptor},
        remote::fake_server::serve,
    };

    #[test]
    fn a_crash_while_the_worker_loads_a_binary_is_the_loads_whatever_request_it_answers() {
        let crashed = Response::Crashed {
            symbol: crate::error::load_time_code_of("/k/a.o"),
            signal: libc::SIGSEGV,
        };
        let (address, server) = serve(vec![crashed]);
        let mut connection = Connection::open(&address, &ConnectOptions::default()).unwrap();
        let error = connection.round_trip(&Request::Close).unwrap_err();
        assert_eq!(
            error.to_string(),
            "loading '/k/a.o' crashed with signal 11 (SIGSEGV)"
        );
        server.join().unwrap();
    }

    fn bytes(len: usize) -> DenseBuffer {
        DenseBuffer {
            element_size: 1,
            sizes: vec![len as i64],
            data: vec![7; len],
        }
    }

    #[test]
    fn a_large_reply_does_not_stay_in_memory_and_a_small_one_does() {
        let large = RETAINED_PAYLOAD_CAPACITY + 1;
        let replies = vec![
            Response::Launched {
                outputs: vec![bytes(large)],
            },
            Response::Launched {
                outputs: vec![bytes(1000)],
            },
            Response::CallResult(vec![1; large]),
        ];
        let (address, server) = serve(replies);
        let mut connection = Connection::open(&address, &ConnectOptions::default()).unwrap();
        let shapes = [OutputShape {
            rank: 1,
            element_size: 1,
        }];
        for len in [large, 1000] {
            let mut output = OwnedDescriptor::empty(1, 1);
            let results = [output.descriptor()];
            connection.launch("e", "o", &[], &shapes, &results).unwrap();
            assert_eq!(results[0].to_dense(), bytes(len));
            // SAFETY: the result's buffer is the launch's, and no one else's.
            unsafe { results[0].free_filled() };
            let kept = connection.payload.capacity();
            if len == large {
                assert_eq!(kept, 0, "the large payload's buffer is kept");
            } else {
                assert!(kept >= len, "a small payload's buffer is not kept");
            }
        }
        let call = Request::Call {
            symbol: "f".into(),
            layout: executor_abi::call_buffer::Layout::ThisProject,
            arguments: Vec::new(),
        };
        let result = connection.round_trip(&call).unwrap();
        assert_eq!(result, Response::CallResult(vec![1; large]));
        assert_eq!(connection.payload.capacity(), 0);
        server.join().unwrap();
    }

    /// Each reason a socket file cannot be reached is one line naming the
    /// address and what to check.
    #[test]
    fn an_unreachable_socket_file_says_why() {
        let directory = tempfile::tempdir().unwrap();
        let at = |name: &str| format!("unix:{}", directory.path().join(name).display());
        let reason = |address: &str| {
            Connection::open(address, &ConnectOptions::default())
                .err()
                .expect("not reached")
                .to_string()
        };
        let missing = at("missing.sock");
        assert_eq!(
            reason(&missing),
            format!(
                "cannot reach executor at {missing}: no such socket file: is the server running?"
            )
        );
        std::fs::write(directory.path().join("file"), "").unwrap();
        let file = at("file");
        assert_eq!(
            reason(&file),
            format!(
                "cannot reach executor at {file}: '{}' is not a socket",
                directory.path().join("file").display()
            )
        );
        drop(std::os::unix::net::UnixListener::bind(directory.path().join("stale.sock")).unwrap());
        let stale = at("stale.sock");
        assert!(reason(&stale).contains("nothing listens on the socket file"));
    }
}
