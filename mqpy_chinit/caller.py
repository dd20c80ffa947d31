"""The channels a channel initiator calls out on itself (IBM's caller MCAs): a sending
channel (SDR, SVR, CLUSSDR) run through its states with IBM's retry rules, and a requester
(RQSTR).

- a sending channel that fails goes to RETRYING and tries again SHORTRTY times every SHORTTMR
  seconds, then LONGRTY times every LONGTMR seconds, then goes to STOPPED, where its
  transmission queue is GET(DISABLED) and its triggering off until START CHANNEL; while it
  waits, STOP CHANNEL stops it at once and the operator's START CHANNEL makes the next
  attempt now, with the channel's current definition (:class:`RetryWait`);
- an error that retrying cannot cure (sequence numbers, wrong channel type, in doubt with
  another queue manager) stops the channel at once;
- a channel that ends normally (disconnect interval, STOP CHANNEL STATUS(INACTIVE)) is
  INACTIVE and a trigger message starts it again;
- a channel program that fails unexpectedly ends its own channel only (AMQ9999E, an FDC).

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

import attrs
import trio

from mqpy.fap import channeldefs as D
from mqpy_chinit.conversation import ChannelEnded
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.sender_mca import SenderMCA
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus
from mqpy_chinit.supervision import first_leaf, record_failure


@attrs.define
class RetryWait:
    """A sending channel waiting in RETRYING for its next attempt. STOP CHANNEL wakes it to
    stop; START CHANNEL wakes it to try now with ``definition``, the channel's current one."""

    woken: trio.Event = attrs.Factory(trio.Event)
    definition: dict[str, object] | None = None

    def start_now(self, definition: dict[str, object]) -> None:
        self.definition = definition
        self.woken.set()


class CallingChannels:
    """Sending channels and requesters this channel initiator starts."""

    async def _run_sender(self, name: str, definition: dict[str, object],
                          status: ChannelStatus, scope: trio.CancelScope) -> None:
        """A sending channel (SDR, SVR, CLUSSDR), from STARTING to its end: retried as the
        module docstring says, until it ends normally, is stopped or its retries are spent."""
        short_left = D.int_attr(definition, "SHORTRTY")
        long_left = D.int_attr(definition, "LONGRTY")
        status.short_retries_left, status.long_retries_left = short_left, long_left
        try:
            with scope:
                if status.state is not ChannelState.STARTING:
                    status.move(ChannelEvent.START)
                if self._active() > self.max_active:
                    # MaxActiveChannels: wait in STARTING for a free slot (seed 000 9.41)
                    self.log("AMQ9514W", f"Channel '{name}' waits for an active-channel slot "
                             f"(MaxActiveChannels={self.max_active}).")
                    status.waits_for_slot()  # Channel Not Activated
                    while self._active() > self.max_active:
                        await trio.sleep(0.1)
                    status.got_slot()  # Channel Activated
                    self.log("AMQ9515I", f"Channel '{name}' got an active-channel slot.")
                while True:
                    status.move(ChannelEvent.BIND)
                    mca = SenderMCA(name, definition, self.qmgr_name, self.connect_qm, status,
                                    key_repository=self._key_repository,
                                    pipeline=self.pipeline)
                    self.senders[name] = mca
                    try:
                        self.log("AMQ9002I", f"Channel '{name}' is starting.")
                        await self._supervised(name, mca)
                    except ChannelEnded as e:
                        self.log(e.msgid, f"Channel '{name}': {e.text}")
                        if status.stop_requested and e.retry is not False:
                            self._stopped_by_operator(name, status)  # stopped while binding
                            return
                        if not e.retry:
                            self._stopped(name, definition, status, error=e.retry is False)
                            return
                        if short_left > 0:
                            short_left -= 1
                            wait = D.int_attr(definition, "SHORTTMR")
                        elif long_left > 0:
                            long_left -= 1
                            wait = D.int_attr(definition, "LONGTMR")
                        else:
                            self.log("AMQ9553E", f"Channel '{name}' retries exhausted.")
                            self._stopped(name, definition, status, error=True)
                            return
                        status.short_retries_left, status.long_retries_left = (short_left,
                                                                               long_left)
                        retry = self.retrying[name] = RetryWait()  # (before any await)
                        status.move(ChannelEvent.RETRY)
                        if status.history.count(ChannelState.RETRYING) == 1:
                            await self._remember(name, "RETRYING")
                        # IBM logs a channel that ends in error and enters retry as an
                        # abnormal end (AMQ9999E); the retry wait is mqpy's addition
                        self.log("AMQ9999E", f"Channel '{name}' to host "
                                 f"'{status.conname or D.str_attr(definition, 'CONNAME')}' "
                                 f"ended abnormally. It retries in {wait} s.")
                        started = await self._retry_wait(name, retry, wait)
                        if status.stop_requested:
                            # STOP CHANNEL while retrying: no further attempt (IBM)
                            self._stopped_by_operator(name, status)
                            return
                        if started is not None:
                            # START CHANNEL while retrying: now, as defined now, the retry
                            # counts reset
                            definition = started
                            short_left = D.int_attr(definition, "SHORTRTY")
                            long_left = D.int_attr(definition, "LONGRTY")
                            status.short_retries_left = short_left
                            status.long_retries_left = long_left
                        continue
                    # a normal end: disconnect interval or STOP CHANNEL MODE(QUIESCE). The
                    # state is remembered first and shown last: from the moment the status
                    # says STOPPED or INACTIVE, this instance is gone (no await before the
                    # finally), so a START CHANNEL or trigger that follows is never ignored
                    # as "already running"
                    if status.stop_requested == "STOPPED":
                        status.move(ChannelEvent.STOP_REQUESTED)
                        await self._remember(name, "STOPPED")
                        self.log("AMQ9528I", f"User requested closure of channel '{name}': "
                                 f"STOPPED.")
                        status.move(ChannelEvent.STOP)
                    else:
                        if ChannelState.RETRYING in status.history:
                            await self._remember(name, None)
                        self.log("AMQ9001I", f"Channel '{name}' ended normally.")
                        status.move(ChannelEvent.ENDED)
                    return
        finally:
            self.running.pop(name, None)
            self.senders.pop(name, None)
            if scope.cancelled_caught:
                self._forced_end(name, status)
            self._start_if_asked(name)

    async def _run_requester(self, name: str, definition: dict[str, object],
                             status: ChannelStatus, scope: trio.CancelScope) -> None:
        """A requester (RQSTR): calls its server, then receives what it sends."""
        mca = ReceiverMCA(None, self.qmgr_name, self.connect_qm, self.admin.channel,
                          call_out=(name, definition), log=self.log,
                          key_repository=self._key_repository)
        mca.status = status
        try:
            with scope:
                status.move(ChannelEvent.BIND)
                await self._supervised(name, mca)
        except ChannelEnded as e:
            self.log(e.msgid, f"Channel '{name}': {e.text}")
            if not e.retry:  # (a quiesced STOP CHANNEL STATUS(STOPPED) too)
                status.move(ChannelEvent.STOP)
                self._remember_soon(name, "STOPPED")  # as a sender's STOPPED is remembered
            elif status.state is not ChannelState.INACTIVE:  # (the MCA ended it already)
                status.move(ChannelEvent.ENDED)
        else:
            if not scope.cancelled_caught:
                self.log("AMQ9001I", f"Channel '{name}' ended normally.")
        finally:
            self.running.pop(name, None)
            if scope.cancelled_caught:  # STOP CHANNEL MODE(FORCE|TERMINATE), as a sender's
                self._forced_end(name, status)
            self._start_if_asked(name)

    def _start_if_asked(self, name: str) -> None:
        """The START CHANNEL an operator issued while a STOP CHANNEL was ending this
        instance (accepted, AMQ8018I): obeyed now that it has ended."""
        definition = self.start_after_stop.pop(name, None)
        if definition is not None:
            answer = self.start_channel(name, definition, operator=True)
            if answer is not None:
                self.log("AMQ9999E", f"Channel '{name}': the START CHANNEL accepted while it "
                         f"was stopping could not be obeyed: {answer}")

    async def _supervised(self, name: str, mca: SenderMCA | ReceiverMCA) -> None:
        """One run of an MCA the channel initiator starts itself: a sending one (SDR, SVR,
        CLUSSDR, a SVR its requester called) or a requester (RQSTR). Anything that is not a
        channel error (a bug, an exception nobody expected) ends this channel only, as IBM's
        AMQ9999E "channel program ended abnormally" does: logged, an FDC written, and the
        channel retries (or stops when its retries are spent) like after any other error.
        It never reaches the channel initiator's nursery, so the other channels go on."""
        try:
            await mca.run()
        except ChannelEnded:
            raise
        except Exception as exc:  # noqa: BLE001 - supervised: this channel only
            first = first_leaf(exc)
            if isinstance(first, ChannelEnded):
                raise first from exc
            fdc = record_failure(self, "RM000002", exc, "rmmChannelProgram")
            raise ChannelEnded("AMQ9999E", f"Channel program ended abnormally: "
                               f"{type(first).__name__}: {first}"
                               + (f" (FDC {fdc})" if fdc else "")) from exc

    async def _retry_wait(self, name: str, retry: RetryWait, wait: float
                          ) -> dict[str, object] | None:
        """A RETRYING channel's wait for its next attempt: ``wait`` seconds, or until STOP
        CHANNEL or START CHANNEL ends it (``retry``); the definition START CHANNEL gave,
        else None."""
        try:
            with trio.move_on_after(wait):
                await retry.woken.wait()
        finally:
            if self.retrying.get(name) is retry:
                del self.retrying[name]
        return retry.definition

    def _stopped_by_operator(self, name: str, status: ChannelStatus) -> None:
        """STOP CHANNEL ended a channel that was not moving messages (RETRYING): STOPPED and
        remembered, or INACTIVE with STATUS(INACTIVE)."""
        if status.stop_requested == "INACTIVE":
            status.move(ChannelEvent.STOPPED_INACTIVE)
            self._remember_soon(name, None)
        else:
            status.move(ChannelEvent.STOP)
            self._remember_soon(name, "STOPPED")
        self.log("AMQ9528I", f"User requested closure of channel '{name}': "
                 f"{status.state.value}.")

    def _forced_end(self, name: str, status: ChannelStatus) -> None:
        """A channel this initiator runs, ended by cancelling it (STOP CHANNEL MODE(FORCE),
        REFRESH SECURITY): STOPPED, or INACTIVE when the stop asked for STATUS(INACTIVE)."""
        if status.stop_requested == "INACTIVE":
            if status.state not in (ChannelState.INACTIVE, ChannelState.STOPPED):
                status.move(ChannelEvent.STOPPED_INACTIVE)
        elif status.state is not ChannelState.STOPPED and (
                status.state is not ChannelState.INACTIVE or status.stop_requested):
            status.move(ChannelEvent.STOP)  # (INACTIVE: stopped before its start began)
        # a STOPPED channel stays so across a restart (IBM)
        self._remember_soon(name, "STOPPED" if status.state is ChannelState.STOPPED else None)
        self.log("AMQ9528I", f"User requested closure of channel '{name}' (forced): "
                 f"{status.state.value}.")

    def _stopped(self, name: str, definition: dict[str, object], status: ChannelStatus,
                 *, error: bool) -> None:
        """STOPPED, remembered; an error stop also disables the transmission queue."""
        if status.state is not ChannelState.STOPPED:
            status.move(ChannelEvent.STOP)
        assert self.nursery is not None
        if error:
            self._enable_xmitq(definition, False)
            xmitq = D.str_attr(definition, "XMITQ")
            if xmitq in self._disabled:
                self._disabled_by_channel[name] = (xmitq, self._disabled[xmitq])
        self._remember_soon(name, "STOPPED")
