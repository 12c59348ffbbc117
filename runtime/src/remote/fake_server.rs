//! A scripted executor-server for the client's tests: it answers the
//! handshake, then each request with the next of its replies, whatever the
//! request.

use std::{
    io::Write,
    net::{TcpListener, TcpStream},
    thread::{self, JoinHandle},
};

use crate::protocol::{
    self, DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply,
    PROTOCOL_VERSION, Response, encode_frame,
};

/// The triple the fake server states: another machine than any this runs on.
pub const TRIPLE: &str = "s390x-ibm-linux";

/// Serves one connection on a free loopback port; returns its address.
pub fn serve(replies: Vec<Response>) -> (String, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let server = thread::spawn(move || {
        let (mut stream, _): (TcpStream, _) = listener.accept().unwrap();
        let _: Hello = protocol::read_message(&mut stream, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap();
        let welcome = HelloReply::WelcomeWithTriple {
            protocol_version: PROTOCOL_VERSION,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            triple: TRIPLE.to_owned(),
        };
        protocol::write_message(&mut stream, &welcome, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap();
        for reply in replies {
            protocol::read_frame(&mut stream, DEFAULT_MAX_MESSAGE_SIZE).unwrap();
            let frame = encode_frame(&reply, DEFAULT_MAX_MESSAGE_SIZE).unwrap();
            stream.write_all(&frame).unwrap();
        }
    });
    (address, server)
}
