"""The responding end of a message channel its partner started (IBM's responder MCA): CHLAUTH
admits it and names the user it runs as, CHAD defines an unknown receiver from
SYSTEM.AUTO.RECEIVER, ADOPTMCA ends a running instance a new start replaces, MaxActiveChannels
and a STOPPED channel refuse it; then a receiving MCA runs it to its end. A server (SVR) its
requester called sends on the same connection.

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

import time

import trio

from mqpy import amqmsgs
from mqpy.fap import channeldefs as D
from mqpy.fap.initialdata import InitialData
from mqpy.fap.statuscodes import StatusCode
from mqpy.printable import printable
from mqpy_chinit import tlsstream
from mqpy_chinit.conversation import ChannelEnded, Conversation
from mqpy_chinit.mca import peer_address
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.sender_mca import SenderMCA
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus


class Responder:
    """Inbound message channels: admitted, auto-defined, adopted, run."""

    async def _admitted(self, name: str, definition: dict[str, object], first: InitialData,
                        address: str, conv: Conversation) -> str | None:
        """CHLAUTH for a receiving message channel (RCVR, RQSTR, SVR, CLUSRCVR) once its
        INITIAL_DATA named it and its partner: the user it runs as (its puts' authority,
        PUTAUT), or None when refused: the partner gets STATUS SECURITY_FAILURE and the log
        AMQ9776E / AMQ9777E."""
        d = await self.access.decide({
            "channel": name, "address": address, "remote_qmgr": first.qmgr_name.strip(),
            "mcauser": D.str_attr(definition, "MCAUSER"), **tlsstream.tls_identity(conv.stream)})
        if d["allowed"]:
            if d.get("warning"):
                self.log(str(d["msgid"]), f"{d['text']} (WARN(YES): allowed)")
            return str(d.get("user") or "")
        self.log(str(d["msgid"]), str(d["text"]))
        with trio.CancelScope(shield=True):
            await conv.close(StatusCode.SECURITY_FAILURE)
        return None

    def _chad_enabled(self) -> bool:
        """QMGR CHAD(ENABLED), and an admin that can define channels: an unknown channel
        may be auto-defined (blocking: asks the queue manager)."""
        return hasattr(self.admin, "define_channel") and \
            str(self._qmgr_attr("CHAD")) == "ENABLED"

    def _autodefine(self, name: str, first: InitialData) -> dict[str, object] | None:
        """CHAD: a receiver for an unknown channel, from SYSTEM.AUTO.RECEIVER (seed 000 9.25)."""
        if not hasattr(self.admin, "define_channel"):
            return None
        if str(self.admin.qmgr_attribute("CHAD")) != "ENABLED":
            return None
        if not D.valid_channel_name(name):
            return None
        stamp = time.strftime("%Y-%m-%d %H.%M.%S")
        partner = printable(first.qmgr_name.strip())  # a partner's bytes, never a line break
        descr = f"Auto-defined by {partner}"[:44].ljust(44) + stamp.rjust(20)
        self.admin.define_channel(name, "SYSTEM.AUTO.RECEIVER",
                                  {"CHLTYPE": "RCVR", "DESCR": descr,
                                   "SEQWRAP": first.seq_wrap_value})
        return self.admin.channel(name)

    async def _adopt(self, key: tuple[str, str], peer: str) -> bool:
        """Adopt MCA (seed 003 §2.11): with ADOPTMCA(ALL), a new start of a receiving channel
        that is still running from the same partner ends the old instance, if the ADOPTCHK
        checks pass. An instance is known by channel and partner queue manager, so the QMNAME
        check always holds here; a start from another queue manager is an instance of its own
        (a generic receiver), never an adoption."""
        name = key[0]
        adoptmca = str(await trio.to_thread.run_sync(self._qmgr_attr, "ADOPTMCA") or "NO")
        if adoptmca.upper() not in ("ALL", "YES", "RCVR"):
            return False
        check = str(await trio.to_thread.run_sync(self._qmgr_attr, "ADOPTCHK") or "ALL").upper()
        running = self.receivers.get(key)
        if running is None:
            return True  # the old instance ended meanwhile: nothing is left to adopt
        scope, old_peer = running
        if check in ("NETADDR", "ALL") and old_peer.split(":")[0] != peer.split(":")[0]:
            return False
        self._adopted.add(scope)
        scope.cancel()
        self.log("AMQ9532I", f"Channel '{name}': the running instance was ended and replaced "
                 f"(adopted) by a new start from {peer}.")
        with trio.move_on_after(float(self._adopt_timeout)):
            while self.receivers.get(key, (None,))[0] is scope:
                await trio.sleep(0.01)
        return True

    async def _receive(self, stream: trio.abc.Stream, conv: Conversation,
                       first: InitialData, chltype: str, mca_user: str) -> None:
        """A receiving MCA for an admitted message channel, to its end."""
        name = first.channel_name.strip()
        partner = first.qmgr_name.strip()
        key = (name, partner)
        peer = peer_address(stream)
        stopped = self.statuses.get(name)
        if stopped is not None and stopped.state is ChannelState.STOPPED \
                and name not in self.running:
            await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            self.log("AMQ9534E", not_enabled(name, peer))
            return
        if key not in self.receivers and self._instances() >= self.max_active:
            await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            self.log("AMQ9513E", f"Channel '{name}' from {peer} refused: MaxActiveChannels "
                     f"({self.max_active}) reached.")
            return
        scope = trio.CancelScope()

        async def claim() -> None:
            """The partner's start is a channel start, not a PING CHANNEL: an instance still
            running from the same partner is adopted, or the start refused (in use)."""
            if key in self.receivers and not await self._adopt(key, peer):
                await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
                raise ChannelEnded("AMQ9514E", f"a second instance from {peer} was refused: "
                                   "the channel is in use (adopt MCA not enabled or its "
                                   "checks failed).", False)
            if name:
                self.receivers[key] = (scope, peer)

        mca = ReceiverMCA(stream, self.qmgr_name, self._receiver_connect(chltype),
                          self.admin.channel,
                          self._register, conversation=conv, first=first,
                          autodefine=self._autodefine, mca_user=mca_user, log=self.log,
                          claim=claim)
        try:
            with scope:
                await mca.run()
        except ChannelEnded as e:  # (a channel never known by name: the text says it)
            if e.msgid == amqmsgs.AMQ9209.msgid and mca.name:  # IBM's words
                host, _, port = peer.rpartition(":")
                self.log(e.msgid, f"Connection to host '{host}({port})' for channel "
                         f"'{mca.name}' closed.")
            else:
                self.log(e.msgid, f"Channel '{mca.name}': {e.text}" if mca.name else e.text)
        else:
            if mca.name and not scope.cancelled_caught and not mca.pinged:
                self.log("AMQ9001I", f"Channel '{mca.name}' ended normally.")
        finally:
            adopted = scope in self._adopted
            self._adopted.discard(scope)
            if scope.cancelled_caught and mca.status.state is not ChannelState.INACTIVE:
                # ended from this side: adopted by a new start (AMQ9532I), or stopped (STOP
                # CHANNEL, REFRESH SECURITY, a withdrawn cluster receiver)
                mca.status.move(ChannelEvent.ADOPTED if adopted
                                else ChannelEvent.STOPPED_INACTIVE)
                if not adopted:
                    self.log("AMQ9528I", f"User requested closure of channel '{name}' "
                             f"(the instance from {peer}).")
            if self.receivers.get(key, (None,))[0] is scope:
                del self.receivers[key]

    async def _serve_requester(self, name: str, definition: dict[str, object],
                               conv: Conversation, first: InitialData) -> None:
        """A server (SVR) started by its requester's call: it sends on the same connection;
        not while it is STOPPED (START CHANNEL enables it)."""
        stopped = self.statuses.get(name)
        if stopped is not None and stopped.state is ChannelState.STOPPED:
            with trio.CancelScope(shield=True):
                await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            self.log("AMQ9534E", not_enabled(name, peer_address(conv.stream)))
            return
        if name in self.running:
            await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            self.log("AMQ9514E", f"Channel '{name}' is in use: the requester's start fails.")
            return
        status = self.statuses[name] = ChannelStatus(name, "SVR")
        status.move(ChannelEvent.START)
        status.move(ChannelEvent.BIND)
        mca = SenderMCA(name, definition, self.qmgr_name, self.connect_qm, status,
                        conversation=conv, first=first, key_repository=self._key_repository,
                        pipeline=self.pipeline)
        self.senders[name] = mca
        scope = trio.CancelScope()
        self.running[name] = scope
        try:
            with scope:
                await self._supervised(name, mca)
                self.log("AMQ9001I", f"Channel '{name}' ended normally.")
                status.move(ChannelEvent.ENDED)
        except ChannelEnded as e:
            self.log(e.msgid, f"Channel '{name}': {e.text}")
            status.move(ChannelEvent.ENDED)  # a server its requester called does not retry
        finally:
            self.running.pop(name, None)
            self.senders.pop(name, None)
            if scope.cancelled_caught:
                self._forced_end(name, status)
            elif status.stop_requested == "STOPPED":  # quiesced: stopped once it has ended
                status.move(ChannelEvent.STOP)
                self.log("AMQ9528I", f"User requested closure of channel '{name}': STOPPED.")
            if status.state is ChannelState.STOPPED:
                self._remember_soon(name, "STOPPED")

    def _register(self, name: str, partner: str, status: ChannelStatus) -> None:
        """A receiving MCA's status: a RCVR or CLUSRCVR instance per partner, a RQSTR by its
        name."""
        self.statuses[(name, partner) if status.chltype in ("RCVR", "CLUSRCVR")
                      else name] = status
        self.log("AMQ9002I", f"Channel '{name}' is starting.")


def not_enabled(name: str, peer: str) -> str:
    """AMQ9534E's text: a start from ``peer`` of channel ``name``, which is STOPPED here."""
    return (f"Channel '{name}' is currently not enabled: the start from {peer} was refused. "
            f"The operator stopped it; START CHANNEL enables it.")
