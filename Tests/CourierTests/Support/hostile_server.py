#!/usr/bin/env python3
"""A hostile HTTP/1.1 server for CurlTransport's tests: raw sockets, no http.server.

Standard library only (Python 3.8+). Started by `HostileServer.swift`:

    python3 hostile_server.py [--seed N]

binds 127.0.0.1 on an ephemeral port, prints ``PORT <n>`` as its first stdout
line, and serves until its stdin reaches EOF (or it is killed, or reparented).

Each connection gets a thread that reads requests one after another (keep-alive)
and answers each by its path (the query is read by a few). Every answer that
breaks HTTP closes the connection afterwards.

* ``/ok``: 200, ``ok``, keep-alive.
* ``/truncated-status``: ``HTTP/1.1 200 OK\\r\\n``, then close.
* ``/truncated-headers``: a status line and half a header block, then close.
* ``/huge-length``: ``Content-Length: 9223372036854775807``, a few bytes, then
  hold until the client goes away.
* ``/two-lengths``: two different Content-Length fields.
* ``/bad-chunk``: chunked, with a chunk size that is not hex.
* ``/truncated-body``: Content-Length 100, 10 bytes, close.
* ``/garbled-status``: ``HTTP/1.1 2x0 OK``; ``/garbled-protocol``: ``XTTP/1.1 200 OK``.
* ``/latin1-header``: a valid 200 with a field whose value has bytes 0xE9 0xFF.
* ``/many-headers?fields=N&oks=K``: a 200 head of N fields of 36 bytes (default
  10,000: 360,000 bytes), sent in batches of 500. After the first batch it sets
  the event ``many-headers-streaming`` and waits (at most 30 s) until K more
  ``/ok`` requests (default 0) have been answered, then sends the rest with a
  short pause between batches. ``/stats`` says what released it.
* ``/slowloris``: a status line, then one header byte every 100 ms, forever (or
  until the client goes away; at most 60 s).
* ``/never-answer``: reads the request, never answers; holds the connection
  until the client goes away (at most 60 s).
* ``/reset``: reads the request, then resets the connection (SO_LINGER 0, close).
* ``/set-cookie``: 200 with two ``Set-Cookie`` fields.
* ``/continue``: ``100 Continue`` (with a field of its own), then a 200.
* ``/load?i=N``: the load test's mode. The n-th time request N arrives, a
  random number seeded by (seed, N, n) decides: one in ten is reset (as
  ``/reset``), half of the others wait up to 0.5 s; all others get 200 with body
  ``N``, keep-alive. Deterministic whatever order requests arrive in.
* ``/await?event=NAME&timeout=S``: 200 once the event is set, 504 after S seconds.
* ``/stats``: JSON ``{"connections": accepted in all, "open": open now,
  "maxOpen": most open at once, "requests": requests read, "resets": load
  requests reset, "manyHeadersReleasedBy": "oks" | "timeout" | null}``.
* anything else: 404.
"""

import json
import os
import random
import socket
import struct
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

# The scripted server's watchdogs (its directory is on sys.path: it is this script's): the same
# lifetime, ending with the parent's pipe or the parent itself. No bytecode cache: a
# __pycache__ next to the tests' sources is a file SwiftPM warns it does not handle.
sys.dont_write_bytecode = True
from scripted_server import watch_parent, watch_stdin  # noqa: E402

HOLD_LIMIT = 60.0  # seconds: the longest any handler holds a connection


class State:
    """What the server saw, under one condition variable."""

    def __init__(self, seed):
        self.seed = seed
        self.cond = threading.Condition()
        self.connections = 0
        self.open = 0
        self.max_open = 0
        self.requests = 0
        self.resets = 0
        self.oks = 0
        self.events = set()
        self.load_seen = {}
        self.many_headers_released_by = None

    def connection_opened(self):
        with self.cond:
            self.connections += 1
            self.open += 1
            self.max_open = max(self.max_open, self.open)

    def connection_closed(self):
        with self.cond:
            self.open -= 1

    def set_event(self, name):
        with self.cond:
            self.events.add(name)
            self.cond.notify_all()

    def wait_event(self, name, timeout):
        with self.cond:
            return self.cond.wait_for(lambda: name in self.events, timeout)

    def ok_answered(self):
        with self.cond:
            self.oks += 1
            self.cond.notify_all()

    def load_attempt(self, index):
        """How many times request `index` arrived before this one."""
        with self.cond:
            seen = self.load_seen.get(index, 0)
            self.load_seen[index] = seen + 1
            return seen

    def stats(self):
        with self.cond:
            return {
                "connections": self.connections,
                "open": self.open,
                "maxOpen": self.max_open,
                "requests": self.requests,
                "resets": self.resets,
                "manyHeadersReleasedBy": self.many_headers_released_by,
            }


STATE = State(0)


class ClientGone(Exception):
    """The client closed or reset the connection."""


class Connection:
    """One accepted connection: buffered request reading, raw writes."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def read_request(self):
        """The next request as (method, target, headers), or None at EOF."""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.recv()
            if not chunk:
                return None
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, target = lines[0].split(" ")[:2]
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        while len(self.buffer) < length:
            chunk = self.recv()
            if not chunk:
                return None
            self.buffer += chunk
        self.buffer = self.buffer[length:]
        return method, target, headers

    def recv(self):
        try:
            return self.sock.recv(65536)
        except OSError:
            return b""

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError as error:
            raise ClientGone() from error

    def hold(self, limit=HOLD_LIMIT):
        """Waits until the client goes away (reads and drops anything it sends)."""
        self.sock.settimeout(limit)
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def reset(self):
        """Closes with RST instead of FIN."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


def response(status, fields=(), body=b"", reason="OK"):
    """A complete response with a Content-Length."""
    head = f"HTTP/1.1 {status} {reason}\r\n"
    for name, value in fields:
        head += f"{name}: {value}\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    return head.encode("latin-1") + body


OK = response(200, [("Content-Type", "text/plain")], b"ok")


# Each handler answers one request; it returns True to keep the connection open.

def ok(conn, query):
    conn.send(OK)
    STATE.ok_answered()
    return True


def truncated_status(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\n")
    return False


def truncated_headers(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Half: ab")
    return False


def huge_length(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\nabc")
    conn.hold()
    return False


def two_lengths(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")
    return False


def bad_chunk(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nhello\r\n0\r\n\r\n")
    return False


def truncated_body(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
    return False


def garbled_status(conn, query):
    conn.send(b"HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok")
    return False


def garbled_protocol(conn, query):
    conn.send(b"XTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    return False


def latin1_header(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\nX-Name: caf\xe9\xff\r\nContent-Length: 2\r\n\r\nok")
    return True


def many_headers(conn, query):
    fields = int(query.get("fields", ["10000"])[0])
    oks = int(query.get("oks", ["0"])[0])
    batch = 500
    with STATE.cond:
        oks_before = STATE.oks
    conn.send(b"HTTP/1.1 200 OK\r\n")
    for start in range(0, fields, batch):
        # 36 bytes a field: "X-Filler-00001: " (16) + 18 bytes + CRLF
        lines = b"".join(b"X-Filler-%05d: %s\r\n" % (n, b"f" * 18) for n in range(start, min(start + batch, fields)))
        conn.send(lines)
        if start == 0:
            STATE.set_event("many-headers-streaming")
            with STATE.cond:
                released = STATE.cond.wait_for(lambda: STATE.oks >= oks_before + oks, 30)
                STATE.many_headers_released_by = "oks" if released else "timeout"
        else:
            time.sleep(0.005)
    conn.send(b"Content-Length: 2\r\n\r\nok")
    return False


def slowloris(conn, query):
    conn.send(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    deadline = time.monotonic() + HOLD_LIMIT
    while time.monotonic() < deadline:
        conn.send(b"a")
        time.sleep(0.1)
    return False


def never_answer(conn, query):
    conn.hold()
    return False


def reset(conn, query):
    conn.reset()
    return False


def set_cookie(conn, query):
    conn.send(response(200, [("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/")], b"ok"))
    return True


def continue_(conn, query):
    conn.send(b"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n" + OK)
    return True


def continue_flood(conn, query):
    """100 Continue heads without end (until the client leaves): only a bound on the head,
    counted over every interim response, stops it."""
    for _ in range(40000):
        conn.send(b"HTTP/1.1 100 Continue\r\n\r\n")
    conn.send(OK)
    return False


def trailers(conn, query):
    """A chunked body with trailer fields, which are not header fields."""
    conn.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n\r\n"
              b"5\r\nhello\r\n0\r\nX-Trailer: yes\r\nSet-Cookie: t=1\r\n\r\n")
    return True


def long_header_line(conn, query):
    """One header line of 200 KB: past libcurl's own per-line buffer (100 KB)."""
    conn.send(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 200_000 + b"\r\nContent-Length: 2\r\n\r\nok")
    return False


def load(conn, query):
    index = int(query["i"][0])
    attempt = STATE.load_attempt(index)
    rng = random.Random(f"{STATE.seed}:{index}:{attempt}")
    if rng.random() < 0.1:
        with STATE.cond:
            STATE.resets += 1
        conn.reset()
        return False
    if rng.random() < 0.5:
        time.sleep(rng.uniform(0, 0.5))
    conn.send(response(200, [("Content-Type", "text/plain")], str(index).encode()))
    return True


def await_event(conn, query):
    seen = STATE.wait_event(query["event"][0], float(query.get("timeout", ["10"])[0]))
    conn.send(response(200, body=b"set") if seen else response(504, body=b"not set", reason="Gateway Timeout"))
    return True


def stats(conn, query):
    conn.send(response(200, [("Content-Type", "application/json")], json.dumps(STATE.stats()).encode()))
    return True


HANDLERS = {
    "/ok": ok,
    "/truncated-status": truncated_status,
    "/truncated-headers": truncated_headers,
    "/huge-length": huge_length,
    "/two-lengths": two_lengths,
    "/bad-chunk": bad_chunk,
    "/truncated-body": truncated_body,
    "/garbled-status": garbled_status,
    "/garbled-protocol": garbled_protocol,
    "/latin1-header": latin1_header,
    "/many-headers": many_headers,
    "/slowloris": slowloris,
    "/never-answer": never_answer,
    "/reset": reset,
    "/set-cookie": set_cookie,
    "/continue": continue_,
    "/continue-flood": continue_flood,
    "/trailers": trailers,
    "/long-header-line": long_header_line,
    "/load": load,
    "/await": await_event,
    "/stats": stats,
}


def serve(sock):
    """Answers the connection's requests until one closes it or the client leaves."""
    STATE.connection_opened()
    conn = Connection(sock)
    try:
        while True:
            request = conn.read_request()
            if request is None:
                break
            with STATE.cond:
                STATE.requests += 1
            _, target, _ = request
            parts = urlsplit(target)
            handler = HANDLERS.get(parts.path)
            if handler is None:
                conn.send(response(404, body=b"no such mode", reason="Not Found"))
                continue
            if not handler(conn, parse_qs(parts.query)):
                break
    except ClientGone:
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass
        STATE.connection_closed()


def accept_forever(listener):
    while True:
        sock, _ = listener.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(sock,), daemon=True).start()


def main():
    global STATE
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    STATE = State(seed)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    # A deep backlog: the load test opens up to 64 connections at once, and reconnects after
    # every reset.
    listener.listen(1024)
    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    try:
        accept_forever(listener)
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
