"""Channel states that survive a restart of either process: STOPPED and RETRYING, and the
transmission queue an error stop disabled with the TRIGGER it had, kept as sync records
(``mqpy.syncrecord``) and read back when the channel initiator starts.

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

import trio

import mqpy
from mqpy import syncrecord
from mqpy.fap import channeldefs as D
from mqpy_chinit.mca import mqi
from mqpy_chinit.states import ChannelEvent, ChannelStatus

#: The longest a state write holds up the channel initiator's end (seconds).
STATE_WRITE_S = 5.0


class RememberedStates:
    """STOPPED and RETRYING, remembered and restored."""

    #: whether this process writes the states it is told (the channel initiator); a
    #: runmqlsr's STOP and START come from the channel initiator, which writes them: it reads
    #: the STOPPED ones at its start (:meth:`restore_stopped`) and writes none
    remembers_states: bool = True

    async def _remember(self, name: str, state: str | None) -> None:
        """STOPPED and RETRYING survive a restart of either process (seed 000 9.40); so does
        the transmission queue an error stop disabled, with the TRIGGER it had, for the
        START CHANNEL that puts both back. None forgets the channel's state."""
        self._wanted_states[name] = state
        if self.remembers_states:
            await self._write_state(name)

    def _remember_soon(self, name: str, state: str | None) -> None:
        """:meth:`_remember` in the background: what is written is the state last asked
        for, whatever order the writes run in (a STOP then a START: not STOPPED)."""
        self._wanted_states[name] = state
        if self.remembers_states and self.nursery is not None:
            self.nursery.start_soon(self._write_state, name)

    async def _write_state(self, name: str) -> None:
        """Write the state last asked for ``name`` (one write at a time). Shielded, for
        STATE_WRITE_S at most: a channel initiator that ends first finishes the writes asked
        for, so that a state shown (STOP CHANNEL's STOPPED) is a state remembered."""
        with trio.CancelScope(shield=True, deadline=trio.current_time() + STATE_WRITE_S):
            await self._write_state_now(name)

    async def _write_state_now(self, name: str) -> None:
        """:meth:`_write_state`'s write."""
        async with self._state_writes:
            state = self._wanted_states.get(name)
            disabled = self._disabled_by_channel.get(name) if state == "STOPPED" else None
            try:
                qm = await mqi(self.connect_qm)
                try:
                    await mqi(syncrecord.write_state, qm, name, state, disabled)
                finally:
                    await mqi(qm.disconnect)
            except mqpy.MQMIError as e:
                self.log("AMQ9999E", f"Channel '{name}' state not saved: reason {e.reason}.")

    async def restore_stopped(self) -> None:
        """A runmqlsr's start: the channels remembered STOPPED stay STOPPED here too (their
        partners' starts refused until START CHANNEL); nothing is started, nothing
        re-enabled. A queue manager that cannot be asked is logged: none is STOPPED here."""
        try:
            qm = await mqi(self.connect_qm)
            try:
                states = await mqi(syncrecord.read_states, qm)
            finally:
                await mqi(qm.disconnect)
            for name, state in states.items():
                if state != "STOPPED" or name in self.statuses:
                    continue
                definition = await trio.to_thread.run_sync(self.admin.channel, name)
                if definition is not None:
                    st = self.statuses[name] = ChannelStatus(
                        name, D.str_attr(definition, "CHLTYPE"))
                    st.move(ChannelEvent.RESTORED_STOPPED)
        except mqpy.MQMIError as e:
            self.log("AMQ9999E", f"The channels' remembered states could not be read: reason "
                     f"{e.reason}.")

    async def _restore_states(self) -> None:
        """At start: a STOPPED channel stays STOPPED (START CHANNEL needed); a RETRYING one is
        started again with its retry counts reset."""
        try:
            qm = await mqi(self.connect_qm)
            try:
                states = await mqi(syncrecord.read_states, qm)
                disabled = await mqi(syncrecord.read_disabled_xmitqs, qm)
            finally:
                await mqi(qm.disconnect)
        except mqpy.MQMIError:
            return
        for channel, (xmitq, trigger) in disabled.items():
            self._disabled.setdefault(xmitq, trigger)
            self._disabled_by_channel[channel] = (xmitq, trigger)
        for name, state in states.items():
            definition = await trio.to_thread.run_sync(self.admin.channel, name)
            if definition is None:
                continue
            st = self.statuses[name] = ChannelStatus(name, D.str_attr(definition, "CHLTYPE"))
            if state == "STOPPED":
                st.move(ChannelEvent.RESTORED_STOPPED)
            elif state == "RETRYING":
                err = self.start_channel(name, definition)
                if err:
                    self.log("AMQ9999E", err)
