#!/usr/bin/env python3
"""httpbin (PyPI) on loopback for Courier's tests, run with the virtual environment's
interpreter that `.ci/run` makes (`.build/venv`). Started by `VenvServer.swift`:

    .build/venv/bin/python httpbin_server.py

binds 127.0.0.1 on an ephemeral port, prints ``PORT <n>`` as its first stdout
line, and serves httpbin's app (``/post``, ``/anything``, ``/headers``, …) with
Werkzeug's threaded server. It exits when its stdin reaches EOF or its parent
dies.

One route is added beside httpbin's: ``POST /courier/multipart`` parses a
multipart/form-data body with the same parser as httpbin's ``/post``
(Werkzeug's, through Flask's ``request.files``/``request.form``) and reports
what httpbin's own answer leaves out: each file part's field name, filename,
content type, size and SHA-256 (read in blocks, never whole), as JSON
``{"form": {name: [values]}, "files": [{"name", "filename", "contentType",
"size", "sha256"}], "contentType": "<the request's>"}``.
"""

import hashlib
import logging
import os
import threading

# Quiet in the test log: no line per request, no notice that httpbin's optional Swagger UI is
# missing; errors (a traceback) still show.
logging.getLogger("werkzeug").setLevel(logging.ERROR)
logging.getLogger("httpbin.core").setLevel(logging.ERROR)

from flask import jsonify, request  # noqa: E402 (after the loggers are set)
from httpbin import app  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

# The scripted server's watchdogs: this process ends with the test process that started it.
from scripted_server import watch_parent, watch_stdin  # noqa: E402


@app.route("/courier/multipart", methods=["POST"])
def courier_multipart():
    files = []
    for name, storage in request.files.items(multi=True):
        digest = hashlib.sha256()
        size = 0
        while True:
            block = storage.stream.read(1024 * 1024)
            if not block:
                break
            digest.update(block)
            size += len(block)
        files.append({
            "name": name,
            "filename": storage.filename,
            "contentType": storage.content_type,
            "size": size,
            "sha256": digest.hexdigest(),
        })
    return jsonify(
        form=request.form.to_dict(flat=False),
        files=files,
        contentType=request.headers.get("Content-Type", ""),
    )


def main():
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    print(f"PORT {server.server_port}", flush=True)
    try:
        server.serve_forever()
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
