#!/usr/bin/env python3
"""A GraphQL server for Courier's tests: Strawberry (PyPI ``strawberry-graphql``), served by
``uvicorn`` on loopback, with the interpreter of the virtual environment ``.ci/run`` makes
(``.build/venv``). Started by ``VenvServer.swift``:

    .build/venv/bin/python graphql_server.py

binds 127.0.0.1 on an ephemeral port, prints ``PORT <n>`` as its first stdout line, and serves
Strawberry's ASGI app at ``/graphql`` (GraphQL over HTTP: POST and GET, and multipart
subscriptions). It exits when its stdin reaches EOF or its parent dies.

The schema has heroes (``hero``, ``renameHero``, ``heroRenamed``) and, for the normalized cache's
``possibleTypes``, a ``Character`` interface that ``Hero`` and ``Droid`` implement (``character``).

Around Strawberry, a small ASGI layer adds:

* automatic persisted queries (Apollo's protocol, which Strawberry does not speak): a request
  whose ``extensions.persistedQuery.sha256Hash`` is unknown and that has no ``query`` gets
  ``PersistedQueryNotFound``; one with the document (whose hash must match) is remembered;
* ``POST /auth/refresh``: Courier's default token refresh, answering the access token
  ``fresh`` (which ``secret`` takes; any other gets ``UNAUTHENTICATED``);
* ``GET /__stats``: what the server saw, as JSON: ``executions`` (resolver runs by field),
  ``documents`` (requests that carried a document), ``hashOnly`` (requests with only a hash),
  ``authorizations`` (the Authorization of each ``secret`` resolution), ``refreshes``,
  ``routes`` (by route below: ``requests``, ``documents``, ``hashOnly``, ``persisted``);
* ``GET /__wait?field=<name>&count=<n>``: answers once ``executions[name]`` reaches n;
* ``GET /__release``: ``slowHero`` with the episode ``HELD`` answers from then on (until then
  it waits; other episodes take 0.5 s), and so does ``renameHero`` to ``fail`` (with an error);
* servers as others answer, each at ``/<route>/graphql`` in front of the same schema:
  ``ariadne`` answers a response without data as GraphQL over HTTP does
  (``application/graphql-response+json``, status 400: Ariadne's default); ``noapq`` has no
  persisted queries (a hash-only request is Strawberry's 400 "No GraphQL query found");
  ``apqunsupported`` answers ``PersistedQueryNotSupported`` to any request with the extension
  (Apollo Server with APQ off); ``postonly`` answers GET with a 405; ``html`` answers GET with
  an HTML page (an IDE).

Strawberry also serves graphql-sse (a POST with ``Accept: text/event-stream``: ``next`` and
``complete`` events) at every route, and both WebSocket protocols (``graphql-transport-ws``,
``graphql-ws``) at ``/graphql``. For those, ``/__stats`` adds ``sockets`` (WebSocket connections
by subprotocol) and ``socketMessages`` (every client message: ``type`` and ``id``); a
``connection_init`` whose ``Authorization`` is not a valid token is refused (graphql-transport-ws:
a 4403 close; graphql-ws: a ``connection_error`` saying ``UNAUTHENTICATED``); ``secureTicks``
ticks while its connection's token is valid, then fails with ``UNAUTHENTICATED``;
``GET /__expire?token=<t>`` makes ``Bearer <t>`` invalid. ``--port <n>`` binds that port (a
restarted server comes back where it was).
"""

import asyncio
import hashlib
import json
import logging
import os
import socket
import sys
import threading
from collections import Counter
from typing import AsyncGenerator, List, Optional

import strawberry
import uvicorn
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_SSE_PROTOCOL, MULTIPART_SUBSCRIPTION_PROTOCOL
from strawberry.types import Info

from scripted_server import watch_parent, watch_stdin

# Quiet in the test log: the errors the tests provoke on purpose would each print a traceback.
logging.getLogger("strawberry.execution").setLevel(logging.CRITICAL)

EXECUTIONS = Counter()
# `slowHero(episode: "HELD")` answers once `GET /__release` came.
HELD = asyncio.Event()
STATS = {"documents": 0, "hashOnly": 0, "authorizations": [], "refreshes": 0, "routes": {}, "sockets": {},
         "socketMessages": []}
# The access tokens a WebSocket's connection_init may carry.
VALID_TOKENS = {"Bearer t1", "Bearer fresh"}
ROUTES = ("ariadne", "noapq", "apqunsupported", "postonly", "html")
PERSISTED = {}
REVIEWS = []


@strawberry.interface
class Character:
    """What heroes and droids share (the normalized cache's possibleTypes tests)."""
    id: strawberry.ID
    name: str


@strawberry.type
class Hero(Character):
    @strawberry.field
    def friends(self) -> List[Optional["Hero"]]:
        EXECUTIONS["friends"] += 1
        return [Hero(id=strawberry.ID("2"), name="Han"), None]

    @strawberry.field
    def secret_identity(self) -> Optional[str]:
        raise Exception(f"{self.name}'s identity is classified")


@strawberry.type
class Droid(Character):
    primary_function: str


HEROES = {"1": "Luke", "2": "Han", "3": "Leia"}
DROIDS = {"2001": ("R2-D2", "Astromech")}


def reveal(info):
    """The secret, to the access token ``fresh`` only."""
    authorization = info.context["request"].headers.get("authorization", "")
    STATS["authorizations"].append(authorization)
    if authorization != "Bearer fresh":
        raise extension_error("the token has expired", "UNAUTHENTICATED")
    return "42"


def extension_error(message, code):
    from graphql import GraphQLError
    return GraphQLError(message, extensions={"code": code})


@strawberry.type
class Query:
    @strawberry.field
    def hero(self, id: strawberry.ID) -> Optional[Hero]:
        EXECUTIONS["hero"] += 1
        name = HEROES.get(str(id))
        return Hero(id=id, name=name) if name else None

    @strawberry.field
    def character(self, id: strawberry.ID) -> Optional[Character]:
        EXECUTIONS["character"] += 1
        if str(id) in DROIDS:
            name, function = DROIDS[str(id)]
            return Droid(id=id, name=name, primary_function=function)
        name = HEROES.get(str(id))
        return Hero(id=id, name=name) if name else None

    @strawberry.field
    async def slow_hero(self, id: strawberry.ID, episode: str = "NEWHOPE") -> Hero:
        EXECUTIONS["slowHero"] += 1
        if episode == "HELD":
            await HELD.wait()
        else:
            await asyncio.sleep(0.5)
        return Hero(id=id, name=HEROES.get(str(id), "?"))

    @strawberry.field
    def secret(self, info: Info) -> str:
        EXECUTIONS["secret"] += 1
        return reveal(info)

    @strawberry.field
    def maybe_secret(self, info: Info) -> Optional[str]:
        """``secret``, nullable: its error sits beside the other fields' data."""
        EXECUTIONS["maybeSecret"] += 1
        return reveal(info)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def rename_hero(self, id: strawberry.ID, name: str) -> Optional[Hero]:
        """Renames a hero (for the normalized cache's tests): the answer carries its identity.
        The name ``fail`` is refused with an error, once ``GET /__release`` came."""
        EXECUTIONS["renameHero"] += 1
        if name == "fail":
            await HELD.wait()
            raise Exception("the name was refused")
        if str(id) not in HEROES:
            return None
        HEROES[str(id)] = name
        return Hero(id=id, name=name)

    @strawberry.mutation
    def add_review(self, stars: int, text: str) -> int:
        EXECUTIONS["addReview"] += 1
        REVIEWS.append((stars, text))
        if text == "fail":
            raise Exception("the review was refused")
        return len(REVIEWS)


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def hero_renamed(self, id: strawberry.ID, names: List[str]) -> AsyncGenerator[Hero, None]:
        """Renames a hero to each of ``names`` in turn, an event each (the normalized cache's tests)."""
        EXECUTIONS["heroRenamed"] += 1
        for name in names:
            HEROES[str(id)] = name
            yield Hero(id=id, name=name)

    @strawberry.subscription
    async def countdown(self, start: int, interval: float = 0.01) -> AsyncGenerator[int, None]:
        EXECUTIONS["countdown"] += 1
        value = start
        while value >= 0:
            yield value
            value -= 1
            await asyncio.sleep(interval)

    @strawberry.subscription
    async def ticks(self) -> AsyncGenerator[int, None]:
        EXECUTIONS["ticks"] += 1
        value = 0
        try:
            while True:
                yield value
                value += 1
                await asyncio.sleep(0.05)
        finally:
            EXECUTIONS["ticksClosed"] += 1

    @strawberry.subscription
    async def secure_ticks(self, info: Info) -> AsyncGenerator[int, None]:
        """Ticks while the connection's token is valid; then ``UNAUTHENTICATED``."""
        EXECUTIONS["secureTicks"] += 1
        params = info.context.get("connection_params") or {}
        authorization = params.get("Authorization", "")
        STATS["authorizations"].append(authorization)
        value = 0
        while True:
            if authorization not in VALID_TOKENS:
                raise extension_error("the token has expired", "UNAUTHENTICATED")
            yield value
            value += 1
            await asyncio.sleep(0.02)

    @strawberry.subscription
    async def failing(self, after: int) -> AsyncGenerator[int, None]:
        """``after`` values, then an error."""
        for value in range(after):
            yield value
        raise Exception("the feed broke")


class GraphQLApp(GraphQL):
    async def on_ws_connect(self, context):
        """Refuses a connection_init whose Authorization is given and not valid."""
        authorization = (context.get("connection_params") or {}).get("Authorization")
        if authorization is not None and authorization not in VALID_TOKENS:
            raise ConnectionRejectionError({"message": "the token has expired", "extensions": {"code": "UNAUTHENTICATED"}})
        return await super().on_ws_connect(context)


schema = strawberry.Schema(query=Query, mutation=Mutation, subscription=Subscription, types=[Hero, Droid])
# Subscriptions over HTTP with Apollo's multipart protocol (off by default in Strawberry), and
# over both WebSocket protocols.
graphql_app = GraphQLApp(
    schema, graphql_ide=None,
    subscription_protocols=(MULTIPART_SUBSCRIPTION_PROTOCOL, GRAPHQL_SSE_PROTOCOL, "graphql-transport-ws", "graphql-ws"))


async def websocket(scope, receive, send):
    """Strawberry's WebSocket, counted, with every client message recorded."""
    offered = scope.get("subprotocols") or []
    key = offered[0] if offered else ""
    STATS["sockets"][key] = STATS["sockets"].get(key, 0) + 1

    async def recording():
        message = await receive()
        if message.get("type") == "websocket.receive" and message.get("text"):
            try:
                parsed = json.loads(message["text"])
                STATS["socketMessages"].append({"type": parsed.get("type"), "id": parsed.get("id")})
            except (ValueError, AttributeError):
                STATS["socketMessages"].append({"type": None, "id": None})
        return message

    return await graphql_app(scope, recording, send)


async def read_body(receive):
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def send_json(send, status, value):
    payload = json.dumps(value).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})


def route_stats(route):
    return STATS["routes"].setdefault(route, {"requests": 0, "documents": 0, "hashOnly": 0, "persisted": 0})


async def send_text(send, status, content_type, text, extra=()):
    payload = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(payload)).encode()), *extra]})
    await send({"type": "http.response.body", "body": payload})


async def as_graphql_over_http(scope, receive, send):
    """Strawberry's answer, reshaped as Ariadne's: a result without data is a 400 of
    ``application/graphql-response+json``."""
    start, chunks = None, []

    async def capture(message):
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
        else:
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                body = b"".join(chunks)
                status = start["status"]
                try:
                    result = json.loads(body)
                except ValueError:
                    result = None
                if isinstance(result, dict) and result.get("data") is None and result.get("errors"):
                    status = 400
                headers = [(k, v) for k, v in start["headers"] if k not in (b"content-type", b"content-length")]
                headers += [(b"content-type", b"application/graphql-response+json"), (b"content-length", str(len(body)).encode())]
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})

    return await graphql_app(scope, receive, capture)


async def routed(route, scope, receive, send):
    """``/<route>/graphql``: the schema as another server answers it."""
    stats = route_stats(route)
    stats["requests"] += 1
    scope = {**scope, "path": "/graphql", "raw_path": b"/graphql"}
    if scope["method"] == "GET":
        if route == "postonly":
            return await send_text(send, 405, b"text/plain", "Method Not Allowed", [(b"allow", b"POST")])
        if route == "html":
            return await send_text(send, 200, b"text/html; charset=utf-8", "<!DOCTYPE html><html><body>GraphiQL</body></html>")
        return await graphql_app(scope, receive, send)
    body = await read_body(receive)
    try:
        request = json.loads(body)
    except ValueError:
        request = None
    if isinstance(request, dict):
        stats["documents" if request.get("query") is not None else "hashOnly"] += 1
        if (request.get("extensions") or {}).get("persistedQuery"):
            stats["persisted"] += 1
            if route == "apqunsupported":
                return await send_json(send, 200, {"errors": [{
                    "message": "PersistedQueryNotSupported", "extensions": {"code": "PERSISTED_QUERY_NOT_SUPPORTED"}}]})
    sent = False

    async def replay():
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    if route == "ariadne":
        return await as_graphql_over_http(scope, replay, send)
    return await graphql_app(scope, replay, send)


async def app(scope, receive, send):
    if scope["type"] == "websocket":
        return await websocket(scope, receive, send)
    if scope["type"] != "http":
        return await graphql_app(scope, receive, send)
    if scope["path"] == "/__expire":
        token = scope["query_string"].decode().split("token=", 1)[-1]
        VALID_TOKENS.discard(f"Bearer {token}")
        return await send_json(send, 200, {"valid": sorted(VALID_TOKENS)})
    if scope["path"] == "/__release":
        HELD.set()
        return await send_json(send, 200, {"executions": EXECUTIONS})
    if scope["path"] == "/__stats":
        return await send_json(send, 200, {"executions": EXECUTIONS, **STATS})
    if scope["path"] == "/__wait":
        query = dict(pair.split("=", 1) for pair in scope["query_string"].decode().split("&") if "=" in pair)
        for _ in range(5000):
            if EXECUTIONS[query["field"]] >= int(query["count"]):
                break
            await asyncio.sleep(0.01)
        return await send_json(send, 200, {"executions": EXECUTIONS})
    parts = scope["path"].strip("/").split("/")
    if len(parts) == 2 and parts[0] in ROUTES and parts[1] == "graphql":
        return await routed(parts[0], scope, receive, send)
    if scope["path"] == "/auth/refresh":
        await read_body(receive)
        STATS["refreshes"] += 1
        await asyncio.sleep(0.2)   # a refresh that takes a while: the storm gathers behind it
        return await send_json(send, 200, {"accessToken": "fresh", "refreshToken": "r2", "expiresIn": 3600})
    if scope["method"] == "POST" and scope["path"] == "/graphql":
        body = await read_body(receive)
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if isinstance(request, dict):
            if request.get("query") is not None:
                STATS["documents"] += 1
            persisted = (request.get("extensions") or {}).get("persistedQuery")
            if persisted:
                digest = persisted.get("sha256Hash")
                if request.get("query") is None:
                    STATS["hashOnly"] += 1
                    if digest not in PERSISTED:
                        return await send_json(send, 200, {"errors": [{
                            "message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}]})
                    request["query"] = PERSISTED[digest]
                else:
                    if hashlib.sha256(request["query"].encode()).hexdigest() != digest:
                        return await send_json(send, 400, {"errors": [{"message": "provided sha does not match query"}]})
                    PERSISTED[digest] = request["query"]
                del request["extensions"]
            body = json.dumps(request).encode()
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        return await graphql_app({**scope, "headers": headers}, replay, send)
    return await graphql_app(scope, receive, send)


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)
    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="error", lifespan="off", backlog=1024)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
