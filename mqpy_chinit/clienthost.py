"""The queue manager's client host: SVRCONN instances served in the queue-manager process.

qm.ini ``Channels: MQIBindType=FASTPATH`` is IBM's knob for "channels connect using MQCONNX
FASTPATH; there is no agent process". mqpy's analogue: the channel initiator's listener still
accepts a client, checks BLOCKADDR, tells TLS from plain and reads the INITIAL_DATA naming a
SVRCONN; then, for a plain (non-TLS) SVRCONN, it hands the connected socket to this process
over ``qm.fastpath.sock`` (``socket.send_fds``, SCM_RIGHTS) with the bytes it has read from
it, and closes its own copy. Here the socket is read again from those bytes and served by
``svrconn.serve_client`` against the engine of this process: a client's MQPUT and MQGET are
memory work in this event loop, with no relay through the bindings socket. An instance's
receiver waits for its plain socket in the host's poller (``clientpoll``), which serves
the MQPUTs and MQGETs without wait of idle clients from one epoll, without a task switch
per call.

Everything else about the channel is as for a STANDARD one: MAXINST and MAXINSTC (the
instances of a plain channel all live here, so this registry counts them), CHLAUTH at MQCONN,
CONNAUTH and object authority in the engine. The channel initiator answers DISPLAY CHSTATUS
and STOP CHANNEL for the operator; it asks this host over the same socket (a *command*) and
merges the answer with its own.

The hand-off itself (the socket, its frames and who may use it) is ``handoff.py``'s. The
queue manager finds this module through its extension point (``mqpy.extensions``,
CLIENT_HOST): it does not import the channel initiator.
"""

from __future__ import annotations

import functools
import math
import os
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import trio

from mqpy import config
from mqpy.bindings import bind_address
from mqpy.fap import channeldefs as D
from mqpy.fap import tls
from mqpy.fap.initialdata import InitialData
from mqpy.fap.statuscodes import StatusCode
from mqpy.mqi import attach
from mqpy_chinit import svrconn
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.clientpoll import ClientPoller
from mqpy_chinit.conversation import ChannelEnded
from mqpy_chinit.engineadmin import EngineAdmin
from mqpy_chinit.handoff import (
    SOCKET_NAME,
    TIMEOUT,
    answer,
    peer_allowed,
    peer_uid_of,
    read_request,
)
from mqpy_chinit.mca import CONFIRM_TIMEOUT
from mqpy_chinit.tlsstream import Prefixed

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine

__all__ = ["SOCKET_NAME", "ClientHost"]

LogFn = Callable[[str, str], None]

class ClientHost:
    """The daemon's SVRCONN instances: a channel initiator over the engine of this process
    with no listener, no message channels and no SYSTEM.CHANNEL.INITQ, which serves the
    sockets its channel initiator hands over."""

    def __init__(self, engine: QueueManagerEngine, path: str, log: LogFn,
                 peer_limits: config.PeerLimits | None = None) -> None:
        self.engine = engine
        self.path = path
        self.log = log
        channels = config.ChannelsConfig(peer=peer_limits) if peer_limits else None
        self.chinit = ChannelInitiator(engine.name, lambda: attach(engine),
                                       EngineAdmin(engine), log=log, channels=channels)
        #: serves the idle plain clients' common calls
        self.poller = ClientPoller()
        self.chinit.svrconn_handler = self.poller.svrconn_handler()
        self.serving = 0  # handed-over sockets being served
        self._changed = trio.Event()
        #: the channel events' task, ended as the queue manager quiesces (its MQI
        #: connection must not hold a controlled end)
        self._events_scope = trio.CancelScope()

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with bind_address(self.path) as address:
            if os.path.lexists(self.path):  # left by a killed daemon: we hold qm.lock
                os.unlink(self.path)
            await listener.bind(address)
            os.chmod(self.path, 0o600)
            listener.listen(128)
        try:
            async with trio.open_nursery() as nursery:
                self.chinit.nursery = nursery
                nursery.start_soon(self.poller.run)
                nursery.start_soon(self._channel_events)
                task_status.started()
                while True:
                    try:
                        conn, _ = await listener.accept()
                    except OSError as exc:  # out of descriptors, say: the daemon goes on
                        self.log("AMQ9999E", f"{SOCKET_NAME} could not accept a hand-off: "
                                 f"{exc.strerror or exc}.")
                        await trio.sleep(0.1)
                        continue
                    nursery.start_soon(self._serve_request, conn)
        finally:
            listener.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass

    async def _channel_events(self) -> None:
        """Channel Blocked for the clients CHLAUTH refuses here (no other channel of this
        channel initiator's has a state to tell), until the queue manager quiesces."""
        with self._events_scope:
            await self.chinit.channel_events()

    async def wait_idle(self) -> None:
        """Return once no handed-over client is connected (a controlled end waits)."""
        while self.serving:
            await self._changed.wait()

    def qmgr_quiescing(self, reconnect: bool) -> None:
        """A controlled endmqm begins (``reconnect``: with -r): every handed-over client's
        instance tells its client and goes on (``svrconn.qmgr_quiescing``)."""
        self._events_scope.cancel()
        svrconn.qmgr_quiescing(self.chinit, reconnect)

    def qmgr_ending(self, reconnect: bool) -> None:
        """endmqm (``reconnect``: with -r): every handed-over client's instance ends, its
        client told whether to reconnect (``svrconn.qmgr_ending``)."""
        self._events_scope.cancel()
        svrconn.qmgr_ending(self.chinit, reconnect)

    def _served(self, delta: int) -> None:
        self.serving += delta
        self._changed.set()
        self._changed = trio.Event()

    async def _serve_request(self, conn: Any) -> None:
        try:
            await self._serve_request_on(conn)
        finally:
            conn.close()

    async def _serve_request_on(self, conn: Any) -> None:
        fds: list[int] = []
        try:
            uid = peer_uid_of(conn)
            if not peer_allowed(uid):
                self.log("AMQ9999E", f"A connection to {SOCKET_NAME} from user id {uid} was "
                         f"refused: only the queue manager's user may hand channels over.")
                return
            with trio.fail_after(TIMEOUT):
                kind, header, body = await read_request(conn, fds)
            if kind == b"C":
                try:
                    reply = await self.command(header)
                except Exception as exc:  # noqa: BLE001 - a command's fault, not the host's
                    reply = {"ok": False, "message": f"AMQ9999E: {exc!r}"}
                await answer(conn, reply)
                return
            if kind != b"S" or len(fds) != 1:
                await answer(conn, {"ok": False, "message": "a bad hand-off request"})
                return
            client = socket.socket(fileno=fds.pop())
        except (OSError, ValueError, trio.TooSlowError) as exc:
            self.log("AMQ9999E", f"A hand-off over {SOCKET_NAME} failed: {exc!r}.")
            return
        finally:
            for fd in fds:
                os.close(fd)
        try:
            await answer(conn, {"ok": True})
        except OSError:
            client.close()  # the channel initiator serves it itself, having had no answer
            return
        conn.close()
        self._served(+1)
        try:
            await self._serve_client(client, body, str(header.get("peer", "")))
        finally:
            self._served(-1)

    async def _serve_client(self, client: socket.socket, read: bytes, peer: str) -> None:
        """Read the client's INITIAL_DATA again from the bytes the listener read and serve
        the SVRCONN it names, as the listener would have."""
        stream = Prefixed(trio.SocketStream(trio.socket.from_stdlib_socket(client)), read)
        conv = self.chinit.inbound_conversation(stream)  # MaxUnauthBytes until its MQCONN
        try:
            first = await conv.recv(CONFIRM_TIMEOUT)
            name = first.channel_name.strip() if isinstance(first, InitialData) else ""
            definition = await trio.to_thread.run_sync(self.chinit.admin.channel, name) \
                if name else None
            if definition is None or D.str_attr(definition, "CHLTYPE") != "SVRCONN":
                # altered or deleted since the listener looked: as the listener would say
                with trio.CancelScope(shield=True):
                    await conv.close(StatusCode.NO_CHANNEL
                                     if definition is None else StatusCode.CHANNEL_WRONG_TYPE)
                return
            refusal = tls.check_inbound(definition, name, peer, None, None)
            if refusal is not None:
                self.log(refusal.msgid, refusal.text)
                with trio.CancelScope(shield=True):
                    await conv.close(refusal.status)
                return
            # UnauthTimeout from the hand-off to its first MQCONN, as at the listener
            with trio.move_on_after(self.chinit.peer_limits.unauth_timeout) as deadline:
                conv.on_authenticated = functools.partial(setattr, deadline, "deadline",
                                                          math.inf)
                await self.chinit.svrconn_handler(self.chinit, conv, first, definition)
            if deadline.cancelled_caught:
                self.log("AMQ9259E", f"Connection timed out from host {peer}: its channel "
                         f"was not started within {self.chinit.peer_limits.unauth_timeout} "
                         f"seconds (UnauthTimeout).")
        except ChannelEnded as e:
            self.log(e.msgid, f"Inbound connection from {peer}: {e.text}")
        except Exception as exc:  # noqa: BLE001 - one connection's fault, not the host's
            self.log("AMQ9999E", f"Inbound connection from {peer} ended by an unexpected "
                     f"error: {exc!r}.")
        finally:
            with trio.CancelScope(shield=True):
                try:
                    await stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

    async def command(self, request: dict[str, Any]) -> dict[str, Any]:
        """STATUS and STOP of this host's SVRCONN instances (``initq.InitiationQueue._command``'s verbs)."""
        verb = request.get("command")
        if verb == "STATUS":
            return {"ok": True,
                    "status": self.chinit.status_list(str(request.get("channel", "*")))}
        if verb == "STOP":
            stopped = svrconn.stop_instances(
                self.chinit, str(request.get("channel", "")), str(request.get("mode", "")),
                str(request.get("conname", "")))
            return {"ok": True, "stopped": stopped}
        return {"ok": False, "message": f"AMQ8405E: unknown client host command {verb}"}
