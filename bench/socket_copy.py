#!/usr/bin/env python3
"""The baseline of the 64 MiB launch (bench/remote_bulk.mlir): a plain loopback
TCP copy of the same bytes. A receiver thread reads SIZE bytes into one
preallocated buffer (recv_into) and answers one byte; the sender times
sendall(SIZE bytes) + that one-byte answer, REPEATS times, and prints each time
in seconds, one line per copy. Both ends set TCP_NODELAY, as the runtime does;
sendall and recv_into release the GIL, so the two ends run in parallel.

    bench/socket_copy.py [SIZE] [REPEATS]
"""
import socket
import sys
import threading
import time


def receive(listener: socket.socket, size: int, repeats: int) -> None:
    connection, _ = listener.accept()
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buffer = memoryview(bytearray(size))
    for _ in range(repeats):
        received = 0
        while received < size:
            count = connection.recv_into(buffer[received:], size - received)
            if count == 0:
                raise SystemExit("socket_copy.py: the sender closed early")
            received += count
        connection.sendall(b"k")
    connection.close()


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 64 << 20
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    receiver = threading.Thread(target=receive, args=(listener, size, repeats))
    receiver.start()
    sender = socket.create_connection(listener.getsockname())
    sender.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = b"\x07" * size
    for _ in range(repeats):
        start = time.perf_counter()
        sender.sendall(data)
        if sender.recv(1) != b"k":
            raise SystemExit("socket_copy.py: no answer")
        print(f"{time.perf_counter() - start:.9f}", flush=True)
    sender.close()
    receiver.join()
    listener.close()


if __name__ == "__main__":
    main()
