"""A TCP proxy on 127.0.0.1 for the connection-cut tests: forwards every connection to the port
given as argv[1], prints `PORT <n>`, then takes commands on stdin, one a line, answering each
with `ok`:

  arm  the next bytes the server sends on any connection are dropped and that connection is
       cut at once (the client never sees the answer to what it sent last)
  cut  cut every connection now
  mute   drop what the server sends, on every connection, keeping them open (a server gone
         silent)
  unmute forward it again

It exits when stdin closes."""
import asyncio
import sys

UPSTREAM = int(sys.argv[1])
connections = set()
armed = False
muted = False


def cut_all():
    for writer in list(connections):
        writer.transport.abort()
    connections.clear()


async def pipe(reader, writer, from_server, pair):
    global armed
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if from_server and armed:
                armed = False
                for end in pair:
                    end.transport.abort()
                break
            if from_server and muted:
                continue
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.transport.abort()


async def serve(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", UPSTREAM)
    except OSError:
        client_writer.transport.abort()
        return
    connections.add(client_writer)
    connections.add(server_writer)
    pair = (client_writer, server_writer)
    await asyncio.gather(pipe(client_reader, server_writer, False, pair), pipe(server_reader, client_writer, True, pair))
    connections.discard(client_writer)
    connections.discard(server_writer)


async def commands():
    global armed, muted
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        command = line.strip()
        if command == "arm":
            armed = True
        elif command == "cut":
            cut_all()
        elif command in ("mute", "unmute"):
            muted = command == "mute"
        print("ok", flush=True)


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    await commands()
    cut_all()
    server.close()


asyncio.run(main())
