"""START CHANNEL and STOP CHANNEL in the channel initiator: which instances a command names
(a receiver's, or a sender's or requester's, by QMNAME or CONNAME, a SVRCONN's by CONNAME),
the STOPPED state they leave,
and the transmission queue an error stop disabled and START CHANNEL enables again.

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

import trio

import mqpy
from mqpy.fap import channeldefs as D
from mqpy_chinit import svrconn
from mqpy_chinit.states import ACTIVE_STATES, ChannelEvent, ChannelState, ChannelStatus

#: a sending channel's states before its first batch: a quiesced stop has no batch to let
#: finish, and ends the start at once (it would otherwise wait out the negotiation)
_NEGOTIATING = frozenset({ChannelState.STARTING, ChannelState.BINDING})
#: a receiving instance's states in which MODE(QUIESCE) is a stop request its MCA obeys at
#: the end of the batch in progress, or at the next batch's end or heartbeat when idle
#: (``receiver_mca``); before it runs (negotiating) it is ended at once
_RECEIVING = frozenset({ChannelState.RUNNING, ChannelState.PAUSED})


def _no_conname(name: str) -> str:
    """START CHANNEL's answer for a channel with no CONNAME to call (a server only its
    requester starts): the configuration error PING CHANNEL reports for it too (AMQ9203E;
    AMQ9526E is IBM's message-sequence error, which an operator must not be shown here)."""
    return f"AMQ9203E: A configuration error for TCP/IP occurred: channel {name} has no " \
           f"CONNAME: it can only be started by its partner."


class ChannelControl:
    """START CHANNEL, STOP CHANNEL."""

    def start_channel(self, name: str, definition: dict[str, object] | None = None, *,
                      operator: bool = False, ignstate: bool = True) -> str | None:
        """START CHANNEL: None if started (or already running), else the error message.
        ``ignstate`` False (IBM's IGNSTATE(NO), the MQSC default): a channel already running
        (past RETRYING, and not being stopped) is refused with AMQ9514E.

        ``definition`` comes with the request when the caller has it (the command server
        does): asking the command server for it while it waits for us would deadlock.
        ``operator``: the operator's START CHANNEL, which makes a RETRYING channel's next
        attempt now; a trigger or the repository manager leaves it to its retry timer."""
        if definition is None:
            definition = self.admin.channel(name)
        if definition is None and self.cluster is not None:
            definition = self.cluster.definition(name)  # an auto-defined cluster sender
        if definition is None:
            return f"AMQ8147E: IBM MQ object {name} not found."
        chltype = D.str_attr(definition, "CHLTYPE")
        answers_only = chltype == "SVR" and not D.str_attr(definition, "CONNAME")
        if chltype in ("RCVR", "SVRCONN") or answers_only:
            # START CHANNEL on a receiver (a server-connection channel, a server only its
            # requester calls) makes a STOPPED one available to its partners again
            status = self.statuses.get(name)
            if status is not None and status.state is ChannelState.STOPPED:
                status.move(ChannelEvent.ENABLED)
                self._remember_soon(name, None)
            elif answers_only and status is not None and status.state in ACTIVE_STATES:
                # a server its requester is running: in use, as a running sender is
                return None if ignstate else f"AMQ9514E: Channel '{name}' is in use."
            elif answers_only:
                return _no_conname(name)
            return None
        if chltype not in D.SENDING_TYPES and chltype != "RQSTR":
            return f"AMQ9502E: Type of channel not suitable for action requested ({chltype})."
        if not D.str_attr(definition, "CONNAME"):
            return _no_conname(name)
        retry = self.retrying.get(name)
        if retry is not None and operator:  # RETRYING: the next attempt now, as defined now
            retry.start_now(definition)
            return None
        if name in self.running:
            status = self.statuses.get(name)
            if operator and status is not None and status.stop_requested:
                # a STOP CHANNEL is ending this instance: start again once it has ended
                self.start_after_stop[name] = definition
            elif not ignstate:
                return f"AMQ9514E: Channel '{name}' is in use."
            return None
        if self._instances() >= self.max_channels:
            return f"AMQ9513E: Maximum number of channels reached ({self.max_channels})."
        assert self.nursery is not None
        status = self.statuses.get(name)
        if status is not None and status.state is ChannelState.STOPPED:
            # START CHANNEL re-enables what an error stop disabled (seed 000 9.38)
            self._enable_xmitq(definition, True)
            self._disabled_by_channel.pop(name, None)
            self._remember_soon(name, None)
        if status is None or status.state in (ChannelState.INACTIVE, ChannelState.STOPPED):
            status = self.statuses[name] = ChannelStatus(name, chltype)
        scope = trio.CancelScope()
        self.running[name] = scope
        if chltype == "RQSTR":
            status.move(ChannelEvent.START)
            self.nursery.start_soon(self._run_requester, name, definition, status, scope)
        else:
            self.nursery.start_soon(self._run_sender, name, definition, status, scope)
        return None

    def stop_channel(self, name: str, mode: str = "QUIESCE", status: str = "STOPPED",
                     qmname: str = "", conname: str = "", chltype: str = "",
                     ignstate: bool = True) -> str | None:
        """STOP CHANNEL MODE(QUIESCE|FORCE|TERMINATE) STATUS(STOPPED|INACTIVE) [QMNAME()]
        [CONNAME()]: QMNAME and CONNAME pick instances of a receiver (seed 000 §2), or the
        instance a sender or requester runs, CONNAME those of a SVRCONN
        (``svrconn.stop_instances``; FASTPATH: the client host's too, :meth:`_command`).
        ``ignstate`` False (IBM's IGNSTATE(NO), the MQSC default): a message channel
        already STOPPED, or not running when STATUS(INACTIVE) is asked, is refused with
        AMQ9533E.

        MODE(QUIESCE) of a receiving instance (RCVR, CLUSRCVR, RQSTR) running is a stop
        request (STOPREQ(YES), STATUS still RUNNING), not a cancel: it ends at the end of
        the batch in progress, or, idle, at the next batch's end or next heartbeat (IBM:
        "If the channel is idle this command does not terminate a receiving channel").
        MODE(FORCE) or TERMINATE, or a later one of them, ends it at once."""
        if chltype == "SVRCONN":
            svrconn.stop_instances(self, name, mode, conname)
            if conname:
                return None
        instances = [(key, scope) for key, (scope, peer) in self.receivers.items()
                     if key[0] == name and qmname in ("", key[1])
                     and conname in ("", peer.rsplit(":", 1)[0])]
        picked = bool(qmname or conname)
        # the instance this queue manager started (a sender's, a requester's) is picked by
        # its partner and address too, as DISPLAY CHSTATUS shows them
        calling = picked and self._calling_instance_named(name, qmname, conname)
        if instances or picked:
            if not instances and not calling:
                return f"AMQ9533E: Channel '{name}' is not currently active."
            for key, scope in instances:
                st = self.statuses.get(key)
                if st is not None:
                    st.stop_requested = status
                if mode != "QUIESCE" or st is None or st.state not in _RECEIVING:
                    scope.cancel()
            if not calling and (picked or status != "STOPPED"):
                return None  # the instances end; the channel itself is not marked STOPPED
        st = self.statuses.get(name)
        if st is None or st.state in (ChannelState.INACTIVE, ChannelState.STOPPED) \
                and name not in self.running:  # (a start not yet under way is running)
            # (a SVRCONN's instances may be the client host's or a runmqlsr's, which this
            # status does not show: they answer for themselves)
            if not ignstate and chltype != "SVRCONN" and (
                    status != "STOPPED" or st is not None
                    and st.state is ChannelState.STOPPED):
                return f"AMQ9533E: Channel '{name}' is not currently active."
            if status == "STOPPED":
                st = self.statuses.setdefault(name, ChannelStatus(name, chltype or "SDR"))
                if st.state is not ChannelState.STOPPED:
                    st.move(ChannelEvent.STOP)
                    how = "its instances end" if instances else "it was not running"
                    self.log("AMQ9528I", f"User requested closure of channel '{name}': "
                             f"STOPPED ({how}).")
                self._remember_soon(name, "STOPPED")
            return None
        st.stop_requested = status
        self.start_after_stop.pop(name, None)  # the last command wins: a START before it
        sender = self.senders.get(name)
        retry = self.retrying.get(name)
        if mode == "QUIESCE" and retry is not None:  # RETRYING: stopped at once (IBM)
            retry.woken.set()
        elif mode == "QUIESCE" and sender is not None and st.state not in _NEGOTIATING:
            sender.stop_requested.set()
        elif mode == "QUIESCE" and st.chltype == "RQSTR" and st.state in _RECEIVING:
            pass  # a requester receiving: its MCA ends it between batches (stop_requested)
        else:
            scope = self.running.get(name)
            if scope is not None:
                scope.cancel()
        return None

    def _calling_instance_named(self, name: str, qmname: str, conname: str) -> bool:
        """Whether channel ``name`` runs an instance it started whose partner queue
        manager is ``qmname`` and whose address is ``conname`` (each blank: any)."""
        st = self.statuses.get(name)
        if name not in self.running or st is None \
                or st.state in (ChannelState.INACTIVE, ChannelState.STOPPED):
            return False
        address = st.conname.strip()
        return qmname in ("", st.rqmname.strip()) and \
            conname in ("", address, address.split("(", 1)[0])

    def _enable_xmitq(self, definition: dict[str, object], enable: bool) -> None:
        """An error stop sets the xmitq GET(DISABLED) and its triggering off; START CHANNEL
        puts both back (seed 000 §8)."""
        xmitq = D.str_attr(definition, "XMITQ")
        if not xmitq:
            return
        try:
            if enable:
                if xmitq in self._disabled:
                    self.admin.alter_queue(xmitq, {"GET": "ENABLED",
                                                   "TRIGGER": self._disabled.pop(xmitq)})
            else:
                trigger = self.admin.queue_attribute(xmitq, "TRIGGER")
                self._disabled.setdefault(xmitq, str(trigger or "NO"))
                self.admin.alter_queue(xmitq, {"GET": "DISABLED", "TRIGGER": "NO"})
        except mqpy.MQMIError as e:
            self.log("AMQ9999E", f"Cannot change transmission queue {xmitq}: reason {e.reason}.")
