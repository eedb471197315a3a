#!/usr/bin/env python3
"""A raw-socket WebSocket peer (RFC 6455) for Courier's WebSocket tests: standard library only.

Started by `WebSocketPeer.swift`:

    python3 websocket_peer.py

binds 127.0.0.1 on an ephemeral port, prints ``PORT <n>``, serves until stdin reaches EOF.
Each connection gets a thread. Plain HTTP paths:

* ``/log?id=ID``: JSON list of what the peer saw on connections opened with ``?id=ID``:
  ``{"event": "close", "code": c, "reason": r}``, ``{"event": "pong", "payload": p}``,
  ``{"event": "message", "opcode": o, "length": n}``, ``{"event": "eof"}``,
  ``{"event": "request", "headers": {...}}``. Waits (at most 60 s) for ``&wait=EVENT``.
* ``/auth/refresh`` (POST): ``{"accessToken": "new", "expiresIn": 3600}``.

Every other path is a WebSocket handshake, then the scenario its path names:

* ``/echo``: echoes every message (fragments joined) as one frame; answers pings; echoes
  a close frame and closes.
* ``/auth``: as /echo, but 401 unless ``Authorization: Bearer new``.
* ``/protocol``: as /echo, choosing the first offered subprotocol.
* ``/gql/<mode>/<id>``: a hostile GraphQL server (the first offered subprotocol chosen): logs each
  text message as ``{"event": "text", "payload": p}``; after ``connection_init`` it sends, by
  mode, ``garbled`` (an ack, then at the first subscription a message cut mid-JSON),
  ``unknown`` (an ack, then a message of an unknown type), ``noack`` (nothing), ``close4400``
  (a close 4400 ``nope``); then it
  reads until the client's close (logged) or EOF.
* ``/wrong-protocol``, ``/bad-accept``, ``/extension``: a 101 that breaks the handshake.
* ``/fragmented-text``: sends "héllo, wörld €" in fragments that split code points,
  a ping between two of them; then as /echo.
* ``/invalid-utf8``, ``/invalid-utf8-split`` (the invalid byte in the 2nd fragment),
  ``/reserved-bits``, ``/unknown-opcode``, ``/fragmented-ping``, ``/big-ping``,
  ``/masked``, ``/continuation-first``, ``/bad-close-code``, ``/one-byte-close``,
  ``/oversized`` (a frame head claiming 64 MiB): the bad frame, then the client's close
  is logged.
* ``/close?code=C&reason=R``: sends a close frame, logs the client's.
* ``/ping``: sends a ping ``hello``, logs the pong.
* ``/never-close``: echoes, ignores the client's close frame, holds the connection.
* ``/silent``: never answers pings, never sends; holds the connection.
* ``/drop``: sends a text ``bye``, then closes TCP without a close frame.
* ``/text-then-close``: sends text ``one``, ``two``, then a close 1000.
* ``/flood?n=N&size=S``: sends N binary messages of S bytes as fast as the client takes them;
  logs ``{"event": "stalled", "length": bytes sent}`` the first time the socket stays unwritable
  for 1 s, and ``{"event": "sent", "length": total}`` at the end; then as /echo.
"""

import base64, hashlib, json, os, select, socket, struct, sys, threading, time
from urllib.parse import urlparse, parse_qs

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
logs = {}
lock = threading.Condition()


def log(conn_id, entry):
    if conn_id is None:
        return
    with lock:
        logs.setdefault(conn_id, []).append(entry)
        lock.notify_all()


def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, value = line.split(":", 1)
        headers[name.strip().lower()] = value.strip()
    return (method, target, headers), rest


class Conn:
    def __init__(self, sock, rest):
        self.sock = sock
        self.buf = rest

    def recv_exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_frame(self):
        b0, b1 = self.recv_exact(2)
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack("!H", self.recv_exact(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self.recv_exact(8))[0]
        masked = b1 & 0x80
        key = self.recv_exact(4) if masked else b"\0\0\0\0"
        payload = bytearray(self.recv_exact(length))
        for i in range(length):
            payload[i] ^= key[i % 4]
        return b0 & 0x80 != 0, (b0 >> 4) & 7, b0 & 0x0F, bytes(payload), bool(masked)

    def send_frame(self, opcode, payload=b"", fin=True, rsv=0, mask=None, length=None):
        head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
        n = len(payload) if length is None else length
        mbit = 0x80 if mask else 0
        if n < 126:
            head += bytes([mbit | n])
        elif n < 65536:
            head += bytes([mbit | 126]) + struct.pack("!H", n)
        else:
            head += bytes([mbit | 127]) + struct.pack("!Q", n)
        if mask:
            head += mask
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + payload)

    def read_message(self, conn_id, answer_pings=True, on_close=None):
        """The next message (opcode, bytes); None after a close (answered unless on_close says)."""
        parts, opcode = [], None
        while True:
            fin, rsv, op, payload, masked = self.read_frame()
            if not masked:
                log(conn_id, {"event": "unmasked"})
            if op == 0x9:
                if answer_pings:
                    self.send_frame(0xA, payload)
                continue
            if op == 0xA:
                log(conn_id, {"event": "pong", "payload": payload.decode("latin-1")})
                continue
            if op == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                log(conn_id, {"event": "close", "code": code, "reason": payload[2:].decode("utf-8", "replace")})
                if on_close is None:
                    self.send_frame(0x8, payload[:2])
                return None
            if op != 0:
                opcode = op
            parts.append(payload)
            if fin:
                data = b"".join(parts)
                log(conn_id, {"event": "message", "opcode": opcode, "length": len(data), "frames": len(parts)})
                return opcode, data


def accept(key):
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def http_answer(sock, status, body=b"", content_type="application/json"):
    reason = {200: "OK", 401: "Unauthorized", 404: "Not Found"}.get(status, "X")
    sock.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
                 f"Connection: close\r\n\r\n".encode() + body)


def serve(sock):
    try:
        request, rest = read_head(sock)
        if request is None:
            return
        method, target, headers = request
        url = urlparse(target)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = url.path
        conn_id = query.get("id")
        if path.startswith("/gql/"):
            # /gql/<mode>/<id>: a GraphQL client builds its URL from a path, without a query.
            _, _, query["mode"], conn_id = path.split("/")
            path = "/gql"
        if path == "/log":
            wait = query.get("wait")
            deadline = time.time() + 60
            with lock:
                while wait and not any(e["event"] == wait for e in logs.get(query["id"], [])) and time.time() < deadline:
                    lock.wait(deadline - time.time())
                body = json.dumps(logs.get(query["id"], [])).encode()
            http_answer(sock, 200, body)
            return
        if path == "/auth/refresh":
            http_answer(sock, 200, b'{"accessToken":"new","expiresIn":3600}')
            return
        log(conn_id, {"event": "request", "headers": headers})
        if headers.get("upgrade", "").lower() != "websocket":
            http_answer(sock, 404, b"{}")
            return
        if path == "/auth" and headers.get("authorization") != "Bearer new":
            http_answer(sock, 401, b'{"error":"expired"}')
            return
        extra = ""
        key = accept(headers["sec-websocket-key"])
        if path in ("/protocol", "/gql"):
            offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",") if p.strip()]
            if offered:
                extra += f"Sec-WebSocket-Protocol: {offered[0]}\r\n"
        elif path == "/wrong-protocol":
            extra += "Sec-WebSocket-Protocol: not-offered\r\n"
        elif path == "/bad-accept":
            key = accept("something else")
        elif path == "/extension":
            extra += "Sec-WebSocket-Extensions: x-unknown\r\n"
        sock.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Accept: {key}\r\n{extra}\r\n").encode())
        conn = Conn(sock, rest)
        scenario(path, query, conn, conn_id)
    except (EOFError, ConnectionError, OSError):
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass


def echo(conn, conn_id):
    while True:
        message = conn.read_message(conn_id)
        if message is None:
            return
        opcode, data = message
        conn.send_frame(opcode, data)


def await_close(conn, conn_id):
    """After a bad frame: read until the client's close (logged) or EOF."""
    try:
        while conn.read_message(conn_id, on_close=False) is not None:
            pass
    except EOFError:
        log(conn_id, {"event": "eof"})


def hostile_graphql(query, conn, conn_id):
    mode = query.get("mode", "noack")
    try:
        while True:
            frame = conn.read_frame()
            opcode, payload = frame[2], frame[3]
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                log(conn_id, {"event": "close", "code": code, "reason": payload[2:].decode(errors="replace")})
                conn.send_frame(0x8, payload[:2])
                return
            if opcode != 0x1:
                continue
            text = payload.decode()
            log(conn_id, {"event": "text", "payload": text})
            kind = json.loads(text).get("type")
            if kind == "connection_init" and mode == "close4400":
                conn.send_frame(0x8, struct.pack("!H", 4400) + b"nope")
            elif kind == "connection_init" and mode in ("garbled", "unknown"):
                conn.send_frame(0x1, b'{"type":"connection_ack"}')
                if mode == "unknown":
                    conn.send_frame(0x1, b'{"type":"surprise","id":"1"}')
            elif kind in ("subscribe", "start") and mode == "garbled":
                conn.send_frame(0x1, b'{"type":"next","id":"1","payload":{"data":')
    except EOFError:
        log(conn_id, {"event": "eof"})


def scenario(path, query, conn, conn_id):
    if path == "/gql":
        hostile_graphql(query, conn, conn_id)
    elif path in ("/echo", "/auth", "/protocol"):
        echo(conn, conn_id)
    elif path == "/fragmented-text":
        data = "héllo, wörld €".encode()
        # Cuts inside é (2 bytes) and € (3 bytes).
        conn.send_frame(0x1, data[:2], fin=False)
        conn.send_frame(0x0, data[2:9], fin=False)
        conn.send_frame(0x9, b"mid")
        conn.send_frame(0x0, data[9:-1], fin=False)
        conn.send_frame(0x0, data[-1:], fin=True)
        echo(conn, conn_id)
    elif path in ("/invalid-utf8", "/invalid-utf8-split", "/reserved-bits", "/unknown-opcode", "/fragmented-ping",
                  "/big-ping", "/masked", "/continuation-first", "/bad-close-code", "/one-byte-close", "/oversized"):
        if path == "/invalid-utf8":
            conn.send_frame(0x1, b"ok \xff\xfe")
        elif path == "/invalid-utf8-split":
            conn.send_frame(0x1, b"fine so far ", fin=False)
            conn.send_frame(0x0, b"\xed\xa0\x80", fin=True)  # a surrogate
        elif path == "/reserved-bits":
            conn.send_frame(0x1, b"rsv", rsv=2)
        elif path == "/unknown-opcode":
            conn.send_frame(0x3, b"?")
        elif path == "/fragmented-ping":
            conn.send_frame(0x9, b"p", fin=False)
        elif path == "/big-ping":
            conn.send_frame(0x9, b"x" * 126)
        elif path == "/masked":
            conn.send_frame(0x1, b"masked", mask=b"\x01\x02\x03\x04")
        elif path == "/continuation-first":
            conn.send_frame(0x0, b"orphan")
        elif path == "/bad-close-code":
            conn.send_frame(0x8, struct.pack("!H", 1005))
        elif path == "/one-byte-close":
            conn.send_frame(0x8, b"\x03")
        elif path == "/oversized":
            conn.send_frame(0x2, b"", length=64 << 20)
        await_close(conn, conn_id)
    elif path == "/close":
        code = int(query.get("code", "1000"))
        conn.send_frame(0x8, struct.pack("!H", code) + query.get("reason", "").encode())
        await_close(conn, conn_id)
    elif path == "/ping":
        conn.send_frame(0x9, b"hello")
        echo(conn, conn_id)
    elif path == "/never-close":
        try:
            while conn.read_message(conn_id, on_close=False) is not None:
                pass
            # The client's close arrived: hold until it drops the connection.
            conn.read_frame()
        except EOFError:
            log(conn_id, {"event": "eof"})
    elif path == "/silent":
        try:
            while True:
                conn.read_frame()
        except EOFError:
            log(conn_id, {"event": "eof"})
    elif path == "/drop":
        conn.send_frame(0x1, b"bye")
        conn.sock.shutdown(socket.SHUT_RDWR)
    elif path == "/flood":
        n, size = int(query["n"]), int(query["size"])
        head = bytes([0x82, 127]) + struct.pack("!Q", size)
        data = (head + bytes(i % 251 for i in range(size))) * n
        view, sent, stalled = memoryview(data), 0, False
        conn.sock.setblocking(False)
        while sent < len(data):
            _, writable, _ = select.select([], [conn.sock], [], 1.0)
            if not writable:
                if not stalled:
                    log(conn_id, {"event": "stalled", "length": sent})
                    stalled = True
                continue
            try:
                sent += conn.sock.send(view[sent:sent + (1 << 20)])
            except BlockingIOError:
                pass
        conn.sock.setblocking(True)
        log(conn_id, {"event": "sent", "length": sent})
        echo(conn, conn_id)
    elif path == "/text-then-close":
        conn.send_frame(0x1, b"one")
        conn.send_frame(0x1, b"two")
        conn.send_frame(0x8, struct.pack("!H", 1000) + b"done")
        await_close(conn, conn_id)


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(f"PORT {listener.getsockname()[1]}", flush=True)

    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    while True:
        sock, _ = listener.accept()
        threading.Thread(target=serve, args=(sock,), daemon=True).start()


if __name__ == "__main__":
    main()
