//! Three executor-servers on three hosts: network namespaces on one bridge,
//! with addresses this test assigns (a 10.x.y.0/24 derived from its process
//! id), each server with a token and a TLS identity of its own, which the
//! client's configuration file (`EXECUTOR_CONFIG`) names: its token file and
//! the pinned fingerprint of its certificate. A host program (this test binary
//! again, running `host_program`) uses all three through the C ABI, sync and
//! async; one server restarts and the host reopens it; then one link is set
//! down under a running launch: the host prints one line naming that address
//! and exits with code 1, the server gives up on its session, and the other
//! servers go on. Last, a server killed under a launch is named too. The
//! host program writes a trace (`EXECUTOR_TRACE`): it is valid, and shows the
//! three async launches overlapping, each on a track of its address, with the
//! server's steps inside.
//!
//! It needs root and iproute2: where a namespace cannot be created it prints
//! why and passes as skipped. Every wait is bounded (the bounds are hang
//! guards, far above the deadlines, not timings), and the namespaces and the
//! bridge are removed at the end, also when the test fails.

mod common;

use std::{
    ffi::{CStr, CString, c_char},
    io::{BufRead, BufReader, Read, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use common::{SERVER, Server, check, compile_kernels};
use executor_runtime::{
    address::Address,
    c_api::{
        __catalyst__executor__await, __catalyst__executor__close, __catalyst__executor__launch,
        __catalyst__executor__launch_async, __catalyst__executor__open,
        __catalyst__executor__send_binary,
    },
    config::ClientConfig,
    error::RuntimeError,
    executor::{BinaryFormat, Executor},
    remote::RemoteExecutor,
};

const HOSTS: usize = 3;
const PORT: u16 = 9000;
/// What the servers and the client give a silent peer, in seconds.
const DEAD_LINK_SECONDS: u64 = 2;
/// Far above every deadline here: only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// Tells `host_program` the three addresses (comma-separated) and the library.
const HOST_ADDRESSES_ENV: &str = "EXECUTOR_TEST_HOST_ADDRESSES";
const HOST_LIBRARY_ENV: &str = "EXECUTOR_TEST_HOST_LIBRARY";
/// Where to copy the host program's trace to, if set.
const KEEP_TRACE_ENV: &str = "EXECUTOR_TEST_KEEP_TRACE";

/// A bridge and one namespace per host on it, removed when dropped.
struct Network {
    subnet: String,
    bridge: String,
    namespaces: Vec<String>,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let output = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run ip: {error}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr).trim()
    ))
}

impl Network {
    fn create() -> Result<Self, String> {
        let id = std::process::id();
        let mut network = Self {
            subnet: format!("10.{}.{}", 200 + id % 50, (id / 50) % 256),
            bridge: format!("exmh{id}"),
            namespaces: Vec::new(),
        };
        ip(&["link", "add", &network.bridge, "type", "bridge"])?;
        let gateway = format!("{}.1/24", network.subnet);
        ip(&["addr", "add", &gateway, "dev", &network.bridge])?;
        ip(&["link", "set", &network.bridge, "up"])?;
        for host in 0..HOSTS {
            let namespace = format!("exmh{id}-{host}");
            ip(&["netns", "add", &namespace])?;
            network.namespaces.push(namespace.clone());
            let (outside, inside) = (format!("exmh{id}o{host}"), network.interface(host));
            ip(&[
                "link", "add", &outside, "type", "veth", "peer", "name", &inside,
            ])?;
            ip(&["link", "set", &inside, "netns", &namespace])?;
            ip(&["link", "set", &outside, "master", &network.bridge, "up"])?;
            let own = format!("{}.{}/24", network.subnet, 10 + host);
            ip(&["-n", &namespace, "addr", "add", &own, "dev", &inside])?;
            ip(&["-n", &namespace, "link", "set", &inside, "up"])?;
            ip(&["-n", &namespace, "link", "set", "lo", "up"])?;
        }
        Ok(network)
    }

    fn interface(&self, host: usize) -> String {
        format!("exmh{}i{host}", std::process::id())
    }

    fn address(&self, host: usize) -> String {
        format!("{}.{}:{PORT}", self.subnet, 10 + host)
    }

    /// Sets the host's side of its link down: its packets go nowhere, and
    /// nothing tells either end.
    fn cut(&self, host: usize) {
        ip(&[
            "-n",
            &self.namespaces[host],
            "link",
            "set",
            &self.interface(host),
            "down",
        ])
        .unwrap();
    }

    /// Removes what `create` made; what is gone already is no error.
    fn remove(&mut self) {
        for namespace in self.namespaces.drain(..) {
            if let Err(error) = ip(&["netns", "del", &namespace]) {
                eprintln!("{error}");
            }
        }
        if !self.bridge.is_empty() {
            let _ = ip(&["link", "del", &std::mem::take(&mut self.bridge)]);
        }
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        self.remove();
    }
}

/// The executor-server of `host`, in its namespace, with its token file and
/// TLS identity.
fn start_server(network: &Network, host: usize, secrets: &Path) -> Server {
    let token_file = secrets.join(format!("{host}.token"));
    let identity = secrets.join(format!("identity-{host}"));
    let work_dir = secrets.join(format!("work-{host}"));
    std::fs::create_dir_all(&work_dir).unwrap();
    let mut command = Command::new("ip");
    command
        .args(["netns", "exec", &network.namespaces[host], SERVER])
        .args(["--listen", &network.address(host)])
        .arg("--token-file")
        .arg(&token_file)
        .arg("--tls-cert")
        .arg(identity.join("cert.pem"))
        .arg("--tls-key")
        .arg(identity.join("key.pem"))
        .args(["--dead-link-timeout", &DEAD_LINK_SECONDS.to_string()]);
    Server::spawn(command, &work_dir)
}

/// Writes each host's token file and TLS identity, and the client's
/// configuration naming them.
fn write_secrets(network: &Network, secrets: &Path) -> PathBuf {
    let mut config = String::from("# one section per executor-server\n");
    for host in 0..HOSTS {
        let token_file = secrets.join(format!("{host}.token"));
        std::fs::write(&token_file, format!("the secret of host {host}\n")).unwrap();
        let identity = Command::new(SERVER)
            .arg("--gen-identity")
            .arg(secrets.join(format!("identity-{host}")))
            .output()
            .unwrap();
        assert!(identity.status.success(), "{identity:?}");
        let fingerprint = String::from_utf8(identity.stdout).unwrap();
        let deadline_ms = DEAD_LINK_SECONDS * 1000;
        // Not whole seconds: the link is given up on after DEAD_LINK_SECONDS,
        // which the error must say.
        let dead_link_ms = deadline_ms - 500;
        config += &format!(
            "[{}]\ntoken_file = {host}.token\ntls_fingerprint = {}\n\
             connect_timeout_ms = {deadline_ms}\nhandshake_timeout_ms = {deadline_ms}\n\
             dead_link_timeout_ms = {dead_link_ms}\n\n",
            network.address(host),
            fingerprint.trim()
        );
    }
    let path = secrets.join("executors.conf");
    std::fs::write(&path, config).unwrap();
    path
}

/// The host program, this test binary running `host_program`.
struct Host {
    process: Child,
    commands: ChildStdin,
    said: mpsc::Receiver<String>,
    stderr: thread::JoinHandle<String>,
}

impl Host {
    fn start(network: &Network, library: &Path, config: &Path, trace: &Path) -> Self {
        let addresses: Vec<String> = (0..HOSTS).map(|host| network.address(host)).collect();
        let mut process = Command::new(std::env::current_exe().unwrap())
            .args(["host_program", "--exact", "--ignored", "--nocapture"])
            .env(HOST_ADDRESSES_ENV, addresses.join(","))
            .env(HOST_LIBRARY_ENV, library)
            .env("EXECUTOR_CONFIG", config)
            .env("EXECUTOR_TRACE", trace)
            .env_remove("EXECUTOR_TOKEN")
            .env_remove("EXECUTOR_TOKEN_FILE")
            .env_remove("EXECUTOR_LAUNCH_TIMEOUT_MS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tell, said) = mpsc::channel();
        let stdout = BufReader::new(process.stdout.take().unwrap());
        thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = tell.send(line);
            }
        });
        let mut stderr = process.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Self {
            commands: process.stdin.take().unwrap(),
            process,
            said,
            stderr,
        }
    }

    /// Sends `command` and waits for the host's line that ends with `answer`.
    fn ask(&mut self, command: &str, answer: &str) {
        writeln!(self.commands, "{command}").unwrap();
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.said.recv_timeout(left) {
                Ok(line) if line.ends_with(answer) => return,
                Ok(_) => {}
                Err(error) => {
                    let _ = self.process.kill();
                    panic!(
                        "the host did not say '{answer}' ({error}); its stderr: {}",
                        self.stderr_now()
                    );
                }
            }
        }
    }

    fn stderr_now(&mut self) -> String {
        let _ = self.process.wait();
        std::mem::replace(&mut self.stderr, thread::spawn(String::new))
            .join()
            .unwrap()
    }

    /// Waits for the host to exit: its exit code and its stderr.
    fn exit(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + HANG_GUARD;
        let status = loop {
            if let Some(status) = self.process.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.process.kill();
                panic!("the host hangs; its stderr: {}", self.stderr_now());
            }
            thread::sleep(Duration::from_millis(20));
        };
        (status.code(), self.stderr_now())
    }
}

/// Waits (bounded) until only spares are left of `server`'s session
/// directories.
fn wait_for_no_sessions(server: &Server) -> Duration {
    let started = Instant::now();
    while !server.only_spares_left() {
        assert!(
            started.elapsed() < HANG_GUARD,
            "sessions never reaped: {:?}",
            server.session_dirs()
        );
        thread::sleep(Duration::from_millis(50));
    }
    started.elapsed()
}

#[test]
fn three_hosts_with_their_own_tokens_a_restart_a_cut_link_and_a_killed_server() {
    let mut network = match Network::create() {
        Ok(network) => network,
        Err(reason) => {
            eprintln!("skipped: cannot create network namespaces here ({reason})");
            return;
        }
    };
    let secrets = tempfile::tempdir().unwrap();
    let library = compile_kernels(secrets.path());
    let config = write_secrets(&network, secrets.path());
    let mut servers: Vec<Server> = (0..HOSTS)
        .map(|host| start_server(&network, host, secrets.path()))
        .collect();
    for host in 0..HOSTS {
        let (healthy, line) = check(&network.address(host), Some(&config));
        assert!(healthy, "{line}");
        assert!(
            line.starts_with(&format!(
                "{}: reachable, authenticated, protocol version",
                network.address(host)
            )),
            "{line}"
        );
        assert!(line.contains(", TLS sha256:"), "the session is TLS: {line}");
    }

    // One host program uses all three, sync and async.
    let trace = secrets.path().join("trace.json");
    let mut host = Host::start(&network, &library, &config, &trace);
    host.ask("use-all", "used all three");

    // Host 2's server restarts; the same host program opens it again.
    drop(servers.pop());
    servers.push(start_server(&network, 2, secrets.path()));
    host.ask("reopen 2", "reopened 2");

    // Host 1's link goes down under a launch that never returns.
    host.ask("hang 1", "hanging on 1");
    thread::sleep(Duration::from_millis(200));
    let cut = Instant::now();
    network.cut(1);
    let (code, stderr) = host.exit();
    let detected = cut.elapsed();
    let b = network.address(1);
    assert_eq!(code, Some(1), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("executor runtime:"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with(&format!(
            "executor runtime: __catalyst__executor__launch(address {b}, symbol _mlir_ciface_hang): \
             cannot reach executor at {b}: the link is dead: the executor's host has not answered \
             for {} ms (dead_link_timeout_ms)",
            DEAD_LINK_SECONDS * 1000
        )),
        "{stderr}"
    );
    check_trace(&trace, &network);
    // Its server gives up on the session too, busy as its worker was.
    let reaped = wait_for_no_sessions(&servers[1]);
    eprintln!(
        "{}\nthe host exited {} ms after the cut; the server reaped its session {} ms after that",
        lines[0],
        detected.as_millis(),
        reaped.as_millis()
    );

    // The others go on; host 1 fails its check in one line.
    for host in [0, 2] {
        let (healthy, line) = check(&network.address(host), Some(&config));
        assert!(healthy, "{line}");
        assert!(line.contains("0 of 256 sessions in use"), "{line}");
    }
    let (healthy, line) = check(&b, Some(&config));
    assert!(!healthy);
    assert!(
        line.starts_with(&format!(
            "executor-server: --check {b}: cannot reach executor at {b}"
        )) && line.lines().count() == 1,
        "{line}"
    );

    // Host 0's server is killed under a launch: the client names it, and
    // host 2 still serves.
    let client = ClientConfig::read(&config).unwrap();
    let connect = |host: usize| {
        let address = network.address(host);
        let settings = client.settings(&Address::parse(&address).unwrap()).unwrap();
        RemoteExecutor::connect_with(&address, &settings.connect).unwrap()
    };
    let a = connect(0);
    let object = library.to_str().unwrap();
    a.send_binary(object, BinaryFormat::SharedLibrary).unwrap();
    let hang_object = object.to_owned();
    let launched = thread::spawn(move || a.launch("_mlir_ciface_hang", &hang_object, &[], &[]));
    thread::sleep(Duration::from_millis(200));
    drop(servers.remove(0));
    let error = launched.join().unwrap().unwrap_err();
    assert!(
        matches!(&error, RuntimeError::Unreachable { address, .. } if *address == network.address(0)),
        "{error}"
    );
    let c = connect(2);
    c.send_binary(object, BinaryFormat::SharedLibrary).unwrap();
    let token = c.launch_async("warm_up", object).unwrap();
    c.await_launch(token).unwrap();
    c.close().unwrap();

    drop(servers);
    network.remove();
    let listed = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let prefix = format!("exmh{}-", std::process::id());
    assert!(
        !String::from_utf8_lossy(&listed.stdout).contains(&prefix),
        "namespaces left behind"
    );
}

/// Checks the host program's trace: valid (scripts/trace-check), with the
/// async naps on the three hosts overlapping, each with its server's step
/// inside it (within the clock's error the step carries).
fn check_trace(path: &Path, network: &Network) {
    // `make trace-figure` keeps it, for the figure of docs/tracing.md.
    if let Some(keep) = std::env::var_os(KEEP_TRACE_ENV) {
        std::fs::copy(path, keep).unwrap();
    }
    let checker = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/trace-check");
    let checked = Command::new(checker).arg(path).output().unwrap();
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success(), "{said}");
    let events: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let number = |event: &serde_json::Value, field: &str| event[field].as_f64().unwrap();
    let mut launches = Vec::new();
    for host in 0..HOSTS {
        let address = network.address(host);
        let pid = events
            .iter()
            .find(|event| event["name"] == "process_name" && event["args"]["name"] == *address)
            .unwrap_or_else(|| panic!("no track of {address}: {said}"))["pid"]
            .clone();
        let on_host = |name: &str| -> Vec<&serde_json::Value> {
            events
                .iter()
                .filter(|event| event["ph"] == "X" && event["pid"] == pid && event["name"] == name)
                .collect()
        };
        let launch = *on_host("in flight: nap")
            .first()
            .unwrap_or_else(|| panic!("no async launch on {address}: {said}"));
        let (start, end) = (
            number(launch, "ts"),
            number(launch, "ts") + number(launch, "dur"),
        );
        let steps = on_host("on the server: nap");
        let step = steps
            .iter()
            .find(|step| step["tid"] == launch["tid"])
            .unwrap_or_else(|| panic!("no server step in the launch on {address}: {said}"));
        let error = number(&step["args"], "clock_error_us");
        let (step_start, step_end) = (number(step, "ts"), number(step, "ts") + number(step, "dur"));
        assert!(
            step_start >= start - error && step_end <= end + error,
            "on {address}, the server's step [{step_start}, {step_end}] (±{error}) is not inside \
             the launch [{start}, {end}]"
        );
        launches.push((start, end));
    }
    let latest_start = launches
        .iter()
        .map(|launch| launch.0)
        .fold(f64::MIN, f64::max);
    let earliest_end = launches
        .iter()
        .map(|launch| launch.1)
        .fold(f64::MAX, f64::min);
    assert!(
        latest_start < earliest_end,
        "the three async launches do not overlap: {launches:?}"
    );
}

/// The host program of the test above: reads commands on stdin and runs them
/// through the runtime's C ABI, as a lowered program calls it. A runtime
/// failure ends it with the runtime's one line and exit code 1.
#[test]
#[ignore = "the host program of three_hosts_..., which runs it"]
fn host_program() {
    let (Ok(addresses), Ok(library)) = (
        std::env::var(HOST_ADDRESSES_ENV),
        std::env::var(HOST_LIBRARY_ENV),
    ) else {
        return;
    };
    let addresses: Vec<CString> = addresses
        .split(',')
        .map(|address| CString::new(address).unwrap())
        .collect();
    let library = CString::new(library).unwrap();
    let mut sessions = vec![0; addresses.len()];
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let (command, host) = match line.split_once(' ') {
            Some((command, host)) => (command, host.parse::<usize>().unwrap()),
            None => (line.as_str(), 0),
        };
        match command {
            "use-all" => {
                for (session, address) in sessions.iter_mut().zip(&addresses) {
                    *session = open(address);
                    send_and_nap(*session, &library);
                }
                // Naps of 100 ms, on the three hosts at once.
                let tokens: Vec<i64> = sessions
                    .iter()
                    .map(|session| launch_async(*session, c"_mlir_ciface_nap", &library))
                    .collect();
                for token in tokens {
                    __catalyst__executor__await(token);
                }
                println!("used all three");
            }
            "reopen" => {
                let reopened = open(&addresses[host]);
                assert_ne!(reopened, sessions[host], "the ended session was returned");
                send_and_nap(reopened, &library);
                __catalyst__executor__await(launch_async(reopened, c"warm_up", &library));
                assert_eq!(__catalyst__executor__close(sessions[host]), 0);
                sessions[host] = reopened;
                println!("reopened {host}");
            }
            "hang" => {
                println!("hanging on {host}");
                std::io::stdout().flush().unwrap();
                launch(sessions[host], c"_mlir_ciface_hang".as_ptr(), &library);
                println!("the hang returned");
            }
            other => panic!("unknown command {other}"),
        }
        std::io::stdout().flush().unwrap();
    }
}

fn open(address: &CString) -> i64 {
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { __catalyst__executor__open(address.as_ptr()) }
}

fn send_and_nap(session: i64, library: &CString) {
    // SAFETY: a NUL-terminated string that outlives the call; 2 is a shared
    // library.
    unsafe { __catalyst__executor__send_binary(session, library.as_ptr(), 2) };
    launch(session, c"_mlir_ciface_nap".as_ptr(), library);
}

fn launch(session: i64, entry: *const c_char, library: &CString) {
    use std::ptr::null;
    // SAFETY: NUL-terminated strings that outlive the call; no inputs and no
    // outputs, so every array is null.
    unsafe {
        __catalyst__executor__launch(
            session,
            entry,
            library.as_ptr(),
            0,
            null(),
            null(),
            null(),
            0,
            null(),
            null(),
            null(),
        )
    }
}

fn launch_async(session: i64, entry: &CStr, library: &CString) -> i64 {
    // SAFETY: NUL-terminated strings that outlive the call.
    unsafe { __catalyst__executor__launch_async(session, entry.as_ptr(), library.as_ptr()) }
}
