"""The receiving end of the replica tests and the benchmark: an HTTP server on 127.0.0.1 that
answers every POST 201 after an optional delay (argv[1], milliseconds), and records, per
`Idempotency-Key`, how often it came, and, per `X-Ordering-Key`, the `X-Sequence` values in the
order their first applications arrived. Prints `PORT <n>`; exits when stdin closes.

  GET /stats  {"requests": n, "distinct": n, "duplicates": n, "outOfOrder": n, "perKey": {...}}
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DELAY = float(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 0.0
lock = threading.Lock()
seen = {}
last_sequence = {}
applied_per_key = {}
out_of_order = 0
requests = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The status line and headers, then the body, are two writes: with Nagle's algorithm the
    # body waits for the client's delayed ACK (40 ms a request on Linux).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def reply(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        global out_of_order, requests
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if DELAY:
            time.sleep(DELAY)
        key = self.headers.get("Idempotency-Key", "")
        ordering = self.headers.get("X-Ordering-Key", "")
        sequence = int(self.headers.get("X-Sequence", "-1"))
        with lock:
            requests += 1
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 1 and ordering:
                # The write is applied on its key's first arrival only (an idempotent server).
                if sequence <= last_sequence.get(ordering, -1):
                    out_of_order += 1
                last_sequence[ordering] = sequence
                applied_per_key[ordering] = applied_per_key.get(ordering, 0) + 1
        self.reply(201, b"{}")

    def do_GET(self):
        with lock:
            stats = {
                "requests": requests,
                "distinct": len(seen),
                "duplicates": sum(count - 1 for count in seen.values()),
                "outOfOrder": out_of_order,
                "perKey": applied_per_key,
            }
        self.reply(200, json.dumps(stats).encode())


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"PORT {server.server_address[1]}", flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
