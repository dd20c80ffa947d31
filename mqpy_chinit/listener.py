"""The channel initiator's TCP listeners (IBM's runmqlsr) and what they do with a connection
until its first flow has named a channel: the limits on partners not yet admitted
(MaxUnauthChannels, MaxUnauthChannelsPerAddress, UnauthTimeout, MaxUnauthBytes), BLOCKADDR,
TLS, the channel's definition and the TLS rules of its side; then a SVRCONN goes to the SVRCONN
handler (or, with FASTPATH, to the queue manager's client host) and a message channel to the
responder (``responder.py``).

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

import mqpy
from mqpy.fap import channeldefs as D
from mqpy.fap import tls
from mqpy.fap.initialdata import CapFlags1, InitialData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import Event, SegmentType
from mqpy_chinit import handoff, lsrcontrol, svrconn, tlsstream
from mqpy_chinit.conversation import ChannelEnded, Conversation
from mqpy_chinit.mca import CONFIRM_TIMEOUT, peer_address
from mqpy_chinit.responder import not_enabled
from mqpy_chinit.states import ChannelState, ChannelStatus


class Listener:
    """START LISTENER, STOP LISTENER, and every inbound connection up to its channel."""

    async def start_listener(self, name: str, definition: dict[str, object] | None = None
                             ) -> str | None:
        """START LISTENER: a TCP listener from a LISTENER object (PORT, IPADDR)."""
        if name in self.listener_scopes:
            return None
        if definition is None and hasattr(self.admin, "listeners"):
            found = [d for d in await trio.to_thread.run_sync(self.admin.listeners)
                     if d.get("LISTENER") == name]
            definition = found[0] if found else None
        if definition is None:
            return f"AMQ8147E: IBM MQ object {name} not found."
        assert self.nursery is not None
        scope = trio.CancelScope()
        self.listener_scopes[name] = scope

        async def run_listener(task_status=trio.TASK_STATUS_IGNORED):
            with scope:
                await self.listener(str(definition.get("IPADDR") or ""),
                                    int(definition.get("PORT") or D.DEFAULT_PORT),
                                    task_status=task_status)
        try:
            port = await self.nursery.start(run_listener)
        except OSError as exc:  # IBM's message for a listener that cannot bind, and why
            self.listener_scopes.pop(name, None)
            return (f"AMQ9218E: The TCP/IP listener program could not bind to port number "
                    f"{int(definition.get('PORT') or D.DEFAULT_PORT)}. "
                    f"({exc.strerror or exc}, listener {name})")
        self.listener_ports[name] = port
        return None

    def stop_listener(self, name: str) -> str | None:
        """STOP LISTENER: None once stopped, else the error message."""
        scope = self.listener_scopes.pop(name, None)
        if scope is None:
            return f"AMQ8730E: Listener {name} not active."
        scope.cancel()
        self.listener_ports.pop(name, None)
        self.log("AMQ9545I", f"Listener {name} stopped.")
        return None

    async def listener(self, host: str, port: int, *,
                       task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """A TCP listener (runmqlsr): every connection is a receiving MCA."""
        listeners = await trio.open_tcp_listeners(port, host=host or None)
        actual = listeners[0].socket.getsockname()[1]
        self.log("AMQ8021I", f"Request to start IBM MQ listener accepted: port {actual}.")
        task_status.started(actual)
        await trio.serve_listeners(self._inbound, listeners)

    async def _inbound(self, stream: trio.SocketStream) -> None:
        """An inbound connection: its first flow names the channel; a server-connection
        channel is served by the SVRCONN handler, a message channel by a receiving MCA.

        Until the channel is admitted (a message channel once CHLAUTH accepted it, a
        SVRCONN once its first MQCONN succeeded) the connection holds a place among the
        unauthenticated ones (``unauthenticated``: MaxUnauthChannels in all,
        MaxUnauthChannelsPerAddress from one address; over either it is closed unread,
        AMQ9513E), has UnauthTimeout seconds to get there (AMQ9259E) and MaxUnauthBytes of
        unfinished flows (``Conversation.inbound``).

        Whatever goes wrong with one connection is logged and closes that connection: it
        never reaches the listener, which goes on serving everyone else."""
        peer_host = "an unknown address"
        try:
            peer_host = peer_address(stream).rsplit(":", 1)[0]
            admission = self.unauthenticated.admit(peer_host)
            if isinstance(admission, str):
                self._log_refused("AMQ9513E", f"Maximum number of channels reached: the "
                                  f"connection from {peer_host} was refused ({admission}: "
                                  f"MaxUnauthChannels {self.peer_limits.max_unauth_channels}, "
                                  f"MaxUnauthChannelsPerAddress "
                                  f"{self.peer_limits.max_unauth_channels_per_address}).")
                with trio.CancelScope(shield=True):
                    await stream.aclose()  # not a byte read, not a byte answered
                return
            deadline = trio.CancelScope(
                deadline=trio.current_time() + self.peer_limits.unauth_timeout)

            def admitted() -> None:
                admission.release()
                deadline.deadline = float("inf")

            try:
                with deadline:
                    await self._unauthenticated(stream, peer_host, admitted)
            finally:
                admission.release()
            if deadline.cancelled_caught:
                self.log("AMQ9259E", f"Connection timed out from host {peer_host}: its "
                         f"channel was not started within {self.peer_limits.unauth_timeout} "
                         f"seconds (UnauthTimeout).")
                with trio.CancelScope(shield=True):
                    await stream.aclose()
        except Exception as exc:  # noqa: BLE001 - one connection's fault, not the listener's
            if isinstance(exc, mqpy.MQMIError):  # its queue manager could not be asked
                why = f"the queue manager answered reason {exc.reason}"
            else:
                why = f"an unexpected error: {exc!r}"
            self.log("AMQ9999E", f"Inbound connection from {peer_host} ended by {why}.")
            with trio.CancelScope(shield=True):
                try:
                    await stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

    def _log_refused(self, msgid: str, text: str) -> None:
        """A connection refused for a limit: logged, a few lines a minute at most."""
        more = self._refusals[msgid].allow()
        if more is not None:
            self.log(msgid, text + more)

    async def _unauthenticated(self, stream: trio.SocketStream, peer_host: str,
                               admitted: Callable[[], None]) -> None:
        """:meth:`_inbound` from the connection's admission to the listener's count on:
        ``admitted()`` once the channel is admitted."""
        # (while the queue manager quiesces BLOCKADDR cannot be asked: a connection is then
        # refused whatever its address, a client's at its MQCONN, a channel's at once)
        if not svrconn.quiescing(self) and not await self.access.address_allowed(peer_host):
            with trio.CancelScope(shield=True):
                await stream.aclose()  # BLOCKADDR: not a byte read, not a byte answered
            return
        channel_stream = await tlsstream.accept(stream, self._key_repository, self.log,
                                                peer_host)
        if channel_stream is None:
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return
        stream = channel_stream
        # FASTPATH: what is read from a plain connection is kept, for a hand-off
        recording = _Recording(stream) if self.fastpath is not None and \
            type(stream) is tlsstream.Prefixed else None
        conv = self.inbound_conversation(recording or stream, admitted)
        first = await self._first_flow(conv, stream, peer_host)
        if first is None:
            return
        if not isinstance(first, InitialData):
            # a channel starts with INITIAL_DATA and nothing else (seed 000): a partner that
            # sends anything first has broken the protocol before naming a channel
            self.log("AMQ9504E", f"A protocol error was detected for channel '????' from "
                     f"{peer_host}: its first flow was {SegmentType(first.segment_type).name}"
                     f", not INITIAL_DATA.")
            with trio.CancelScope(shield=True):
                await conv.close(StatusCode.PROTOCOL_SEGMENT_TYPE)
            return
        name = first.channel_name.strip()
        if svrconn.quiescing(self):
            # a controlled end: no new message channel (a sender logs AMQ9228E); a client
            # channel is served as far as its MQCONN, which fails as the queue manager's
            # does, MQRC_Q_MGR_QUIESCING (``svrconn``; FASTPATH: the client host's)
            definition = await self._definition_quiescing(name, first)
            if definition is None or self.svrconn_handler is None \
                    or D.str_attr(definition, "CHLTYPE") != "SVRCONN":
                self.log("AMQ9999W", f"Channel '{name}' from {peer_host} was refused: "
                         f"queue manager {self.qmgr_name} is quiescing.")
                with trio.CancelScope(shield=True):
                    await conv.close(StatusCode.QM_TERMINATING)
                return
        else:
            definition = await trio.to_thread.run_sync(self.admin.channel, name)
            if definition is not None:
                self.definitions_seen[name] = definition
        if definition is None and not await trio.to_thread.run_sync(self._chad_enabled):
            # before CHLAUTH, which has no channel to judge: the partner learns it
            # (STATUS NO_CHANNEL: a client's MQCONN fails MQRC_UNKNOWN_CHANNEL_NAME, 2540;
            # a sender logs AMQ9520E). With CHAD the receiving MCA defines it once CHLAUTH
            # has let the partner in (``_autodefine``).
            self.log("AMQ9519E", f"Channel '{name}' not found. (The start came from "
                     f"{peer_host}.)")
            with trio.CancelScope(shield=True):
                await conv.close(StatusCode.NO_CHANNEL)
            return
        chltype = D.str_attr(definition, "CHLTYPE") if definition else ""
        definition = definition or {}
        refusal = tls.check_inbound(definition, name, peer_host,
                                    *tlsstream.tls_session(stream))
        if refusal is not None:
            self.log(refusal.msgid, refusal.text)
            with trio.CancelScope(shield=True):
                await conv.close(refusal.status)
            return
        # a runmqlsr's STOPPED mark confirmed (a START it missed enables it:
        # ``lsrcontrol.confirm_stopped``) before it refuses a partner for it
        await lsrcontrol.confirm_stopped(self, name)
        if chltype == "SVRCONN" and self.svrconn_handler is not None:
            stopped = self.statuses.get(name)
            if stopped is not None and stopped.state is ChannelState.STOPPED:
                self.log("AMQ9558E", f"Channel '{name}' is STOPPED here: the client "
                         f"from {peer_host} was refused; use START CHANNEL.")
                with trio.CancelScope(shield=True):
                    await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
                return
            if recording is not None and await self._handed_off(recording, peer_host):
                admitted()  # the queue manager's client host serves it now
                return
        if recording is not None:
            # kept here: read again from what was read, on the plain socket's path
            conv = self.inbound_conversation(tlsstream.Prefixed(stream.stream, recording.read),
                                      admitted)
            first = await self._first_flow(conv, stream, peer_host)
            if first is None:
                return
        if chltype == "SVRCONN" and self.svrconn_handler is not None:
            self.clients_served += 1  # (a controlled end waits for them: ``chinit``)
            try:
                await self.svrconn_handler(self, conv, first, definition)  # admitted at MQCONN
            finally:
                self.client_ended()
            return
        mca_user = await self._admitted(name, definition, first, peer_host, conv)
        if mca_user is None:
            return
        conv.authenticated()
        scope = trio.CancelScope()  # (a controlled end ends it: ``chinit.qmgr_quiescing``)
        if not (chltype == "SVR" and _from_requester(first)):
            # (a server sending for its requester ends as the senders do, at the end of its
            # batch: ``chinit._stop_started_channels``)
            self._inbound_channels.add(scope)
        try:
            with scope:
                await self._message_channel(name, definition, conv, first, stream, chltype,
                                            mca_user, peer_host)
        finally:
            self._inbound_channels.discard(scope)

    async def _message_channel(self, name: str, definition: dict[str, object],
                               conv: Conversation, first: InitialData,
                               stream: trio.abc.Stream, chltype: str, mca_user: str,
                               peer_host: str) -> None:
        """An admitted message channel its partner started, served to its end."""
        from_requester = _from_requester(first)
        if chltype == "SVR" and from_requester:
            await self._serve_requester(name, definition, conv, first)
            return
        if chltype == "SDR" and from_requester:
            # a requester calling a sender: the sender ends the call and calls back
            # on its own CONNAME (seed 000 9.26)
            with trio.CancelScope(shield=True):
                await stream.aclose()
            stopped = self.statuses.get(name)
            if stopped is not None and stopped.state is ChannelState.STOPPED:
                self.log("AMQ9534E", not_enabled(name, peer_host))  # START CHANNEL only
                return
            err = self.start_channel(name, definition)
            self.log("AMQ9002I" if err is None else "AMQ9999E",
                     err or f"Channel '{name}' is starting.")
            return
        await self._receive(stream, conv, first, chltype, mca_user)

    async def _definition_quiescing(self, name: str, first: InitialData
                                    ) -> dict[str, object] | None:
        """Channel ``name``'s definition while the queue manager quiesces, when it cannot be
        asked (the command server ends, the channel initiator lets go of its connection):
        as the listener last read it, else, for a client (its INITIAL_DATA says MQREQUEST),
        a SVRCONN's defaults, whose MQCONN is refused; None when not known."""
        seen = self.definitions_seen.get(name)
        if seen is not None:
            return seen
        if first.cap_flags1 & CapFlags1.MQREQUEST:
            return {"CHANNEL": name, "CHLTYPE": "SVRCONN"}
        return None

    async def _first_flow(self, conv: Conversation, stream: trio.abc.Stream,
                          peer_host: str) -> Event | None:
        """The connection's first flow; None when none came (logged, closed)."""
        try:
            return await conv.recv(CONFIRM_TIMEOUT)
        except ChannelEnded as e:
            self.log(e.msgid, f"Inbound connection from {peer_host}: {e.text}")
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return None

    def inbound_conversation(self, stream: trio.abc.Stream,
                             admitted: Callable[[], None] | None = None) -> Conversation:
        """An inbound connection's conversation, with the limits of a partner not yet
        admitted (MaxUnauthBytes); ``admitted()`` once it is (``Conversation.authenticated``).
        The queue manager's client host (FASTPATH) reads a handed-off socket with one."""
        conv = Conversation.inbound(stream, ChannelStatus("", ""),
                                    self.peer_limits.max_unauth_bytes)
        conv.on_authenticated = admitted
        return conv

    async def _handed_off(self, recording: _Recording, peer_host: str) -> bool:
        """FASTPATH: give a plain SVRCONN's socket, with what was read from it, to the queue
        manager's client host and close ours; False (logged) if it did not take it: the
        connection is then served here, as with STANDARD."""
        prefixed = recording.stream
        assert self.fastpath is not None
        try:
            await handoff.hand_off(self.fastpath, prefixed.stream.socket, recording.read,
                                   peer_host)
        except handoff.HandOffFailed as exc:
            self.log("AMQ9999E", f"A client connection from {peer_host} is served by the "
                     f"channel initiator: the queue manager did not take it ({exc}).")
            return False
        with trio.CancelScope(shield=True):
            await prefixed.stream.aclose()
        return True


def _from_requester(first: InitialData) -> bool:
    """Whether the channel start ``first`` is a requester's call (seed 000 9.26)."""
    return bool(first.cap_flags1 & CapFlags1.REQUEST_INITIATION) and \
        not first.cap_flags1 & CapFlags1.MQREQUEST


class _Recording(tlsstream.Forwarding):
    """A plain stream whose bytes received are kept (``read``): under a listener's first
    read of a connection that may be handed to the client host (FASTPATH)."""

    stream: tlsstream.Prefixed

    def __init__(self, stream: tlsstream.Prefixed) -> None:
        super().__init__(stream)
        self.read = b""

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = await self.stream.receive_some(max_bytes)
        self.read += data
        return data
