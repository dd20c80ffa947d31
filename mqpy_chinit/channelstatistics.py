"""Channel statistics: an MQCMD_STATISTICS_CHANNEL message for each channel every STATINT
seconds while STATCHL (the channel's, else the queue manager's) is not OFF.

The task counts from the channel initiator's start (``mqpy.stats.channels``); the PCF records
and the put (``mqpy.stats.records``, ``mqpy.stats.collector``) are loaded when an interval
first has a channel to report, which a channel initiator with STATCHL(OFF) never has.

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

import trio

import mqpy
from mqpy.stats.channels import ChannelIntervals
from mqpy_chinit.mca import mqi
from mqpy_chinit.supervision import QMGR_GONE


class ChannelStatistics:
    """The statistics task of a channel initiator."""

    async def _channel_statistics(self) -> None:
        """MQCMD_STATISTICS_CHANNEL messages every STATINT while STATCHL is not OFF. The
        task sleeps until the interval's end; ALTER QMGR STATINT wakes it
        (:meth:`statistics_changed`), and the new STATINT applies to the interval in
        progress; RESET QMGR TYPE(STATISTICS) (:meth:`reset_channel_statistics`) ends it now
        and a new one begins."""
        if not hasattr(self.admin, "qmgr_attribute"):
            return
        tracker = ChannelIntervals()
        tracker.end_interval(list(self.statuses.values()))  # the baseline
        self._statistics_wake = trio.Event()
        self._statistics_reset = False
        #: the task's wakes (interval ends, changes, resets): what an idle channel
        #: initiator's statistics cost, counted for tests
        self.statistics_wakes = 0
        began = trio.current_time()
        while True:
            ends = began + await self._statint()
            with trio.move_on_at(ends):
                await self._statistics_wake.wait()
            self.statistics_wakes += 1
            if self._statistics_wake.is_set():
                self._statistics_wake = trio.Event()
            if self._statistics_reset:
                self._statistics_reset = False
            elif trio.current_time() < ends:
                continue  # STATINT changed: the interval in progress ends at its new length
            began = trio.current_time()
            await self._write_channel_statistics(tracker)

    def reset_channel_statistics(self) -> None:
        """RESET QMGR TYPE(STATISTICS): the channels' interval in progress ends now."""
        if getattr(self, "_statistics_wake", None) is not None:
            self._statistics_reset = True
            self._statistics_wake.set()

    def statistics_changed(self) -> None:
        """ALTER QMGR STATINT: the task reads STATINT again, for the interval in progress."""
        wake = getattr(self, "_statistics_wake", None)
        if wake is not None:
            wake.set()

    async def _statint(self) -> float:
        try:
            interval = float(await trio.to_thread.run_sync(
                self.admin.qmgr_attribute, "STATINT") or 1800)
        except (TypeError, ValueError):
            interval = 1800.0
        return max(1.0, interval)

    async def _write_channel_statistics(self, tracker: ChannelIntervals) -> None:
        """One interval's messages, for the channels whose STATCHL is not OFF."""
        statchl = str(await trio.to_thread.run_sync(self.admin.qmgr_attribute, "STATCHL"))
        wanted = []
        for st in list(self.statuses.values()):
            d = await trio.to_thread.run_sync(self.admin.channel, st.channel) or {}
            own = str(d.get("STATCHL", "QMGR") or "QMGR")
            level = statchl if own == "QMGR" else own  # the channel's own STATCHL wins
            if level not in ("OFF", "None", ""):
                wanted.append(st)
        start, end, intervals = tracker.end_interval(wanted)
        if not intervals:
            return
        # loaded by the first interval with something to report (not at start: see above)
        from mqpy.stats.collector import STATISTICS_QUEUE, put_pcf
        from mqpy.stats.records import channel_statistics

        msgs = channel_statistics(self.qmgr_name, intervals, start, end)
        try:
            qm = await mqi(self.connect_qm)
            for msg in msgs:
                await mqi(put_pcf, qm, STATISTICS_QUEUE, msg)
            await mqi(qm.disconnect)
        except mqpy.MQMIError as e:
            if e.reason in QMGR_GONE:
                raise
            self.log("AMQ9999E", f"Channel statistics not written: reason {e.reason}.")
