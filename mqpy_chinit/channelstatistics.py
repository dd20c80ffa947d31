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

#: How often (seconds) the task looks again at STATINT, so that a changed interval applies to
#: the interval in progress.
INTERVAL_POLL = 1.0


class ChannelStatistics:
    """The statistics task of a channel initiator."""

    async def _channel_statistics(self) -> None:
        """MQCMD_STATISTICS_CHANNEL messages every STATINT while STATCHL is not OFF. STATINT
        is read again every :data:`INTERVAL_POLL` seconds and applies to the interval in
        progress; RESET QMGR TYPE(STATISTICS) (:meth:`reset_channel_statistics`) ends it now
        and a new one begins."""
        if not hasattr(self.admin, "qmgr_attribute"):
            return
        tracker = ChannelIntervals()
        tracker.end_interval(list(self.statuses.values()))  # the baseline
        self._statistics_reset = trio.Event()
        began = trio.current_time()
        while True:
            ends = began + await self._statint()
            with trio.move_on_after(max(0.0, min(ends - trio.current_time(), INTERVAL_POLL))):
                await self._statistics_reset.wait()
            if self._statistics_reset.is_set():
                self._statistics_reset = trio.Event()
            elif trio.current_time() < ends:
                continue
            began = trio.current_time()
            await self._write_channel_statistics(tracker)

    def reset_channel_statistics(self) -> None:
        """RESET QMGR TYPE(STATISTICS): the channels' interval in progress ends now."""
        reset = getattr(self, "_statistics_reset", None)
        if reset is not None:
            reset.set()

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
