"""runmqchl's channel run: one sending channel (or requester) of a channel initiator, run
until it ends. The channel's task runs in a nursery of its own that the run waits on, so the
run ends as the channel does, never a poll later."""

from __future__ import annotations

from typing import Any

import trio

__all__ = ["run_channel"]


async def run_channel(chinit: Any, channel: str) -> str | None:
    """Start ``channel`` on ``chinit`` (``start_channel``) and wait until it has ended: None
    then, or the error that kept it from starting. Whatever else the channel initiator
    starts meanwhile (a status record written) runs in the same nursery, and is waited for
    too."""
    outer = chinit.nursery
    try:
        async with trio.open_nursery() as nursery:
            chinit.nursery = nursery
            err = chinit.start_channel(channel)
    finally:
        chinit.nursery = outer
    return err
