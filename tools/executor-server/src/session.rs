//! One connection, from accept to close: the handshake, the session's private
//! directory, and the supervised worker that serves it.

use std::{io, os::unix::fs::PermissionsExt, path::Path, time::Instant};

use tempfile::TempDir;

use executor_protocol::{Stream, Transport};

use crate::{
    Accepting,
    handshake::{self, Admission},
    linger::close_gracefully,
    listener::Peer,
    pending::Pending,
    supervisor,
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
    let span = tracing::info_span!("session", id, %peer);
    let _entered = span.enter();
    // On TCP: no Nagle delay, and a client whose host goes silent is given
    // up on (`Stream::prepare`).
    if let Err(error) = stream.prepare(settings.dead_link_timeout) {
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
    // and one sent is ignored.
    let expected_token = match stream.transport() {
        Transport::Tcp => settings.token.as_deref(),
        Transport::Unix => None,
    };
    let admission = handshake::read_hello(stream, expected_token, deadline, &pending);
    if !pending.finish() {
        tracing::info!("closed to make room for newer connections in their handshake");
        handshake::refuse(
            stream,
            "too many connections are in their handshake with this server; this one was the \
             oldest and had not sent its whole Hello"
                .to_owned(),
            deadline,
        );
        return;
    }
    match admission {
        Admission::Admit => {}
        Admission::Refuse(reason) => {
            tracing::warn!(%reason, "refused");
            handshake::refuse(stream, reason, deadline);
            return;
        }
        Admission::Drop(error) => {
            tracing::info!(%error, "closed before completing the handshake");
            return;
        }
    }
    // The directory exists before the client is welcomed, so a client never
    // sees a session that could not store its binaries.
    let directory = match create_private_directory(&settings.work_dir, &settings.session_dir_prefix)
    {
        Ok(directory) => directory,
        Err(error) => {
            tracing::error!(%error, work_dir = %settings.work_dir.display(), "cannot create a session directory");
            handshake::refuse(
                stream,
                format!("the server cannot create a session directory: {error}"),
                deadline,
            );
            return;
        }
    };
    if !live_sessions.add_within(settings.max_sessions, id, directory.path().to_owned()) {
        tracing::warn!(
            max_sessions = settings.max_sessions,
            "refused: the server serves its limit of sessions"
        );
        handshake::refuse(
            stream,
            format!(
                "the server already serves its limit of {} sessions (executor-server --max-sessions)",
                settings.max_sessions
            ),
            deadline,
        );
        return;
    }
    let started = Instant::now();
    let admitted = handshake::welcome(stream, settings.max_message_size, deadline)
        .map_err(io::Error::other)
        // Requests may come at any pace and kernels run as long as they
        // need: no timeouts once the session is open. Only a client whose
        // host has gone silent is given up on (on TCP, set up above).
        .and_then(|()| clear_timeouts(stream));
    match admitted {
        Ok(()) => {
            tracing::info!(directory = %directory.path().display(), "session started");
            supervisor::run(
                id,
                stream,
                directory.path(),
                settings,
                live_sessions,
                &server.warm_workers,
            );
        }
        Err(error) => tracing::info!(%error, "the client left during the handshake"),
    }
    live_sessions.remove(id);
    let directory_path = directory.path().to_owned();
    if let Err(error) = directory.close() {
        tracing::warn!(directory = %directory_path.display(), %error, "cannot remove the session directory");
    }
    tracing::info!(elapsed = ?started.elapsed(), "session ended");
}

fn clear_timeouts(stream: &Stream) -> io::Result<()> {
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)
}

/// A directory only this user can enter, removed when the session ends.
fn create_private_directory(work_dir: &Path, prefix: &str) -> io::Result<TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(work_dir)
}
