"""The object handles of publish/subscribe: an open topic (MQOPEN of MQOT_TOPIC, for
publishing) and a subscription (MQSUB's Hsub). Both are :class:`Handle` s of the connection's
handle table, without a message queue (``mq`` None), so that MQPUT, MQCLOSE and MQDISC find
them as they find any handle."""

from __future__ import annotations

import attrs

from mqpy.engine.handle import Handle

__all__ = ["SubHandle", "TopicHandle"]


@attrs.define(eq=False)
class TopicHandle(Handle):
    """A topic open for output: ``obj`` is the TOPIC object named or the closest node."""

    topic: str = ""  #: the full topic string published to
    published: int = 0  #: publications put through it (TPSTATUS TYPE(PUB) NUMPUBS)
    last_published: float = 0.0  #: when the last was put (LPUBDATE, LPUBTIME)


@attrs.define(eq=False)
class SubHandle(Handle):
    """A subscription handle (Hsub): ``subid`` names it in the registry; ``queue_hobj`` is
    the managed destination's handle MQSUB opened (0: the application's own queue)."""

    subid: bytes = b""
    queue_hobj: int = 0
