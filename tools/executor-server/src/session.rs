//! One connection, from accept to close: on a TLS listener the TLS
//! handshake, then the protocol's handshake (through TLS there), the
//! session's private directory, and the supervised worker that serves it.

use std::{io, time::Instant};

use executor_protocol::{BUSY_REFUSAL, Stream, Transport, tls::RecordExactStream};

use crate::{
    Accepting,
    handshake::{self, Admission},
    handshake_socket::HandshakeSocket,
    linger::close_gracefully,
    link::Link,
    listener::Peer,
    pending::Pending,
    steps, supervisor,
    tls::{self, ServerTls},
};

/// Serves the connection `stream`, accepted at `accepted`, which counts as
/// `pending` until its handshake ends.
pub(crate) fn serve(
    id: u64,
    stream: &Stream,
    peer: Peer,
    accepted: Instant,
    pending: Pending,
    server: &Accepting,
) {
    let (settings, live_sessions) = (&*server.settings, &server.live_sessions);
    let mut span = SessionSpan::new(id, peer);
    // On TCP: no Nagle delay, and a client whose host goes silent is given
    // up on. The listener's connections come so, but for those that arrived
    // before it was prepared (the one that woke a socket-activated server).
    if let Err(error) = stream.prepare_unless_prepared(settings.dead_link_timeout) {
        span.enter();
        tracing::warn!(%error, "cannot configure the connection");
        return;
    }
    let deadline = accepted + settings.handshake.timeout;
    // A Unix socket's peer is known before it says anything: one whose uid
    // is not allowed is refused before any of its bytes is read.
    if let Peer::Uid(uid) = peer
        && !settings.allowed_uids.contains(&uid)
    {
        drop(pending);
        span.enter();
        tracing::warn!(uid, "refused: the uid is not allowed (--allow-uid)");
        handshake::refuse(
            stream,
            format!(
                "uid {uid} is not allowed on this server's socket (executor-server --allow-uid)"
            ),
            deadline,
        );
        // Its Hello is drained, so that closing does not discard the reply.
        close_gracefully(stream);
        return;
    }
    // On a Unix socket, the uid was the credential: a token is not needed,
    // and one sent is ignored. TLS is for TCP listeners only.
    let (expected_token, tls) = match stream.transport() {
        Transport::Tcp => (settings.token.as_deref(), settings.tls.as_ref()),
        Transport::Unix => (None, None),
    };
    let socket = HandshakeSocket::new(stream, deadline, pending);
    let mut link = match tls {
        None => Link::Plain(socket),
        Some(tls) => match start_tls(tls, socket, &mut span) {
            Some(link) => link,
            None => return,
        },
    };
    let admission = handshake::read_hello(&mut link, expected_token);
    if !link.socket_mut().finish_pending() {
        span.enter();
        tracing::info!("closed to make room for newer connections in their handshake");
        handshake::refuse_through(
            &mut link,
            format!(
                "{BUSY_REFUSAL} are in their handshake with this server; this one was the \
                 oldest and had not sent its whole Hello"
            ),
        );
        return;
    }
    let protocol_version = match admission {
        Admission::Admit { protocol_version } => protocol_version,
        Admission::Refuse(reason) => {
            span.enter();
            tracing::warn!(%reason, "refused");
            handshake::refuse_through(&mut link, reason);
            link.close();
            return;
        }
        Admission::Drop(error) => {
            span.enter();
            tracing::info!(%error, "closed before completing the handshake");
            return;
        }
    };
    // The directory exists before the client is welcomed, so a client never
    // sees a session that could not store its binaries.
    let directory = match server.directories.take(|| span.enter()) {
        Ok(directory) => directory,
        Err(error) => {
            span.enter();
            tracing::error!(%error, work_dir = %settings.work_dir.display(), "cannot create a session directory");
            handshake::refuse_through(
                &mut link,
                format!("the server cannot create a session directory: {error}"),
            );
            link.close();
            return;
        }
    };
    if !live_sessions.add_within(settings.max_sessions, id, directory.path().to_owned()) {
        // Removed before the refusal lingers (up to a second): not being a
        // live session's, it would outlive a server stopped meanwhile.
        drop(directory);
        span.enter();
        tracing::warn!(
            max_sessions = settings.max_sessions,
            "refused: the server serves its limit of sessions"
        );
        handshake::refuse_through(
            &mut link,
            format!(
                "the server already serves its limit of {} sessions (executor-server --max-sessions)",
                settings.max_sessions
            ),
        );
        link.close();
        return;
    }
    let started = Instant::now();
    let admitted = handshake::welcome(&mut link, protocol_version, settings.max_message_size)
        .map_err(io::Error::other)
        // Requests may come at any pace and kernels run as long as they
        // need: no timeouts once the session is open. Only a client whose
        // host has gone silent is given up on (on TCP, set up above).
        .and_then(|()| link.socket_mut().end_deadline());
    // Everything from here on logs in the session's span.
    span.enter();
    match admitted {
        Ok(()) => {
            tracing::info!(directory = %directory.path().display(), "session started");
            let handshake = steps::since("handshake", accepted);
            supervisor::run(id, stream, link, directory.path(), server, handshake);
        }
        Err(error) => tracing::info!(%error, "the client left during the handshake"),
    }
    live_sessions.remove(id);
    let directory_path = directory.path().to_owned();
    match directory.close() {
        // Removed already, with the work directory (executor-slurm's node
        // removes its workspace as the step ends).
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            tracing::warn!(directory = %directory_path.display(), %error, "cannot remove the session directory")
        }
        Ok(()) => {}
    }
    tracing::info!(elapsed = ?started.elapsed(), "session ended");
    server.directories.make_spare();
}

/// Runs the TLS handshake of a connection on a TLS listener; None when the
/// connection ends there. A client that does not start with a TLS record
/// speaks the protocol in plaintext: it is told so, in plaintext.
fn start_tls<'s>(
    tls: &ServerTls,
    mut socket: HandshakeSocket<'s>,
    span: &mut SessionSpan,
) -> Option<Link<'s>> {
    let peeked = socket.peek_first_byte();
    // Each outcome but a TLS record is logged.
    span.enter();
    match peeked {
        Ok(Some(tls::HANDSHAKE_RECORD)) => {}
        Ok(Some(_)) => {
            socket.finish_pending();
            tracing::warn!("refused: a plaintext client on a TLS listener");
            handshake::refuse_through(&mut socket, tls::PLAINTEXT_REFUSED.to_owned());
            close_gracefully(socket.stream());
            return None;
        }
        Ok(None) => {
            tracing::info!("closed before the TLS handshake");
            return None;
        }
        Err(error) => {
            tracing::info!(%error, "closed before the TLS handshake");
            return None;
        }
    }
    let connection = match tls.accept() {
        Ok(connection) => connection,
        Err(error) => {
            tracing::error!(%error, "cannot start a TLS session");
            return None;
        }
    };
    socket.speak_tls();
    let mut session = RecordExactStream::new(connection, socket);
    match session.complete_handshake() {
        Ok(()) => {
            // The client's Hello is a message of its own, owed from now.
            session.socket_mut().expect_new_message();
            Some(Link::Tls(Box::new(session)))
        }
        Err(error) => {
            tracing::info!(%error, "the TLS handshake failed");
            None
        }
    }
}

/// The span a session's lines are logged in (`session{id=.. peer=..}`),
/// made and entered before its first line: making it formats its fields
/// and registers it, tens of microseconds that a client being welcomed
/// would wait for, while a session that goes well logs nothing before it is
/// welcomed.
struct SessionSpan {
    id: u64,
    peer: Peer,
    entered: Option<tracing::span::EnteredSpan>,
}

impl SessionSpan {
    fn new(id: u64, peer: Peer) -> Self {
        Self {
            id,
            peer,
            entered: None,
        }
    }

    /// Enters the span, made now unless it was already; it stays entered
    /// until this is dropped.
    fn enter(&mut self) {
        if self.entered.is_none() {
            let (id, peer) = (self.id, self.peer);
            self.entered = Some(tracing::info_span!("session", id, %peer).entered());
        }
    }
}
