//! The server's triple: stated in the welcome of a client of protocol
//! version 4 (not in a version 3 client's, which is still served), and what
//! objects sent to it are checked against, by the client before sending and
//! by the server's worker before linking. A refused object changes nothing
//! for the server's other sessions.

use std::net::TcpStream;

use executor_runtime::{
    executor::{BinaryFormat, Executor},
    local::host_triple,
    protocol::{
        self, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, OLDEST_PROTOCOL_VERSION,
        PROTOCOL_VERSION, Request, Response, encode_frame,
    },
};

mod common;

use common::{Server, compile_kernels_to, compile_to, floats, launch_1d};

/// An AArch64 object with a kernel of the native kernels' name.
const ARM_KERNEL: &str = "void _mlir_ciface_add(void) {}\n";

fn hello(stream: &mut TcpStream, protocol_version: u32) -> HelloReply {
    let hello = Hello {
        protocol_version,
        token: None,
    };
    protocol::write_message(stream, &hello, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap();
    protocol::read_message(stream, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap()
}

#[test]
fn version_4_is_told_the_triple_and_version_3_is_welcomed_as_before() {
    let server = Server::start(&[]);
    let connect = || {
        let stream = TcpStream::connect(&server.address).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        stream
    };

    let reply = hello(&mut connect(), PROTOCOL_VERSION);
    let HelloReply::WelcomeWithTriple {
        protocol_version: PROTOCOL_VERSION,
        triple,
        ..
    } = reply
    else {
        panic!("a version {PROTOCOL_VERSION} client is welcomed with the triple: {reply:?}");
    };
    assert_eq!(triple, host_triple());
    assert!(
        triple.starts_with(std::env::consts::ARCH),
        "{triple} is not this machine's"
    );

    // A client of version 3 reads the welcome it knows, and is served.
    let mut old = connect();
    let reply = hello(&mut old, OLDEST_PROTOCOL_VERSION);
    let HelloReply::Welcome {
        protocol_version: OLDEST_PROTOCOL_VERSION,
        max_message_size,
    } = reply
    else {
        panic!("a version 3 client is welcomed as version 3 was: {reply:?}");
    };
    let ping = encode_frame(&Request::Ping, max_message_size).unwrap();
    std::io::Write::write_all(&mut old, &ping).unwrap();
    let pong: Response = protocol::read_message(&mut old, max_message_size).unwrap();
    assert!(matches!(pong, Response::Pong { .. }), "{pong:?}");
}

#[test]
fn an_object_for_another_machine_is_refused_by_client_and_server_and_other_sessions_go_on() {
    let scratch = tempfile::tempdir().unwrap();
    let native = compile_kernels_to(&scratch.path().join("kernels.o"), &["-c"]);
    let native = native.to_str().unwrap();
    let arm = compile_to(
        ARM_KERNEL,
        &scratch.path().join("arm.o"),
        &["--target=aarch64-unknown-linux-gnu", "-c"],
    );
    let arm_bytes = std::fs::read(&arm).unwrap();
    let arm = arm.to_str().unwrap();
    let refusal = format!(
        "the object file is for aarch64, the executor runs {}",
        host_triple()
    );
    let server = Server::start(&[]);
    let add = |session| launch_1d(session, "_mlir_ciface_add", native, &[&[1., 2.], &[3., 4.]]);

    let other = server.connect().unwrap();
    other
        .send_binary(native, BinaryFormat::RelocatableObject)
        .unwrap();
    assert_eq!(add(&other).unwrap(), floats(&[4., 6.]));

    // The client refuses it, and its session goes on.
    let refused = server.connect().unwrap();
    let error = refused
        .send_binary(arm, BinaryFormat::RelocatableObject)
        .unwrap_err();
    assert_eq!(error.to_string(), refusal);
    refused
        .send_binary(native, BinaryFormat::RelocatableObject)
        .unwrap();
    assert_eq!(add(&refused).unwrap(), floats(&[4., 6.]));
    refused.close().unwrap();

    // A client that sends it anyway: the worker refuses it, before its JIT
    // sees it.
    let (mut stream, max_message_size) = server.raw_session();
    let send = Request::SendBinary {
        name: arm.to_owned(),
        format: BinaryFormat::RelocatableObject,
        bytes: arm_bytes,
    };
    std::io::Write::write_all(&mut stream, &encode_frame(&send, max_message_size).unwrap())
        .unwrap();
    let reply: Response = protocol::read_message(&mut stream, max_message_size).unwrap();
    match reply {
        Response::Failed { message } => assert_eq!(message, refusal),
        other => panic!("expected the refusal, got {other:?}"),
    }
    drop(stream);

    assert_eq!(add(&other).unwrap(), floats(&[4., 6.]));
    other.close().unwrap();
}
