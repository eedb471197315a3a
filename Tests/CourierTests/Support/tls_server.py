#!/usr/bin/env python3
"""An HTTPS/1.1 test server for CurlTransportTLSTests (Python 3 standard library only).

    tls_server.py --cert CHAIN.pem --key KEY.pem [--max-tls 1.2] [--client-ca CA.pem]

Listens on 127.0.0.1, an ephemeral port, and prints `PORT <n>` once it accepts connections.
It sends CHAIN (leaf then intermediate), offers only `http/1.1` by ALPN, and with --client-ca
requires a client certificate that chains to CA (mutual TLS); --max-tls 1.2 caps the version.

Every request gets 200 with a JSON body: {"method", "path", "bodyBytes", "client" (the client
certificate's CN or null), "version" (the TLS version)}; connections are kept alive.

What it saw goes to stdout, one JSON object a line, flushed at once:
  {"event": "accepted", "id": N}
  {"event": "closed", "id": N, "handshake": "ok" | "failed", "error": str | null,
   "bytes": <application bytes received>, "requests": <requests answered>, "client": str | null}
`bytes` counts every byte read after the handshake (request lines, fields, bodies): a test
asserts on it that a refused connection carried no byte of the request. Handshake bytes are
not application data and are not counted.

It exits when its stdin reaches EOF (the test process closed it, or died).
"""

import argparse
import json
import socket
import ssl
import sys
import threading

_print_lock = threading.Lock()


def emit(event):
    with _print_lock:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()


def client_name(connection):
    certificate = connection.getpeercert()
    if not certificate:
        return None
    for rdn in certificate.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return value
    return None


class Counter:
    """Application bytes received on one connection."""

    def __init__(self):
        self.bytes = 0


def read_request(connection, buffer, counter):
    """Reads one request; returns (method, path, body, rest) or None at EOF."""
    while b"\r\n\r\n" not in buffer:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        counter.bytes += len(chunk)
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path = lines[0].split(" ")[:2]
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        counter.bytes += len(chunk)
        rest += chunk
    return method, path, rest[:length], rest[length:]


def serve(identifier, raw, context):
    emit({"event": "accepted", "id": identifier})
    counter = Counter()
    requests = 0
    handshake = "failed"
    error = None
    client = None
    connection = None
    try:
        raw.settimeout(60)
        connection = context.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
        connection.do_handshake()
        handshake = "ok"
        client = client_name(connection)
        version = connection.version()
        buffer = b""
        while True:
            request = read_request(connection, buffer, counter)
            if request is None:
                break
            method, path, body, buffer = request
            payload = json.dumps({
                "method": method, "path": path, "bodyBytes": len(body), "client": client, "version": version,
            }).encode()
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(payload)).encode() + b"\r\n\r\n" + payload)
            requests += 1
    except (OSError, ssl.SSLError, ValueError) as failure:
        error = str(failure)
    finally:
        try:
            (connection or raw).close()
        except OSError:
            pass
        emit({
            "event": "closed", "id": identifier, "handshake": handshake, "error": error,
            "bytes": counter.bytes, "requests": requests, "client": client,
        })


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--max-tls", choices=["1.2", "1.3"])
    parser.add_argument("--client-ca")
    options = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(options.cert, options.key)
    context.set_alpn_protocols(["http/1.1"])
    if options.max_tls == "1.2":
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    if options.client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(options.client_ca)

    listener = socket.create_server(("127.0.0.1", 0), backlog=128)

    def accept():
        identifier = 0
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            identifier += 1
            threading.Thread(target=serve, args=(identifier, raw, context), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    emit_port = "PORT %d\n" % listener.getsockname()[1]
    with _print_lock:
        sys.stdout.write(emit_port)
        sys.stdout.flush()

    # The stdin watchdog: the test closes stdin (or dies) and the server goes with it.
    while sys.stdin.buffer.read(65536):
        pass


if __name__ == "__main__":
    main()
