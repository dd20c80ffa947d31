"""Channel statistics: an MQCMD_STATISTICS_CHANNEL message for each channel every STATINT
seconds while STATCHL (the channel's, else the queue manager's) is not OFF.

A part of :class:`~mqpy_chinit.chinit.ChannelInitiator`, which holds the state it uses.
"""

from __future__ import annotations

import trio

import mqpy
from mqpy.stats.collector import STATISTICS_QUEUE, put_pcf
from mqpy.stats.records import ChannelStatsTracker
from mqpy_chinit.mca import mqi
from mqpy_chinit.supervision import QMGR_GONE


class ChannelStatistics:
    """The statistics task of a channel initiator."""

    async def _channel_statistics(self) -> None:
        """MQCMD_STATISTICS_CHANNEL messages every STATINT while STATCHL is not OFF."""
        if not hasattr(self.admin, "qmgr_attribute"):
            return
        tracker = ChannelStatsTracker()
        tracker.messages(self.qmgr_name, list(self.statuses.values()))  # the baseline
        while True:
            try:
                interval = float(await trio.to_thread.run_sync(
                    self.admin.qmgr_attribute, "STATINT") or 1800)
            except (TypeError, ValueError):
                interval = 1800.0
            await trio.sleep(max(1.0, interval))
            statchl = str(await trio.to_thread.run_sync(self.admin.qmgr_attribute, "STATCHL"))
            wanted = []
            for st in list(self.statuses.values()):
                d = await trio.to_thread.run_sync(self.admin.channel, st.channel) or {}
                own = str(d.get("STATCHL", "QMGR") or "QMGR")
                level = statchl if own == "QMGR" else own  # the channel's own STATCHL wins
                if level not in ("OFF", "None", ""):
                    wanted.append(st)
            msgs = tracker.messages(self.qmgr_name, wanted)
            if not msgs:
                continue
            try:
                qm = await mqi(self.connect_qm)
                for msg in msgs:
                    await mqi(put_pcf, qm, STATISTICS_QUEUE, msg)
                await mqi(qm.disconnect)
            except mqpy.MQMIError as e:
                if e.reason in QMGR_GONE:
                    raise
                self.log("AMQ9999E", f"Channel statistics not written: reason {e.reason}.")
