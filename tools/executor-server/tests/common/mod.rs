//! What the end-to-end tests of executor-server share: a server process per
//! test, the test kernels, and a look at a server's worker processes. Each
//! test binary uses part of it.
#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader},
    net::TcpStream,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Child, ChildStdout, Command, Stdio},
    sync::Arc,
    thread::sleep,
    time::{Duration, Instant},
};

use executor_abi::call_buffer::Layout;
use executor_runtime::{
    error::RuntimeError,
    executor::Executor,
    memref::{DenseBuffer, OwnedDescriptor},
    packed::{self, CallArguments},
    protocol::{
        self, Fingerprint, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, PROTOCOL_VERSION,
    },
    remote::{ConnectOptions, RemoteExecutor},
};
use tempfile::TempDir;

/// The server under test.
pub const SERVER: &str = env!("CARGO_BIN_EXE_executor-server");

/// A TLS identity made by `executor-server --gen-identity`.
pub struct Identity {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub fingerprint: Fingerprint,
}

pub fn gen_identity(dir: &Path) -> Identity {
    let output = Command::new(SERVER)
        .arg("--gen-identity")
        .arg(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    Identity {
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
        fingerprint: printed.trim().parse().unwrap(),
    }
}

/// A server process of this test, killed (with SIGKILL) when dropped.
pub struct Server {
    pub process: Child,
    /// Its output after the first "Listening on" line.
    pub stdout: BufReader<ChildStdout>,
    /// The address of its first listener.
    pub address: String,
    pub work_dir: PathBuf,
    /// The work directory, unless the test gave one.
    _own_work_dir: Option<TempDir>,
}

impl Server {
    pub fn start(extra_args: &[&str]) -> Self {
        Self::start_with(extra_args, |_| {})
    }

    /// [`Server::start`], with the command adjusted by `configure` first.
    pub fn start_with(extra_args: &[&str], configure: impl FnOnce(&mut Command)) -> Self {
        let work_dir = tempfile::tempdir().unwrap();
        let mut server = Self::start_in(work_dir.path(), extra_args, configure);
        server._own_work_dir = Some(work_dir);
        server
    }

    /// A server on a free loopback port with the work directory `work_dir`.
    pub fn start_in(
        work_dir: &Path,
        extra_args: &[&str],
        configure: impl FnOnce(&mut Command),
    ) -> Self {
        let mut command = Command::new(SERVER);
        command.args(["--listen", "127.0.0.1:0"]).args(extra_args);
        configure(&mut command);
        let server = Self::spawn(command, work_dir);
        assert!(
            server.address.starts_with("127.0.0.1:"),
            "{}",
            server.address
        );
        server
    }

    /// Runs `command`, an executor-server's command line (perhaps run by
    /// another program) to which the work directory `work_dir` is added,
    /// and waits for its first "Listening on" line.
    pub fn spawn(mut command: Command, work_dir: &Path) -> Self {
        command
            .arg("--work-dir")
            .arg(work_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        // Errors only, unless the test asks for more.
        if !command.get_envs().any(|(name, _)| name == "EXECUTOR_LOG") {
            command.env("EXECUTOR_LOG", "error");
        }
        let mut process = command.spawn().expect("executor-server starts");
        let mut stdout = BufReader::new(process.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let address = line
            .trim_end()
            .strip_prefix("Listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Self {
            process,
            stdout,
            address,
            work_dir: work_dir.to_owned(),
            _own_work_dir: None,
        }
    }

    pub fn connect(&self) -> Result<RemoteExecutor, RuntimeError> {
        RemoteExecutor::connect_with(&self.address, &ConnectOptions::default())
    }

    /// The session directories in the work directory (of every server that
    /// uses it), sorted: the live sessions', and each server's spare, made
    /// ahead for its next session.
    pub fn session_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&self.work_dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| {
                let name = path.file_name().unwrap().to_string_lossy();
                name.starts_with("executor-session-")
            })
            .collect();
        dirs.sort();
        dirs
    }

    /// The lock files of the servers using the work directory.
    pub fn lock_files(&self) -> usize {
        std::fs::read_dir(&self.work_dir)
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                let name = name.to_string_lossy();
                name.starts_with("executor-server-") && name.ends_with(".lock")
            })
            .count()
    }

    /// The session directories that some server holds open: each server's
    /// spare, made ahead for its next session (a session's directory is
    /// never held open by its server). A server's children do not count: one
    /// forked but not yet running its program holds a copy of every
    /// descriptor of the server's, the spare's that became a session's too.
    pub fn spare_dirs(&self) -> Vec<PathBuf> {
        let directories = self.session_dirs();
        let server_program = std::fs::canonicalize(SERVER).unwrap();
        let is_server = |pid: u32| {
            std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == server_program)
        };
        let mut spares: Vec<PathBuf> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|&pid| parent_of(pid).is_some_and(|parent| !is_server(parent)))
            .filter_map(|pid| std::fs::read_dir(format!("/proc/{pid}/fd")).ok())
            .flatten()
            .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .filter(|target| directories.contains(target))
            .collect();
        spares.sort();
        spares.dedup();
        spares
    }

    /// Whether only spares are left of the session directories: every
    /// session's has been removed.
    pub fn only_spares_left(&self) -> bool {
        let spares = self.spare_dirs();
        self.session_dirs()
            .iter()
            .all(|directory| spares.contains(directory))
    }

    /// Waits (a bounded time) until only spares are left of the session
    /// directories.
    pub fn assert_sessions_cleaned_up(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.only_spares_left() {
            assert!(
                Instant::now() < deadline,
                "left behind: {:?}",
                self.session_dirs()
            );
            sleep(Duration::from_millis(20));
        }
    }

    /// The worker processes: warm ones and those serving sessions. A child
    /// counts once it runs `executor-server --worker`: between fork and exec
    /// it is still a copy of the server, with the server's environment.
    pub fn workers(&self) -> Vec<u32> {
        children_of(self.process.id())
            .into_iter()
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                    cmdline
                        .split(|byte| *byte == 0)
                        .any(|arg| arg == b"--worker")
                })
            })
            .collect()
    }

    /// Waits (a bounded time) until `count` workers are running.
    pub fn wait_for_workers(&self, count: usize) -> Vec<u32> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let workers = self.workers();
            if workers.len() == count {
                return workers;
            }
            assert!(
                Instant::now() < deadline,
                "{} workers, not {count}: {workers:?}",
                workers.len()
            );
            sleep(Duration::from_millis(20));
        }
    }

    /// The worker serving the session whose directory is `directory`: its
    /// working directory is the session's asset directory.
    pub fn worker_of(&self, directory: &Path) -> u32 {
        let serving: Vec<u32> = self
            .workers()
            .into_iter()
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/cwd"))
                    .is_ok_and(|cwd| cwd.starts_with(directory))
            })
            .collect();
        assert_eq!(
            serving.len(),
            1,
            "the workers in {directory:?}: {serving:?}"
        );
        serving[0]
    }

    pub fn raw_session(&self) -> (TcpStream, u32) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let hello = Hello {
            protocol_version: PROTOCOL_VERSION,
            token: None,
        };
        protocol::write_message(&mut stream, &hello, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap();
        match protocol::read_message(&mut stream, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap() {
            HelloReply::WelcomeWithTriple {
                max_message_size, ..
            } => (stream, max_message_size),
            refused => panic!("{refused:?}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Kernels in C, built the way `llvm.emit_c_interface` lays out arguments:
/// result descriptors first, then inputs. Launches name the wrapper itself,
/// as the lowering does.
pub const KERNELS: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;

void _mlir_ciface_add(memref_1d *result, memref_1d *a, memref_1d *b) {
    int64_t n = a->sizes[0];
    float *sum = malloc(n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        sum[i] = a->aligned[a->offset + i * a->strides[0]] + b->aligned[b->offset + i * b->strides[0]];
    *result = (memref_1d){sum, sum, 0, {n}, {1}};
}

/* Returns its input: the executor must not free that buffer. */
void _mlir_ciface_identity(memref_1d *result, memref_1d *a) { *result = *a; }

/* Returns a buffer inside an allocated block, not one malloc returned:
   freeing it aborts the process (glibc: "free(): invalid pointer", the block
   zeroed so that the word free reads as a size is 0). */
void _mlir_ciface_unfreeable(memref_1d *result) {
    float *inside = (float *)calloc(1, 64) + 2;
    inside[0] = 1;
    inside[1] = 2;
    *result = (memref_1d){inside, inside, 0, {2}, {1}};
}

/* Reads two floats of the asset numbers.bin where Catalyst's executor keeps
   assets: $TMPDIR/catalyst-assets/<the process's pid>/. */
void _mlir_ciface_read_catalyst_asset(memref_1d *result) {
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/catalyst-assets/%d/numbers.bin", tmp ? tmp : "/tmp", (int)getpid());
    float *values = malloc(2 * sizeof(float));
    FILE *file = fopen(path, "rb");
    if (!file || fread(values, sizeof(float), 2, file) != 2)
        values[0] = values[1] = -1;
    if (file)
        fclose(file);
    *result = (memref_1d){values, values, 0, {2}, {1}};
}

void _mlir_ciface_segv(void) { *(volatile int *)0 = 1; }

void _mlir_ciface_hang(void) { for (;;) pause(); }

void _mlir_ciface_nap(void) { usleep(100000); }

void warm_up(void) { usleep(1000); }

/* Starts a process that runs on after the call, until something ends it. */
void spawn_sleeper(void) {
    if (fork() == 0) {
        execl("/bin/sleep", "sleep", "600", (char *)0);
        _exit(127);
    }
}

void crash_later(void) { usleep(50000); *(volatile int *)0 = 1; }

/* For executor.call: one input and one output buffer, written in place. */
void twice(memref_1d *in, memref_1d *out) {
    for (int64_t i = 0; i < in->sizes[0]; i++) out->aligned[i] = 2 * in->aligned[i];
}
"#;

/// The test kernels as a shared library.
/// A token file of mode 0600 in `directory`, holding `token`.
pub fn token_file(directory: &Path, token: &str) -> PathBuf {
    let path = directory.join("token");
    std::fs::write(&path, token).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

/// The log at `path` once it holds `needle`, or as it is after a bounded wait.
pub fn log_once_it_holds(path: &Path, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(path).unwrap();
        if text.contains(needle) || Instant::now() > deadline {
            return text;
        }
        sleep(Duration::from_millis(20));
    }
}

pub fn compile_kernels(directory: &Path) -> PathBuf {
    compile_kernels_to(&directory.join("kernels.so"), &["-shared"])
}

/// The test kernels compiled with `flags` to `output` (beside their source).
pub fn compile_kernels_to(output: &Path, flags: &[&str]) -> PathBuf {
    compile_to(KERNELS, output, flags)
}

/// The C `code` compiled with `flags` to `output` (beside its source).
pub fn compile_to(code: &str, output: &Path, flags: &[&str]) -> PathBuf {
    let source = output.with_extension("c");
    std::fs::write(&source, code).unwrap();
    let llvm_clang = Path::new(env!("EXECUTOR_LLVM_PREFIX")).join("bin/clang");
    let compiler = if llvm_clang.exists() {
        llvm_clang
    } else {
        PathBuf::from("cc")
    };
    let status = Command::new(&compiler)
        .args(flags)
        .args(["-fPIC", "-O1", "-o"])
        .arg(output)
        .arg(&source)
        .status()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", compiler.display()));
    assert!(status.success(), "compiling {} failed", source.display());
    output.to_owned()
}

/// The state of process `pid` (`R`, `S`, `Z`...), from `/proc/PID/stat`.
pub fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .next()?
        .chars()
        .next()
}

/// Opens and closes `clients` sessions at `address` at once, with
/// `options`; the errors of those that failed.
pub fn burst_of_clients(address: &str, options: &ConnectOptions, clients: usize) -> Vec<String> {
    let start = Arc::new(std::sync::Barrier::new(clients));
    let clients: Vec<_> = (0..clients)
        .map(|_| {
            let (start, address, options) =
                (Arc::clone(&start), address.to_owned(), options.clone());
            std::thread::spawn(move || {
                start.wait();
                RemoteExecutor::connect_with(&address, &options).and_then(|session| session.close())
            })
        })
        .collect();
    clients
        .into_iter()
        .filter_map(|client| client.join().unwrap().err())
        .map(|error| error.to_string())
        .collect()
}

/// The processes whose parent is `parent`.
pub fn children_of(parent: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| parent_of(pid) == Some(parent))
        .collect()
}

/// The parent of process `pid`, unless it has ended.
fn parent_of(pid: u32) -> Option<u32> {
    // The parent is the 2nd field after the command, which ends at the last ')'.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields = stat.rsplit_once(')')?.1;
    fields.split_whitespace().nth(1)?.parse().ok()
}

/// A rank-1 buffer of `values`.
pub fn floats(values: &[f32]) -> DenseBuffer {
    DenseBuffer {
        element_size: 4,
        sizes: vec![values.len() as i64],
        data: values
            .iter()
            .flat_map(|value| value.to_ne_bytes())
            .collect(),
    }
}

/// `executor-server --check` of `address`, with the client configuration
/// `config` if given and no token from the environment: whether it
/// answered, and its one line.
pub fn check(address: &str, config: Option<&Path>) -> (bool, String) {
    let mut command = Command::new(SERVER);
    command
        .args(["--check", address])
        .env_remove("EXECUTOR_TOKEN")
        .env_remove("EXECUTOR_TOKEN_FILE")
        .env_remove("EXECUTOR_CONFIG");
    if let Some(config) = config {
        command.env("EXECUTOR_CONFIG", config);
    }
    let output = command.output().unwrap();
    let text = if output.status.success() {
        output.stdout
    } else {
        output.stderr
    };
    (
        output.status.success(),
        String::from_utf8_lossy(&text).into_owned(),
    )
}

/// Launches a rank-1 f32 kernel with one result remotely and reads the result
/// back as the host would (freeing its buffer).
pub fn launch_1d(
    session: &RemoteExecutor,
    entry: &str,
    object: &str,
    inputs: &[&[f32]],
) -> Result<DenseBuffer, RuntimeError> {
    let mut inputs: Vec<OwnedDescriptor> = inputs
        .iter()
        .map(|values| OwnedDescriptor::from_dense(floats(values)))
        .collect();
    let inputs: Vec<_> = inputs.iter_mut().map(OwnedDescriptor::descriptor).collect();
    let mut output = OwnedDescriptor::empty(1, 4);
    let output = output.descriptor();
    session.launch(entry, object, &inputs, &[output])?;
    let result = output.to_dense();
    // SAFETY: the client filled the output with a malloc'ed buffer it hands over.
    unsafe { libc::free(output.allocated().cast()) };
    Ok(result)
}

/// Calls `twice` of the test library (`KERNELS`' object, loaded in
/// `session`) on [1, 2.5] in this project's layout; its outputs.
pub fn call_twice(session: &RemoteExecutor) -> Vec<DenseBuffer> {
    let arguments = packed::encode_arguments(&CallArguments {
        buffers: vec![floats(&[1., 2.5]), floats(&[0., 0.])],
        num_inputs: 1,
    });
    let outputs = session
        .call("twice", Layout::ThisProject, &arguments)
        .unwrap();
    packed::decode_outputs(&outputs).unwrap()
}
