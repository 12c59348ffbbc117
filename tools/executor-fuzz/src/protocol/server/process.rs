//! The executor-server under fuzz: started on 127.0.0.1 (a free port) with
//! a token file, under the address-space limit, its log appended to the
//! work directory; stopped by SIGTERM, then SIGKILL.

use std::{
    fs,
    io::{self, BufRead, BufReader},
    net::SocketAddr,
    os::unix::fs::PermissionsExt,
    process::{Child, ChildStdout, Command, Stdio},
    thread::sleep,
    time::{Duration, Instant},
};

use super::{Options, TOKEN};

/// A running executor-server of the fuzzer, stopped when dropped.
pub(super) struct Server {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    pub(super) address: SocketAddr,
}

impl Server {
    pub(super) fn start(options: &Options) -> io::Result<Self> {
        let token_file = options.work_dir.join("token");
        fs::write(&token_file, TOKEN)?;
        fs::set_permissions(&token_file, fs::Permissions::from_mode(0o600))?;
        let sessions = options.work_dir.join("sessions");
        fs::create_dir_all(&sessions)?;
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(options.work_dir.join("server.log"))?;
        let mut command = match options.address_space {
            Some(bytes) => {
                let mut sh = Command::new("/bin/sh");
                sh.args(["-c", "ulimit -v \"$0\" && exec \"$@\""])
                    .arg((bytes / 1024).to_string())
                    .arg(&options.server);
                sh
            }
            None => Command::new(&options.server),
        };
        // Loopback only, a free port.
        command
            .args(["--listen", "127.0.0.1:0", "--work-dir"])
            .arg(&sessions)
            .arg("--token-file")
            .arg(&token_file)
            .env("EXECUTOR_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log);
        let mut child = command.spawn()?;
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        let address = line
            .trim_end()
            .strip_prefix("Listening on ")
            .and_then(|address| address.parse::<SocketAddr>().ok())
            .filter(|address| address.ip().is_loopback())
            .ok_or_else(|| {
                let _ = child.kill();
                let _ = child.wait();
                io::Error::other(format!("executor-server did not start: {line:?}"))
            })?;
        Ok(Self {
            child,
            _stdout: stdout,
            address,
        })
    }

    /// None while it runs, else how it ended.
    pub(super) fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(None) => None,
            Ok(Some(status)) => Some(status.to_string()),
            Err(error) => Some(error.to_string()),
        }
    }

    /// SIGTERM (it removes its sessions' directories), then SIGKILL after 5 s.
    pub(super) fn stop(&mut self) {
        if self.exited().is_some() {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.exited().is_none() && Instant::now() < deadline {
            sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
