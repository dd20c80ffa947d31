"""The ASGI application (Starlette, on anyio, so it runs under hypercorn's trio worker):
IBM's v2 REST paths, /metrics and the console, every request authenticated and authorised
(:mod:`mqpy_cli.web.security`), every MQI call made in a worker thread as the caller."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.to_thread
from prometheus_client import CollectorRegistry
from prometheus_client.openmetrics.exposition import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from mqpy_cli.web import admin, console, messaging, mqscaction, subscriptions
from mqpy_cli.web.config import WebConfig
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.metrics import MQCollector
from mqpy_cli.web.names import EncodedSegments, segment
from mqpy_cli.web.pool import ConnectionPool
from mqpy_cli.web.resources import Monitors
from mqpy_cli.web.security import ADMIN_RO, CSRF_HEADER, Authenticator, Principal, check_csrf

REST = "/ibmmq/rest/v2"
#: IBM documents GET .../subscription on v1 only (v2 has the mqsc action for it)
REST_V1 = "/ibmmq/rest/v1"
STATIC = os.path.join(os.path.dirname(__file__), "static")


async def _blocking(fn: Callable, *args: Any, limiter: anyio.CapacityLimiter | None = None,
                    **kwargs: Any) -> Any:
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs),
                                          limiter=limiter)


#: the largest request bodies read: a message (MQ's largest, 100 MB), the administrative
#: API's JSON, and a login's (read before the caller is known)
MAX_MESSAGE_BODY = 104_857_600
MAX_JSON_BODY = 1_048_576
MAX_LOGIN_BODY = 16_384

#: passwords checked at once (each an scrypt hash, about 0.1-0.4 s of CPU)
PASSWORD_CHECKS = 2

#: gets that wait for a message have worker threads of their own, so that however many
#: wait, other requests are served by the default ones
WAITING_GETS = 64


class Handlers:
    """The routes' bodies, sharing the configuration and the authenticator."""

    def __init__(self, cfg: WebConfig) -> None:
        self.cfg = cfg
        self.auth = Authenticator(cfg)
        self.pool = ConnectionPool(cfg.data_path)
        self._waiting: anyio.CapacityLimiter | None = None
        self._checking: anyio.CapacityLimiter | None = None
        self.registry = CollectorRegistry(auto_describe=False)
        self.monitors = Monitors(cfg.data_path)
        self.registry.register(MQCollector(cfg.data_path, self.pool, monitors=self.monitors))

    async def caller(self, request: Request) -> Principal:
        check_csrf(request.method, request.headers)
        authorization = request.headers.get("authorization")
        if authorization is None and self.auth.tokens.cookie in request.cookies:
            who = self.auth.from_token(request.cookies[self.auth.tokens.cookie])
            if who is None:
                raise RestError(401, "MQWB0103E")
            return who
        who = self.auth.known(authorization)  # no thread hop for a caller checked before
        return who if who is not None else await _blocking(
            self.auth.authenticate, authorization, limiter=self.checking())

    async def admin_call(self, request: Request, work: Callable, *args: Any,
                         role_check: Callable[[str], None] | None = None,
                         body: bool = False) -> Any:
        """``work(server, *args)`` with a command server connection made as the caller's
        admin role allows; with ``body``, the request's JSON body is read once the caller's
        role allows the request, and given as the last argument."""
        who = await self.caller(request)
        role = who.admin_role(request.method)
        if role_check is not None:
            role_check(role)
        if body:
            args = (*args, await self.json_body(request))
        user, password = who.identity(role)
        qmgr = request.path_params["qmgr"]

        def run() -> Any:
            with self.pool.command_server(qmgr, user, password) as server:
                return work(server, *args)

        return await _blocking(run)

    # ------------------------------------------------------------------ admin
    async def login(self, request: Request) -> Response:
        """GET /login: the caller's name and roles; POST: a token login (the LtpaToken2
        cookie); DELETE: its logout."""
        if request.method == "POST":
            return await self._log_in(request)
        if request.method == "DELETE":
            return self._log_out(request)
        who = await self.caller(request)
        return JSONResponse({"user": [{"name": who.user, "role": sorted(who.roles)}]})

    async def _log_in(self, request: Request) -> Response:
        media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        if media != "application/json":  # IBM's login takes JSON only (no form can post it)
            raise RestError(415, "MQWB0306E")
        # the caller is not known yet: the body is small and must come at once
        body = _parsed(await read_body(request, MAX_LOGIN_BODY, self.cfg.read_timeout,
                                       whole=True))
        if not (isinstance(body, dict) and isinstance(body.get("username"), str)
                and isinstance(body.get("password"), str)):
            raise RestError(400, "MQWB2004E")
        _, token = await _blocking(self.auth.login, body["username"], body["password"],
                                   limiter=self.checking())
        response = Response(status_code=204)
        response.set_cookie(self.auth.tokens.cookie, token, path="/", httponly=True,
                            secure=self.cfg.ltpa_secure, samesite="strict")
        return response

    def _log_out(self, request: Request) -> Response:
        """IBM: a logout without the CSRF header, or without a good token, is 401."""
        cookie = self.auth.tokens.cookie
        who = self.auth.from_token(request.cookies.get(cookie))
        if who is None or who.token is None or CSRF_HEADER not in request.headers:
            raise RestError(401, "MQWB0103E")
        self.auth.tokens.revoke(who.token)
        response = Response(status_code=204)
        response.delete_cookie(cookie, path="/", httponly=True, secure=self.cfg.ltpa_secure,
                               samesite="strict")
        return response

    async def installation(self, request: Request) -> Response:
        (await self.caller(request)).admin_role("GET")
        return JSONResponse(admin.installation(self.cfg.data_path))

    async def qmgr(self, request: Request) -> Response:
        who = await self.caller(request)
        role = who.admin_role("GET")
        name = request.path_params.get("qmgr")
        state = request.query_params.get("state")
        listed = await _blocking(admin.qmgrs, self.cfg.data_path, name, state)
        if request.query_params.get("status"):
            user, password = who.identity(role)
            for q in listed:
                if q["state"] == "running":
                    q["status"] = await _blocking(self._qmgr_status, q["name"], user, password)
        return JSONResponse({"qmgr": listed})

    def _qmgr_status(self, name: str, user: str | None, password: str | None) -> dict:
        with self.pool.command_server(name, user, password) as server:
            return admin.qmgr_status(server)

    async def queues(self, request: Request) -> Response:
        q = request.query_params
        if request.method == "POST":
            name = await self.admin_call(request, admin.create_queue, body=True)
            return Response(status_code=201, headers={
                "Location": f"{REST}/admin/qmgr/{segment(request.path_params['qmgr'])}"
                            f"/queue/{segment(name)}"})
        name = request.path_params.get("queue")
        body = await self.admin_call(
            request, functools.partial(admin.get_queues, attributes=q.get("attributes"),
                                       status=q.get("status"), filter_=q.get("filter"),
                                       qtype=q.get("type", "all")), name)
        return JSONResponse(body)

    async def queue(self, request: Request) -> Response:
        name = request.path_params["queue"]
        if request.method == "PATCH":
            await self.admin_call(request, admin.change_queue, name, body=True)
            return Response(status_code=204)
        if request.method == "DELETE":
            purge = request.query_params.get("purge", "false") == "true"
            await self.admin_call(request, admin.delete_queue, name, purge)
            return Response(status_code=204)
        return await self.queues(request)

    async def channels(self, request: Request) -> Response:
        q = request.query_params
        body = await self.admin_call(
            request, functools.partial(admin.get_channels, attributes=q.get("attributes"),
                                       status=q.get("status")),
            request.path_params.get("channel"))
        return JSONResponse(body)

    async def subscriptions(self, request: Request) -> Response:
        """GET .../subscription[/{name}] ``?attributes=`` ``&id=`` ``&name=``."""
        q = request.query_params
        body = await self.admin_call(
            request, functools.partial(subscriptions.get_subscriptions,
                                       attributes=q.get("attributes"), sub_id=q.get("id"),
                                       generic=q.get("name")),
            request.path_params.get("name"))
        return JSONResponse(body)

    async def mqsc(self, request: Request) -> Response:
        # MQWebAdminRO may display: the action is a POST, so the role is checked here
        who = await self.caller(request)
        try:
            role = who.admin_role("POST")
        except RestError:
            role = who.admin_role("GET")
        body = await self.json_body(request)
        if role == ADMIN_RO and not (isinstance(body, dict) and mqscaction.is_read_only(body)):
            raise RestError(403, "MQWB0103E")
        user, password = who.identity(role)
        qmgr = request.path_params["qmgr"]

        def run() -> dict:
            with self.pool.command_server(qmgr, user, password) as server:
                return mqscaction.action(server, body)

        return JSONResponse(await _blocking(run))

    # ------------------------------------------------------------------ messaging
    async def message(self, request: Request) -> Response:
        who = await self.caller(request)
        user, password = who.identity(who.messaging_role())
        qmgr, queue = request.path_params["qmgr"], request.path_params["queue"]
        params = dict(request.query_params)
        if request.method == "POST":
            return await self._sent(request, (qmgr, user, password), messaging.put, queue)
        # HEAD is a GET without the body (HTTP): a browse, never a destructive get, which
        # it was, with no CSRF header needed and the message lost with the body not sent
        browse = request.method in ("GET", "HEAD")

        def get() -> messaging.Message | None:
            with self.pool.connection(qmgr, user, password) as qm:
                return messaging.get(qm, queue, params, browse=browse)

        waits = not browse and params.get("wait", "0") not in ("", "0")
        msg = await _blocking(get, limiter=self.waiting() if waits else None)
        if msg is None:
            return Response(status_code=204)
        return Response(msg.body, status_code=200, headers=msg.headers,
                        media_type=msg.content_type)

    async def publication(self, request: Request) -> Response:
        """POST .../topic/{topicString}/message: publish the body (MQWebUser, as the
        caller)."""
        who = await self.caller(request)
        user, password = who.identity(who.messaging_role())
        return await self._sent(request, (request.path_params["qmgr"], user, password),
                                messaging.publish, request.path_params["topic"])

    async def _sent(self, request: Request, as_who: tuple[str, str | None, str | None],
                    send: Callable, target: str) -> Response:
        """A put or publication of the request's body and headers to ``target``
        (``send(qm, target, body, headers)``, as (qmgr, user, password)): 201 with the
        message id."""
        body = await read_body(request, MAX_MESSAGE_BODY, self.cfg.read_timeout)
        headers = dict(request.headers)
        qmgr, user, password = as_who

        def run() -> str:
            with self.pool.connection(qmgr, user, password) as qm:
                return send(qm, target, body, headers)

        msgid = await _blocking(run)
        return Response(status_code=201, headers={"ibm-mq-md-messageId": msgid})

    async def json_body(self, request: Request) -> Any:
        """The JSON body of an authenticated caller's request (at most MAX_JSON_BODY)."""
        return _parsed(await read_body(request, MAX_JSON_BODY, self.cfg.read_timeout))

    def checking(self) -> anyio.CapacityLimiter:
        """The worker threads that check passwords (scrypt): a few of their own, so that
        callers with wrong passwords wait for each other and never take the threads of
        callers already known."""
        if self._checking is None:  # made in the event loop, at the first check
            self._checking = anyio.CapacityLimiter(PASSWORD_CHECKS)
        return self._checking

    def waiting(self) -> anyio.CapacityLimiter:
        if self._waiting is None:  # made in the event loop, at the first waiting get
            self._waiting = anyio.CapacityLimiter(WAITING_GETS)
        return self._waiting

    async def message_list(self, request: Request) -> Response:
        who = await self.caller(request)
        user, password = who.identity(who.messaging_role())
        qmgr, queue = request.path_params["qmgr"], request.path_params["queue"]
        params = dict(request.query_params)

        def listing() -> dict:
            with self.pool.connection(qmgr, user, password) as qm:
                return messaging.message_list(qm, queue, params)

        return JSONResponse(await _blocking(listing))

    # ------------------------------------------------------------------ metrics, console
    async def metrics(self, request: Request) -> Response:
        (await self.caller(request)).admin_role("GET")
        text = await _blocking(generate_latest, self.registry)
        return Response(text, media_type=CONTENT_TYPE_LATEST)

    async def queue_rates(self, request: Request) -> Response:
        """The console's put and get rates of every local queue of a queue manager."""
        (await self.caller(request)).admin_role("GET")
        qmgr = request.path_params["qmgr"]

        def rates() -> dict:
            with self.pool.command_server(qmgr) as server:
                names = console.local_queue_names(server)
            return console.queue_rates(self.monitors.queues(qmgr, names))

        return JSONResponse({"queues": await _blocking(rates)})

    async def errorlog(self, request: Request) -> Response:
        (await self.caller(request)).admin_role("GET")
        entries = await _blocking(console.error_log, self.cfg.data_path,
                                  request.path_params["qmgr"],
                                  request.query_params.get("severity", ""))
        return JSONResponse({"entries": entries})


async def read_body(request: Request, limit: int, timeout: float, *,
                    whole: bool = False) -> bytes:
    """The request's body, at most ``limit`` bytes (RestError 413 as soon as the
    Content-Length or the bytes received pass it, before any more is read), each read done
    within ``timeout`` seconds (Liberty's readTimeout; ``whole``: the whole body within it,
    for a caller not authenticated yet): RestError 408 otherwise."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise RestError(413, "MQWB2004E")
    chunks: list[bytes] = []
    size = 0
    stream = request.stream().__aiter__()
    with anyio.move_on_after(timeout if whole else math.inf) as whole_scope:
        while True:
            with anyio.move_on_after(timeout) as read_scope:
                try:
                    chunk = await stream.__anext__()
                except StopAsyncIteration:
                    break
            if read_scope.cancelled_caught:
                raise RestError(408, "MQWB2004E")
            size += len(chunk)
            if size > limit:
                raise RestError(413, "MQWB2004E")
            chunks.append(chunk)
    if whole_scope.cancelled_caught:
        raise RestError(408, "MQWB2004E")
    return b"".join(chunks)


def _parsed(raw: bytes) -> Any:
    """A JSON body (empty: ``{}``); RestError 400 when it is not JSON, or nests too deep to
    read."""
    try:
        return json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise RestError(400, "MQWB2004E") from None


async def _rest_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RestError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        err = RestError(405, "MQWB2005E", request.method, request.url.path)
        return JSONResponse(err.body(), status_code=405)
    return JSONResponse({"error": [{"type": "rest", "msgId": "MQWB0000E",
                                    "message": f"MQWB0000E: {exc.detail}"}]},
                        status_code=exc.status_code)


async def _unexpected(request: Request, exc: Exception) -> Response:
    err = RestError(500, "MQWB0000E", type(exc).__name__)
    return JSONResponse(err.body(), status_code=500)


#: the console may load scripts, styles, images and data from the server itself only
CONSOLE_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; "
                  "frame-ancestors 'none'; base-uri 'none'")


class SecurityHeaders:
    """ASGI middleware: REST and metrics answers are not cached and not sniffed; the
    console's answers carry its Content-Security-Policy."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        console = scope["path"].startswith("/ibmmq/console")

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"x-content-type-options", b"nosniff")]
                if console:
                    extra.append((b"content-security-policy", CONSOLE_POLICY.encode()))
                else:
                    extra.append((b"cache-control", b"no-store"))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


def build(cfg: WebConfig) -> Starlette:
    h = Handlers(cfg)
    q = f"{REST}/admin/qmgr/{{qmgr:mqname}}"
    m = f"{REST}/messaging/qmgr/{{qmgr:mqname}}/queue/{{queue:mqname}}"
    routes = [
        Route(f"{REST}/login", h.login, methods=["GET", "POST", "DELETE"]),
        Route(f"{REST}/admin/installation", h.installation),
        Route(f"{REST}/admin/qmgr", h.qmgr),
        Route(q, h.qmgr),
        Route(f"{q}/queue", h.queues, methods=["GET", "POST"]),
        Route(f"{q}/queue/{{queue:mqname}}", h.queue, methods=["GET", "PATCH", "DELETE"]),
        Route(f"{q}/channel", h.channels),
        Route(f"{q}/channel/{{channel:mqname}}", h.channels),
        *(Route(f"{v}/admin/qmgr/{{qmgr:mqname}}/subscription{tail}", h.subscriptions)
          for v in (REST, REST_V1) for tail in ("", "/{name:mqname}")),
        Route(f"{REST}/admin/action/qmgr/{{qmgr:mqname}}/mqsc", h.mqsc, methods=["POST"]),
        Route(f"{m}/message", h.message, methods=["GET", "POST", "DELETE"]),
        Route(f"{m}/messagelist", h.message_list),
        Route(f"{REST}/messaging/qmgr/{{qmgr:mqname}}/topic/{{topic:topicstring}}/message",
              h.publication, methods=["POST"]),
        Route("/metrics", h.metrics),
        Route("/ibmmq/console/api/qmgr/{qmgr:mqname}/errorlog", h.errorlog),
        Route("/ibmmq/console/api/qmgr/{qmgr:mqname}/queuerates", h.queue_rates),
        Route("/ibmmq/console", lambda r: RedirectResponse("/ibmmq/console/")),
        Route("/", lambda r: RedirectResponse("/ibmmq/console/")),
        Mount("/ibmmq/console/", StaticFiles(directory=STATIC, html=True)),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await _blocking(h.pool.close)  # the idle connections end with the server
        await _blocking(h.monitors.close)

    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(EncodedSegments), Middleware(SecurityHeaders)], exception_handlers={
                         RestError: _rest_error, HTTPException: _http_error,
                         Exception: _unexpected})
