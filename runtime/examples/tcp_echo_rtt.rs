//! The baseline of the remote launch round trip: a plain TCP echo of the same
//! number of bytes over loopback (both ends with TCP_NODELAY, as the runtime's).
//! By default the echoing end is a thread of this process; with `processes` it
//! is a process of its own (this program again), as an executor-server's
//! worker is.
//!
//! With `first-contact PAUSE_MS` it measures instead what a first launch's
//! `executor.open` pays the network alone: a process of its own listens, and
//! after PAUSE_MS of idle time this one connects to it and makes one round
//! trip of BYTES, ROUND_TRIPS times, each on a new connection after the pause;
//! it prints each in microseconds.
//!
//!     cargo run --release -p executor-runtime --example tcp_echo_rtt -- [BYTES] [ROUND_TRIPS] [threads|processes|first-contact PAUSE_MS]

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

/// Set in the echoing process: the address to connect to.
const ECHO_ENV: &str = "TCP_ECHO_RTT_CONNECT";

/// Set in the listening process of `first-contact`.
const LISTEN_ENV: &str = "TCP_ECHO_RTT_LISTEN";

enum Echoing {
    Thread(std::thread::JoinHandle<std::io::Result<()>>),
    Process(std::process::Child),
}

/// Sends back every message of `bytes` bytes until the stream ends.
fn serve(stream: &mut TcpStream, bytes: usize) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut buffer = vec![0u8; bytes];
    while stream.read_exact(&mut buffer).is_ok() {
        stream.write_all(&buffer)?;
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let bytes: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1024);
    let round_trips: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let mode = args.next();
    if let Ok(address) = std::env::var(ECHO_ENV) {
        let address: SocketAddr = address.parse().map_err(std::io::Error::other)?;
        return serve(&mut TcpStream::connect(address)?, bytes);
    }
    if std::env::var_os(LISTEN_ENV).is_some() {
        return listen_and_serve(bytes);
    }
    if mode.as_deref() == Some("first-contact") {
        let pause_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(500);
        return first_contacts(bytes, round_trips, Duration::from_millis(pause_ms));
    }
    let processes = mode.as_deref() == Some("processes");

    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    let (mut stream, echoing) = if processes {
        // The echoing process connects to this one.
        let child = Command::new(std::env::current_exe()?)
            .arg(bytes.to_string())
            .env(ECHO_ENV, address.to_string())
            .spawn()?;
        (listener.accept()?.0, Echoing::Process(child))
    } else {
        let thread = std::thread::spawn(move || -> std::io::Result<()> {
            let (mut stream, _) = listener.accept()?;
            serve(&mut stream, bytes)
        });
        (TcpStream::connect(address)?, Echoing::Thread(thread))
    };
    stream.set_nodelay(true)?;
    let message = vec![7u8; bytes];
    let mut reply = vec![0u8; bytes];
    let start = Instant::now();
    for _ in 0..round_trips {
        stream.write_all(&message)?;
        stream.read_exact(&mut reply)?;
    }
    let per_round_trip = start.elapsed().as_secs_f64() / round_trips as f64;
    println!("{:.2}", per_round_trip * 1e6);
    drop(stream);
    match echoing {
        Echoing::Thread(thread) => thread.join().expect("the echo thread ends")?,
        Echoing::Process(mut child) => {
            child.wait()?;
        }
    }
    Ok(())
}

/// The listening process of `first-contact`: prints its address, then serves
/// each connection in turn until it is killed.
fn listen_and_serve(bytes: usize) -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    println!("{}", listener.local_addr()?);
    std::io::stdout().flush()?;
    loop {
        serve(&mut listener.accept()?.0, bytes)?;
    }
}

/// `contacts` times, after `pause` of idle time: connects to a listening
/// process and makes one round trip of `bytes`; prints each in microseconds.
fn first_contacts(bytes: usize, contacts: usize, pause: Duration) -> std::io::Result<()> {
    let mut child = Command::new(std::env::current_exe()?)
        .arg(bytes.to_string())
        .env(LISTEN_ENV, "1")
        .stdout(Stdio::piped())
        .spawn()?;
    let mut address = String::new();
    let stdout = child.stdout.take().expect("piped");
    BufReader::new(stdout).read_line(&mut address)?;
    let measured = address
        .trim()
        .parse::<SocketAddr>()
        .map_err(std::io::Error::other)
        .and_then(|address| {
            let message = vec![7u8; bytes];
            let mut reply = vec![0u8; bytes];
            for _ in 0..contacts {
                std::thread::sleep(pause);
                let start = Instant::now();
                let mut stream = TcpStream::connect(address)?;
                stream.set_nodelay(true)?;
                stream.write_all(&message)?;
                stream.read_exact(&mut reply)?;
                println!("{:.2}", start.elapsed().as_secs_f64() * 1e6);
            }
            Ok(())
        });
    child.kill()?;
    child.wait()?;
    measured
}
