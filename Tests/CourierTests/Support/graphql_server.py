#!/usr/bin/env python3
"""A GraphQL server for Courier's tests: Strawberry (PyPI ``strawberry-graphql``), served by
``uvicorn`` on loopback, with the interpreter of the virtual environment ``.ci/run`` makes
(``.build/venv``). Started by ``VenvServer.swift``:

    .build/venv/bin/python graphql_server.py

binds 127.0.0.1 on an ephemeral port, prints ``PORT <n>`` as its first stdout line, and serves
Strawberry's ASGI app at ``/graphql`` (GraphQL over HTTP: POST and GET, and multipart
subscriptions). It exits when its stdin reaches EOF or its parent dies.

Around Strawberry, a small ASGI layer adds:

* automatic persisted queries (Apollo's protocol, which Strawberry does not speak): a request
  whose ``extensions.persistedQuery.sha256Hash`` is unknown and that has no ``query`` gets
  ``PersistedQueryNotFound``; one with the document (whose hash must match) is remembered;
* ``POST /auth/refresh``: Courier's default token refresh, answering the access token
  ``fresh`` (which ``secret`` takes; any other gets ``UNAUTHENTICATED``);
* ``GET /__stats``: what the server saw, as JSON: ``executions`` (resolver runs by field),
  ``documents`` (requests that carried a document), ``hashOnly`` (requests with only a hash),
  ``authorizations`` (the Authorization of each ``secret`` resolution), ``refreshes``.
"""

import asyncio
import hashlib
import json
import logging
import os
import socket
import threading
from collections import Counter
from typing import AsyncGenerator, List, Optional

import strawberry
import uvicorn
from strawberry.asgi import GraphQL
from strawberry.subscriptions import MULTIPART_SUBSCRIPTION_PROTOCOL
from strawberry.types import Info

from scripted_server import watch_parent, watch_stdin

# Quiet in the test log: the errors the tests provoke on purpose would each print a traceback.
logging.getLogger("strawberry.execution").setLevel(logging.CRITICAL)

EXECUTIONS = Counter()
STATS = {"documents": 0, "hashOnly": 0, "authorizations": [], "refreshes": 0}
PERSISTED = {}
REVIEWS = []


@strawberry.type
class Hero:
    id: strawberry.ID
    name: str

    @strawberry.field
    def friends(self) -> List[Optional["Hero"]]:
        EXECUTIONS["friends"] += 1
        return [Hero(id=strawberry.ID("2"), name="Han"), None]

    @strawberry.field
    def secret_identity(self) -> Optional[str]:
        raise Exception(f"{self.name}'s identity is classified")


HEROES = {"1": "Luke", "2": "Han", "3": "Leia"}


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
    async def slow_hero(self, id: strawberry.ID, episode: str = "NEWHOPE") -> Hero:
        EXECUTIONS["slowHero"] += 1
        await asyncio.sleep(0.5)
        return Hero(id=id, name=HEROES.get(str(id), "?"))

    @strawberry.field
    def secret(self, info: Info) -> str:
        authorization = info.context["request"].headers.get("authorization", "")
        STATS["authorizations"].append(authorization)
        EXECUTIONS["secret"] += 1
        if authorization != "Bearer fresh":
            raise extension_error("the token has expired", "UNAUTHENTICATED")
        return "42"


@strawberry.type
class Mutation:
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


schema = strawberry.Schema(query=Query, mutation=Mutation, subscription=Subscription)
# Subscriptions over HTTP with Apollo's multipart protocol (off by default in Strawberry).
graphql_app = GraphQL(schema, graphql_ide=None, subscription_protocols=(MULTIPART_SUBSCRIPTION_PROTOCOL,))


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


async def app(scope, receive, send):
    if scope["type"] != "http":
        return await graphql_app(scope, receive, send)
    if scope["path"] == "/__stats":
        return await send_json(send, 200, {"executions": EXECUTIONS, **STATS})
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
    sock.bind(("127.0.0.1", 0))
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
