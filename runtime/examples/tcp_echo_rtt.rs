//! The baseline of the remote launch round trip: a plain TCP echo of the same
//! number of bytes over loopback (both ends with TCP_NODELAY, as the runtime's).
//!
//!     cargo run --release -p executor-runtime --example tcp_echo_rtt -- [BYTES] [ROUND_TRIPS]

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    time::Instant,
};

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let bytes: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1024);
    let round_trips: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);

    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    let echo = std::thread::spawn(move || -> std::io::Result<()> {
        let (mut stream, _) = listener.accept()?;
        stream.set_nodelay(true)?;
        let mut buffer = vec![0u8; bytes];
        while stream.read_exact(&mut buffer).is_ok() {
            stream.write_all(&buffer)?;
        }
        Ok(())
    });

    let mut stream = TcpStream::connect(address)?;
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
    echo.join().expect("the echo thread ends")?;
    Ok(())
}
