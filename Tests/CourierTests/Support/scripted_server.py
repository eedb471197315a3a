#!/usr/bin/env python3
"""Scripted HTTP/1.1 server for Courier's integration tests.

Standard library only (Python 3.11+). Started by `ScriptedServer.swift`:

    python3 scripted_server.py

binds 127.0.0.1 on an ephemeral port and prints ``PORT <n>`` as its first
stdout line. Tests then script responses per path through the control API
under ``/__control/`` and inspect the requests the server received.

Control API (control requests are never recorded):

* ``POST /__control/script`` with JSON
  ``{"path": "/x", "method": "GET" (optional), "responses": [spec, ...]}``.
  Responses are served in order to successive matching requests; the last one
  repeats once the list is exhausted. Scripting a path without a method
  replaces every script of that path; scripting with a method replaces only
  that method's script. A method-specific script wins over a method-less one.
  A response spec is a JSON object::

      {"status": 200,
       "headers": {"Name": "value"},   # optional
       "headerList": [["Name", "v"]],  # optional: fields sent in order, a
                                       #   name may repeat (two Set-Cookie)
       "body": "text",                 # optional (UTF-8)
       "bodyBase64": "...",            # optional
       "bodySize": N,                  # optional: N bytes of 'x'
       "delay": 0.5,                   # optional: seconds to sleep first
       "afterRelease": true,           # optional: answer only once ``release``
                                       #   was called on the path (after this
                                       #   response began)
       "hold": true,                   # optional: never answer; record a
                                       #   disconnect event when the client
                                       #   goes away
       "echo": true,                   # optional: 200 + JSON description of
                                       #   the request
       "trickle": 0.1,                 # optional: send the body one byte
                                       #   every this many seconds
       "chunked": true}                # optional: send the body chunked
                                       #   (64 KiB chunks, no Content-Length);
                                       #   stops if the client goes away

  A spec may instead carry ``"stream": {...}`` (a body in separate writes, see
  ``send_stream``) or ``"events": {...}``: a ``text/event-stream`` sent in
  pieces (see ``send_events``).

* ``GET /__control/requests[?path=/x]`` -> JSON array of received requests
  ``{"method", "path", "headers": [[name, value], ...], "bodyBase64",
  "bodyLength", "bodySha256", "replayed"}``; ``replayed`` is true when the
  request was answered from a remembered idempotent response (see below). A
  body is read and hashed in 1 MiB blocks; one larger than 16 MiB is recorded
  by its length and SHA-256 only (``bodyBase64`` empty, and an echo shows it
  empty), so a large upload is never held whole.
* ``GET /__control/wait?path=/x&count=N&timeout=5`` -> long-polls until at
  least N requests to ``/x`` arrived (returns them), or 504.
* ``GET /__control/wait-disconnect?path=/x&timeout=5[&count=N]`` -> 200
  ``{"disconnected": true}`` once N (default 1) held requests on ``/x`` saw
  their client disconnect, or 504.
* ``GET /__control/idempotency`` -> JSON
  ``{"<key>": {"processed": n, "seen": m}, ...}``: per ``Idempotency-Key``,
  how many of its requests were really processed (at most 1 per path) and how
  many arrived in total.
* ``POST /__control/switchable`` with optional JSON ``{"up": true|false}``
  (default up) -> ``{"port": n, "up": bool}``. The first call opens a second
  listener on 127.0.0.1 (ephemeral port) served exactly like the main one
  (same scripts, recording and control API). ``"up": false`` closes that
  listening socket, so new connections are refused (ECONNREFUSED), keeping the
  port bound (never listening) so that no other server takes it, and resets
  every connection open on it (idle keep-alive ones and in-progress requests
  alike, even mid-``delay``: the client sees ECONNRESET, no response), so a
  pooled connection fails too. ``"up": true`` re-binds the same port and
  serves again. Setting the current state is a no-op.
* ``POST /__control/release?path=/x`` opens the gate of a gated ``stream``
  response on that path by one chunk.
* ``POST /__control/reset`` clears scripts, requests, disconnect events and
  idempotency state (it leaves the switchable listener as it is).

Idempotency keys (like Stripe's API): a non-control request carrying an
``Idempotency-Key`` header is processed normally the first time that key is
used on its path, and the response actually sent (status, headers, body) is
remembered. Later requests with the same key and path are not processed (the
script does not advance): they get the remembered response plus
``Idempotent-Replayed: true``. A request that sent no response (``hold``, or
its client left before the response) is not remembered, and neither is a 429
or 5xx answer (as if a gateway or rate limiter answered before the
application), so a retry is processed. While a request with a key is being processed, another with the
same key and path gets 409 ``{"message": "request with this key in
progress", "code": "idempotency_in_progress"}``. Replays and 409s are
recorded like any request.

Unscripted paths answer 404 ``{"message": "no script for <path>",
"code": "not_found"}``.

The process exits when its stdin reaches EOF (the parent closed the pipe or
died) or when its parent pid changes (the parent died and we were reparented).
"""

import base64
import hashlib
import json
import os
import select
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

CONTROL_PREFIX = "/__control/"

# How often a held request polls its socket for a client disconnect.
HOLD_POLL_INTERVAL = 0.02

# How often the watchdog checks whether our parent process is still alive.
PARENT_POLL_INTERVAL = 0.5

# How often a listener's serve loop checks for a shutdown request (bounds how
# long switching the switchable listener down takes).
SERVE_POLL_INTERVAL = 0.05

# How long re-binding the switchable listener's port keeps retrying.
REBIND_TIMEOUT = 5.0

# Request bodies larger than this are recorded by length and SHA-256 only.
RECORDED_BODY_LIMIT = 16 * 1024 * 1024

# The size of the blocks a request body is read (and hashed) in.
BODY_BLOCK = 1024 * 1024

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"


class BodySink:
    """A request body as it arrives: its length, its SHA-256, and its bytes while they stay
    under RECORDED_BODY_LIMIT."""

    def __init__(self):
        self.blocks = []
        self.length = 0
        self.digest = hashlib.sha256()

    def add(self, block):
        self.length += len(block)
        self.digest.update(block)
        if self.length <= RECORDED_BODY_LIMIT:
            self.blocks.append(block)
        else:
            self.blocks = []

    def result(self):
        return b"".join(self.blocks), self.length, self.digest.hexdigest()


class State:
    """All mutable server state, guarded by one condition variable.

    Every read or write of the fields below happens with ``self.cond`` held;
    waiters (``/wait``, ``/wait-disconnect``) are woken with ``notify_all``
    whenever a request or a disconnect is recorded.
    """

    def __init__(self):
        self.cond = threading.Condition()
        # path -> {method-or-None: {"responses": [...], "next": int}}
        self.scripts = {}
        # Recorded requests in arrival order; each also carries "_route"
        # (the path without query string) for filtering.
        self.requests = []
        # path -> number of held requests whose client disconnected.
        self.disconnects = {}
        # path -> chunks of a gated stream released so far (``release``).
        self.gates = {}
        # (path, key) -> {"response": None while being processed, else the
        #                  remembered (status, header pairs, body, chunked)}.
        self.idempotent = {}
        # key -> {"processed": int, "seen": int}.
        self.idempotency_counts = {}
        # Requests with a key being processed now (between begin and finish_idempotent).
        self.idempotent_in_flight = 0
        # The switchable listener: its Server while up (None while down or
        # never opened), its port once opened, the sockets of the connections
        # it accepted that are still open, and those of them cut by going down
        # (to be reset, not closed gracefully).
        self.switchable_server = None
        self.switchable_port = None
        # While down: a socket bound to the port that never listens, so that
        # connections are refused and no other server's ephemeral bind takes
        # the port (which would answer in the listener's place).
        self.switchable_reservation = None
        self.switchable_connections = set()
        self.switchable_cut = set()
        # Serializes up/down transitions of the switchable listener. Taken
        # before (never while holding) `cond`, because a transition waits for
        # the listener's serve loop, which needs `cond` to register sockets.
        self.switch_lock = threading.Lock()

    def reset(self):
        with self.cond:
            self.scripts.clear()
            self.requests.clear()
            self.disconnects.clear()
            self.gates.clear()
            self.idempotent.clear()
            self.idempotency_counts.clear()
            self.idempotent_in_flight = 0
            self.cond.notify_all()

    def set_script(self, path, method, responses):
        with self.cond:
            if method is None:
                self.scripts[path] = {}
            self.scripts.setdefault(path, {})[method] = {
                "responses": list(responses),
                "next": 0,
            }

    def next_response(self, path, method):
        """Returns the next response spec for (path, method), or None."""
        with self.cond:
            by_method = self.scripts.get(path)
            if not by_method:
                return None
            script = by_method.get(method) or by_method.get(None)
            if script is None or not script["responses"]:
                return None
            responses = script["responses"]
            index = min(script["next"], len(responses) - 1)
            script["next"] += 1
            return responses[index]

    def record(self, entry):
        with self.cond:
            self.requests.append(entry)
            self.cond.notify_all()

    def record_disconnect(self, path):
        with self.cond:
            self.disconnects[path] = self.disconnects.get(path, 0) + 1
            self.cond.notify_all()

    def requests_for(self, path):
        """Public (JSON-ready) view of recorded requests, optionally filtered."""
        with self.cond:
            return [
                {k: v for k, v in r.items() if not k.startswith("_")}
                for r in self.requests
                if path is None or r["_route"] == path
            ]

    def wait_for_requests(self, path, count, timeout):
        """Blocks until `count` requests to `path` arrived; None on timeout."""
        with self.cond:
            ok = self.cond.wait_for(
                lambda: sum(1 for r in self.requests if r["_route"] == path) >= count,
                timeout=timeout,
            )
        return self.requests_for(path) if ok else None

    def wait_for_disconnect(self, path, count, timeout):
        with self.cond:
            return self.cond.wait_for(
                lambda: self.disconnects.get(path, 0) >= count, timeout=timeout
            )

    # -- idempotency keys ---------------------------------------------------

    def begin_idempotent(self, route, key, entry):
        """Counts an arrival with `key` on `route` and records the request
        `entry` (with its "replayed" flag) in the same step.

        Returns ("replay", remembered response), ("conflict", None) or
        ("process", token); pass the token to `finish_idempotent`.
        """
        with self.cond:
            counts = self.idempotency_counts.setdefault(key, {"processed": 0, "seen": 0})
            counts["seen"] += 1
            current = self.idempotent.get((route, key))
            if current is None:
                token = {"response": None}
                self.idempotent[(route, key)] = token
                self.idempotent_in_flight += 1
                outcome = ("process", token)
            elif current["response"] is None:
                outcome = ("conflict", None)
            else:
                outcome = ("replay", current["response"])
            entry["replayed"] = outcome[0] == "replay"
            self.record(entry)
            return outcome

    def finish_idempotent(self, route, key, token, response):
        """Remembers `response`, or forgets the key if nothing was sent or it
        was a 429 or 5xx (counted as not processed)."""
        with self.cond:
            self.idempotent_in_flight = max(0, self.idempotent_in_flight - 1)
            self.cond.notify_all()
            if self.idempotent.get((route, key)) is not token:
                return  # reset meanwhile
            if response is None or response[0] == 429 or response[0] >= 500:
                del self.idempotent[(route, key)]
                return
            token["response"] = response
            counts = self.idempotency_counts.setdefault(key, {"processed": 0, "seen": 0})
            counts["processed"] += 1

    def idempotency_view(self):
        """The counts once no request with a key is being processed (a client has its
        response before the handler counts it as processed), or after 10 s."""
        with self.cond:
            self.cond.wait_for(lambda: self.idempotent_in_flight == 0, timeout=10)
            return {key: dict(counts) for key, counts in self.idempotency_counts.items()}

    # -- switchable listener ------------------------------------------------

    def set_switchable(self, up):
        """Opens the switchable listener if needed and switches it up or down."""
        with self.switch_lock:
            with self.cond:
                server, port = self.switchable_server, self.switchable_port
            if up and server is None:
                with self.cond:
                    reservation, self.switchable_reservation = self.switchable_reservation, None
                if reservation is not None:
                    reservation.close()
                server = bind_switchable(port or 0)
                with self.cond:
                    self.switchable_server = server
                    self.switchable_port = server.server_address[1]
                threading.Thread(
                    target=server.serve_forever, kwargs={"poll_interval": SERVE_POLL_INTERVAL}, daemon=True
                ).start()
            elif not up and port is None:
                # First call asks for "down": reserve a port.
                reservation = reserve_port(0)
                with self.cond:
                    self.switchable_reservation = reservation
                    self.switchable_port = reservation.getsockname()[1]
            elif not up and server is not None:
                # Stop accepting (after this, every accepted socket is in
                # `switchable_connections`), close the listening socket, then
                # cut every connection still open: SO_LINGER 0 makes its
                # handler's close send RST, SHUT_RD wakes a handler waiting for
                # the next request (or holding), and `pause` wakes one in a
                # delay (notify_all); `send_body` refuses to answer on it.
                server.shutdown()
                server.server_close()
                reservation = reserve_port(port)
                with self.cond:
                    self.switchable_reservation = reservation
                    self.switchable_server = None
                    # Under `cond`: a handler removes its socket (under
                    # `cond`) before closing it, so none of these is closed.
                    for connection in self.switchable_connections:
                        self.switchable_cut.add(connection)
                        try:
                            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                            connection.shutdown(socket.SHUT_RD)
                        except OSError:
                            pass
                    self.cond.notify_all()
            with self.cond:
                return {"port": self.switchable_port, "up": self.switchable_server is not None}


STATE = State()


class Handler(BaseHTTPRequestHandler):
    """Handles every method the same way: control API or scripted response."""

    protocol_version = "HTTP/1.1"
    server_version = "ScriptedServer/1.0"

    # Per request: whether `send_body` remembers what it sent (idempotent
    # requests), and what it sent: (status, header pairs, body, chunked).
    capture_response = False
    sent_response = None

    def version_string(self):
        return self.server_version

    # -- plumbing -----------------------------------------------------------

    def log_message(self, format, *args):  # noqa: A002 - stdlib signature
        """Quiet: no per-request logging on stderr."""

    def handle_any(self):
        # A request read from a connection the switchable listener cut (Linux may still hand
        # a handler bytes that arrive after SHUT_RD) never reached the server: not recorded,
        # not answered.
        if self.is_cut():
            self.close_connection = True
            return
        body, body_length, body_sha256 = self.read_body()
        split = urlsplit(self.path)
        route = split.path
        if route.startswith(CONTROL_PREFIX):
            self.handle_control(route[len(CONTROL_PREFIX):], split.query, body)
            return

        entry = {
            "method": self.command,
            "path": self.path,
            "headers": [[name, value] for name, value in self.headers.items()],
            "bodyBase64": base64.b64encode(body).decode("ascii"),
            "bodyLength": body_length,
            "bodySha256": body_sha256,
            "replayed": False,
            "_route": route,
        }
        key = self.headers.get(IDEMPOTENCY_HEADER)
        if not key:
            STATE.record(entry)
            self.serve_route(route, split.query, body)
            return

        outcome, value = STATE.begin_idempotent(route, key, entry)
        if outcome == "replay":
            status, header_list, payload, chunked = value
            self.send_body(status, payload, header_list=header_list + [(REPLAYED_HEADER, "true")], chunked=chunked)
        elif outcome == "conflict":
            self.send_json(409, {"message": "request with this key in progress", "code": "idempotency_in_progress"})
        else:
            self.capture_response, self.sent_response = True, None
            try:
                self.serve_route(route, split.query, body)
            finally:
                STATE.finish_idempotent(route, key, value, self.sent_response)
                self.capture_response, self.sent_response = False, None

    def serve_route(self, route, query, body):
        spec = STATE.next_response(route, self.command)
        if spec is None:
            self.send_json(404, {"message": f"no script for {route}", "code": "not_found"})
            return
        self.serve_spec(spec, route, query, body)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = handle_any
    do_TRACE = do_CONNECT = do_MERGE = do_PURGE = handle_any   # custom methods: Courier sends any token

    def read_body(self):
        """Reads the request body (Content-Length or chunked) in blocks, hashing it as it comes.
        Returns (the body, or b"" past RECORDED_BODY_LIMIT; its length; its SHA-256 in hex)."""
        sink = BodySink()
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.read_chunked(sink)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            self.read_exactly(length, sink, "EOF in body")
        return sink.result()

    def read_exactly(self, length, sink, failure):
        while length > 0:
            block = self.rfile.read(min(length, BODY_BLOCK))
            if not block:
                # The client went away mid-body (killed while sending): as a real server would,
                # do not record or answer a request that never fully arrived.
                raise ConnectionError(failure)
            sink.add(block)
            length -= len(block)

    def read_chunked(self, sink):
        while True:
            line = self.rfile.readline(65537)
            if not line:
                raise ConnectionError("EOF in chunked body")
            size = int(line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                break
            self.read_exactly(size, sink, "EOF in chunked body")
            self.rfile.readline()  # CRLF after the chunk data
        # Trailer section: header lines until an empty line.
        while True:
            line = self.rfile.readline(65537)
            if not line or line in (b"\r\n", b"\n"):
                break

    def send_body(self, status, body, headers=None, content_type=None, trickle=0, header_list=None, chunked=False):
        """Sends a complete response, with Content-Length unless `chunked`. With `trickle`, the
        body goes one byte at a time, `trickle` seconds apart (stopping if the client leaves).

        With `capture_response` set, sends nothing if the client already left, and stores what it
        completely sent in `sent_response`."""
        if self.is_cut():
            raise ConnectionResetError("switchable listener went down")
        capture = self.capture_response
        if capture and self.client_gone():
            self.close_connection = True
            return
        self.send_response(status)
        names = set()
        sent_headers = []
        for name, value in list((headers or {}).items()) + [tuple(pair) for pair in (header_list or [])]:
            self.send_header(name, str(value))
            names.add(name.lower())
            sent_headers.append((name, str(value)))
        if content_type and "content-type" not in names:
            self.send_header("Content-Type", content_type)
            sent_headers.append(("Content-Type", content_type))
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for start in range(0, len(body), 65536):
                    chunk = body[start:start + 65536]
                    self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                self.close_connection = True
                return
            if capture:
                self.sent_response = (status, sent_headers, body, True)
            return
        if "content-length" not in names:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            if trickle > 0:
                self.wfile.flush()
                for index in range(len(body)):
                    try:
                        self.pause(trickle)
                        self.wfile.write(body[index:index + 1])
                        self.wfile.flush()
                    except OSError:
                        self.close_connection = True
                        return
            else:
                self.wfile.write(body)
        self.wfile.flush()
        if capture:
            self.sent_response = (status, sent_headers, body, False)

    def is_cut(self):
        """Whether the switchable listener went down and cut this connection."""
        with STATE.cond:
            return self.connection in STATE.switchable_cut

    def pause(self, seconds):
        """Sleeps `seconds`; raises ConnectionResetError at once if this connection gets cut."""
        with STATE.cond:
            if STATE.cond.wait_for(lambda: self.connection in STATE.switchable_cut, timeout=seconds):
                raise ConnectionResetError("switchable listener went down")

    def client_gone(self):
        """Whether the client already closed its end of the connection."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except (OSError, ValueError):
            return True

    def send_json(self, status, value):
        self.send_body(status, json.dumps(value).encode("utf-8"), content_type="application/json")

    # -- scripted responses -------------------------------------------------

    def serve_spec(self, spec, route, query, body):
        # "whenHeader": [name, value] serves this spec only to requests whose header has that
        # value; the others get "otherwise" (a one-element list holding a spec).
        condition = spec.get("whenHeader")
        if condition and self.headers.get(condition[0]) != condition[1]:
            spec = (spec.get("otherwise") or [{"status": 404}])[0]
        delay = float(spec.get("delay") or 0)
        if delay > 0:
            self.pause(delay)
        if spec.get("afterRelease"):
            with STATE.cond:
                base = STATE.gates.get(route, 0)
                STATE.cond.wait_for(lambda: STATE.gates.get(route, 0) > base, timeout=60)

        if spec.get("hold"):
            self.hold_until_disconnect(route)
            return

        if spec.get("stream"):
            self.send_stream(route, spec["stream"], spec.get("headers"))
            return

        if spec.get("events"):
            self.send_events(route, spec["events"], spec.get("headers"), int(spec.get("status", 200)))
            return

        if spec.get("echo"):
            self.send_json(200, {
                "method": self.command,
                "path": route,
                "query": query,
                "headers": [[name, value] for name, value in self.headers.items()],
                "body": body.decode("utf-8", errors="replace"),
            })
            return

        if "bodyBase64" in spec:
            payload = base64.b64decode(spec["bodyBase64"])
        elif "bodySize" in spec:
            payload = b"x" * int(spec["bodySize"])
        else:
            payload = str(spec.get("body") or "").encode("utf-8")
        trickle = float(spec.get("trickle") or 0)
        self.send_body(int(spec.get("status", 200)), payload, headers=spec.get("headers"), trickle=trickle,
                       header_list=spec.get("headerList"), chunked=bool(spec.get("chunked")))

    def send_stream(self, route, stream, headers):
        """A 200 whose body goes out in ``chunks`` writes of ``chunkSize`` bytes ("x", or with
        ``pattern`` the byte ``offset % 256``), under a Content-Length of ``declared`` (default:
        all of them). ``gated``: chunk k (k >= 1) waits until ``release`` was called k times on
        the path. ``hang``: after the chunks, holds the connection until the client closes it.
        A client that leaves mid-body is recorded as a disconnect."""
        count, size = int(stream.get("chunks", 1)), int(stream.get("chunkSize", 1))
        total = int(stream.get("declared", count * size))
        if stream.get("pattern"):
            block = bytes(range(256)) * (size // 256 + 2)
        self.send_response(200)
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        self.send_header("Content-Length", str(total))
        self.end_headers()
        self.wfile.flush()
        offset = 0
        for index in range(count):
            if stream.get("gated") and index > 0:
                with STATE.cond:
                    if not STATE.cond.wait_for(lambda: STATE.gates.get(route, 0) >= index, timeout=60):
                        self.close_connection = True
                        return
            if stream.get("pattern"):
                chunk = block[offset % 256:offset % 256 + size]
            else:
                chunk = b"x" * size
            try:
                self.wfile.write(chunk)
                self.wfile.flush()
            except OSError:
                STATE.record_disconnect(route)
                self.close_connection = True
                return
            offset += size
        if stream.get("hang"):
            self.hold_until_disconnect(route)
        else:
            self.close_connection = True

    def send_events(self, route, events, headers, status):
        """A `status` (200) event stream (``Content-Type: text/event-stream`` unless ``headers`` name
        another) whose body is the text ``pieces``, each sent as one chunk of chunked coding.
        ``gated``: piece k (k >= 1) waits until ``release`` was called on the path k times
        since this response began (so each connection of a reconnecting client has gates of
        its own). ``interval``: seconds to wait before each piece after the first (after its
        gate, if gated). ``end``: ``"close"`` (default) ends the body and closes the connection;
        ``"cut"`` closes it without ending the body (the client sees a truncated transfer);
        ``"hang"`` holds it open until the client closes it. A client that leaves is recorded
        as a disconnect."""
        with STATE.cond:
            base = STATE.gates.get(route, 0)
        self.send_response(status)
        names = set()
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
            names.add(name.lower())
        if "content-type" not in names:
            self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.flush()
            for index, piece in enumerate(events.get("pieces") or []):
                if events.get("gated") and index > 0:
                    with STATE.cond:
                        if not STATE.cond.wait_for(lambda: STATE.gates.get(route, 0) >= base + index, timeout=60):
                            return
                if index > 0 and events.get("interval"):
                    self.pause(float(events["interval"]))
                data = piece.encode("utf-8")
                if data:
                    self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
                    self.wfile.flush()
            end = events.get("end", "close")
            if end == "close":
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except OSError:
            STATE.record_disconnect(route)
            return
        if end == "hang":
            self.hold_until_disconnect(route)

    def hold_until_disconnect(self, route):
        """Never answers; returns once the client closes the connection."""
        sock = self.connection
        while True:
            readable, _, _ = select.select([sock], [], [], HOLD_POLL_INTERVAL)
            if readable:
                try:
                    data = sock.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    break
                # The client sent more bytes (e.g. a pipelined request) but is
                # still connected: keep holding without spinning.
                time.sleep(HOLD_POLL_INTERVAL)
        STATE.record_disconnect(route)
        self.close_connection = True

    # -- control API --------------------------------------------------------

    def handle_control(self, action, query, body):
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        try:
            if action == "script" and self.command == "POST":
                spec = json.loads(body or b"{}")
                STATE.set_script(spec["path"], spec.get("method"), spec.get("responses") or [])
                self.send_json(200, {"ok": True})
            elif action == "requests":
                self.send_json(200, STATE.requests_for(params.get("path")))
            elif action == "wait":
                found = STATE.wait_for_requests(
                    params["path"], int(params.get("count", 1)), float(params.get("timeout", 5))
                )
                if found is None:
                    self.send_json(504, {"message": "timed out", "code": "timeout"})
                else:
                    self.send_json(200, found)
            elif action == "wait-disconnect":
                ok = STATE.wait_for_disconnect(
                    params["path"], int(params.get("count", 1)), float(params.get("timeout", 5))
                )
                if ok:
                    self.send_json(200, {"disconnected": True})
                else:
                    self.send_json(504, {"disconnected": False})
            elif action == "idempotency":
                self.send_json(200, STATE.idempotency_view())
            elif action == "switchable" and self.command == "POST":
                spec = json.loads(body or b"{}")
                try:
                    switched = STATE.set_switchable(bool(spec.get("up", True)))
                except OSError as error:
                    self.send_json(500, {"message": f"switchable listener: {error}", "code": "bind_failed"})
                else:
                    self.send_json(200, switched)
            elif action == "release" and self.command == "POST":
                with STATE.cond:
                    STATE.gates[params["path"]] = STATE.gates.get(params["path"], 0) + 1
                    STATE.cond.notify_all()
                self.send_json(200, {"ok": True})
            elif action == "reset" and self.command == "POST":
                STATE.reset()
                self.send_json(200, {"ok": True})
            else:
                self.send_json(404, {"message": f"unknown control {action}", "code": "not_found"})
        except (KeyError, ValueError, TypeError) as error:
            self.send_json(400, {"message": f"bad control request: {error!r}", "code": "bad_request"})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # The listen backlog: a client that opens dozens of connections at once (CurlTransport
    # opens one per request in flight, up to 64 per host) would otherwise have SYNs dropped
    # past the default 5 and wait a second for each retransmission.
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        """Quiet about clients going away; report anything else on stderr."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, BrokenPipeError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class SwitchableServer(Server):
    """The switchable listener: tracks its open connections so that switching
    it down can shut them all down."""

    def process_request(self, request, client_address):
        with STATE.cond:
            STATE.switchable_connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with STATE.cond:
            STATE.switchable_connections.discard(request)
            cut = request in STATE.switchable_cut
            STATE.switchable_cut.discard(request)
        if cut:
            self.close_request(request)  # no FIN first: SO_LINGER 0 sends RST
        else:
            super().shutdown_request(request)


def bind_switchable(port):
    """Binds the switchable listener to `port` (0: ephemeral), retrying for a
    while if the old socket's port is still busy."""
    deadline = time.monotonic() + REBIND_TIMEOUT
    while True:
        try:
            return SwitchableServer(("127.0.0.1", port), Handler)
        except OSError:
            if port == 0 or time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def reserve_port(port):
    """A socket bound to 127.0.0.1:`port` (0: ephemeral) that never listens:
    the kernel refuses connections to it, and an ephemeral bind elsewhere never
    picks a port in use. Retries for a while if the port is still busy."""
    deadline = time.monotonic() + REBIND_TIMEOUT
    while True:
        reservation = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # Lets it bind beside the closed listener's connections in TIME_WAIT.
        reservation.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            reservation.bind(("127.0.0.1", port))
            return reservation
        except OSError:
            reservation.close()
            if port == 0 or time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def watch_stdin():
    """Exits once stdin reaches EOF (the parent closed the pipe or died)."""
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


def watch_parent(original_ppid):
    """Exits if we get reparented (the parent died)."""
    while True:
        time.sleep(PARENT_POLL_INTERVAL)
        if os.getppid() != original_ppid:
            os._exit(0)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
