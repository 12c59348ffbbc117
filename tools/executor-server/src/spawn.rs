//! Starting a worker process: this executable re-run with `--worker`, which
//! inherits two file descriptors, passed by number: its control channel
//! (`handover.rs`), on which it receives its session's connection once it is
//! ready, and the status table's memfd (`status.rs`). Everything else it
//! inherits is closed on exec.

use std::{
    fs::File,
    io,
    os::{
        fd::{AsFd, AsRawFd, OwnedFd, RawFd},
        unix::process::CommandExt,
    },
    path::Path,
    process::{Child, Command, Stdio},
};

use crate::{
    Settings, catalyst_assets,
    handover::{self, SessionTls},
    status::StatusTable,
};
use executor_protocol::{Step, Stream};

/// A worker process that has not been given a session yet.
pub(crate) struct SpawnedWorker {
    child: Child,
    status: StatusTable,
    /// The server's end of the worker's control channel.
    control: OwnedFd,
}

impl SpawnedWorker {
    /// Starts a worker, which initialises its executor and then waits for a
    /// session on its control channel.
    pub(crate) fn spawn(settings: &Settings) -> io::Result<Self> {
        let (status, status_for_worker) = StatusTable::create()?;
        let (control, control_for_worker) = handover::channel()?;
        // Both are close-on-exec and numbered from 3 up, so they can neither
        // leak into other workers nor collide with the worker's stdio.
        let inherited = [
            control_for_worker.as_raw_fd(),
            status_for_worker.as_raw_fd(),
        ];
        let server_pid = std::process::id();

        let mut command = Command::new(&settings.worker_program);
        command
            // What `ps` shows, whatever path the program was run by.
            .arg0("executor-server")
            .arg("--worker")
            .args(["--control-fd", &inherited[0].to_string()])
            .args(["--status-fd", &inherited[1].to_string()])
            .args(["--max-message-size", &settings.max_message_size.to_string()]);
        for library in &settings.preload {
            command.arg("--preload").arg(library);
        }
        if let Some(trace_dir) = &settings.trace_dir {
            command.arg("--trace-dir").arg(trace_dir);
        }
        // Kernels run in the worker: a token the server was given in its
        // environment (as a client's, say) is not theirs to read.
        command.env_remove(executor_runtime::remote::TOKEN_ENV);
        // What kernels print goes to the server's log stream, keeping stdout
        // to the one "Listening on" line.
        let stderr = File::from(io::stderr().as_fd().try_clone_to_owned()?);
        command.stdin(Stdio::null()).stdout(stderr);
        // SAFETY: the hook runs between fork and exec, where only
        // async-signal-safe calls are allowed: it makes nothing but system
        // calls and does not allocate.
        unsafe { command.pre_exec(move || prepare_worker_process(inherited, server_pid)) };
        let child = command.spawn()?;
        // The worker has its copies; the table stays mapped here.
        drop((control_for_worker, status_for_worker));
        Ok(Self {
            child,
            status,
            control,
        })
    }

    /// Whether the worker is still there to take a session.
    pub(crate) fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Gives the worker its session; from here on the worker is the
    /// session's alone. A worker that cannot take it is killed.
    pub(crate) fn hand_over(
        mut self,
        stream: &Stream,
        directory: &Path,
        request_head: &[u8],
        tls: Option<&SessionTls>,
        steps: &[Step],
    ) -> io::Result<(Child, StatusTable)> {
        let sent = handover::send_session(
            self.control.as_fd(),
            stream.as_fd(),
            directory,
            request_head,
            tls,
            steps,
        );
        match sent {
            Ok(()) => Ok((self.child, self.status)),
            Err(error) => {
                let _ = self.child.kill();
                // Its link to Catalyst's asset path, made while it waited:
                // removed before it is reaped, while its pid names no other
                // process.
                catalyst_assets::remove_link_of(self.pid());
                let _ = self.child.wait();
                Err(error)
            }
        }
    }
}

/// In the forked child, before exec: lets the two descriptors through exec,
/// makes the worker die with the server, clears the signal mask (the server
/// blocks termination signals for its signal thread), and makes the worker
/// the leader of a process group of its own, so that what its kernels start
/// can be ended with it.
fn prepare_worker_process(inherited: [RawFd; 2], server_pid: u32) -> io::Result<()> {
    // SAFETY: setpgid changes only this process's group; no memory involved.
    if unsafe { libc::setpgid(0, 0) } == -1 {
        return Err(io::Error::last_os_error());
    }
    for fd in inherited {
        // SAFETY: clearing FD_CLOEXEC on a descriptor this process owns.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    // SAFETY: an empty set is fully initialized by sigemptyset below.
    let mut no_signals: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to a signal set; a null old-set pointer is allowed.
    let unblocked = unsafe {
        libc::sigemptyset(&mut no_signals) == 0
            && libc::sigprocmask(libc::SIG_SETMASK, &no_signals, std::ptr::null_mut()) == 0
    };
    if !unblocked {
        return Err(io::Error::last_os_error());
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sets this process's parent-death signal; no memory involved.
        if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } == -1 {
            return Err(io::Error::last_os_error());
        }
        // The server may have died before the line above took effect. Then
        // no one waits for this child, nor reads why it did not start (std
        // would abort, printing that it could not say so): it ends here.
        // SAFETY: getppid has no preconditions.
        if unsafe { libc::getppid() } as u32 != server_pid {
            // SAFETY: _exit is async-signal-safe, as this forked child
            // requires, and ends it without running anything of the parent's.
            unsafe { libc::_exit(0) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = server_pid;
    Ok(())
}
