#!/usr/bin/env python3
"""Python's `websockets` server (PyPI), for Courier's WebSocket interop tests.

Run with the test virtual environment's interpreter by `VenvServer`: binds 127.0.0.1 on an
ephemeral port, prints ``PORT <n>``, serves until stdin reaches EOF.

* ``/echo``: echoes every message as it came (text as text, binary as binary), one frame.
* ``/fragments``: echoes every message cut into fragments of 64 KiB (one frame each).
* Subprotocol ``graphql-transport-ws`` is chosen when offered; none otherwise.
* Messages up to 32 MiB. ``permessage-deflate`` only if the client offers it.
* ``--cert CHAIN --key KEY``: over TLS (wss).
"""

import asyncio, os, ssl, sys, threading

from websockets.asyncio.server import serve


def select_subprotocol(connection, offered):
    return "graphql-transport-ws" if "graphql-transport-ws" in offered else None


async def handler(ws):
    path = ws.request.path.split("?")[0]
    async for message in ws:
        if path == "/fragments":
            size = 64 * 1024
            await ws.send([message[i:i + size] for i in range(0, max(len(message), 1), size)])
        else:
            await ws.send(message)


async def main():
    context = None
    if "--cert" in sys.argv:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[sys.argv.index("--cert") + 1], sys.argv[sys.argv.index("--key") + 1])
    async with serve(handler, "127.0.0.1", 0, select_subprotocol=select_subprotocol, max_size=32 << 20,
                     ping_interval=None, ssl=context) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await asyncio.Future()


def watch_stdin():
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=watch_stdin, daemon=True).start()
asyncio.run(main())
