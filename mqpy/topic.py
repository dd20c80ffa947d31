"""Publish/subscribe for applications, shaped like pymqi's and IBM ``ibmmq``'s: ``Topic``
(MQOPEN of a topic, ``pub``) and ``Subscription`` (MQSUB, ``get``, ``subrq``, MQCLOSE).

They call the connection's ``open`` / ``put`` / ``sub`` / ``subrq`` / ``close``, as ``Queue``
does, so they work over embedded, bindings and client connections alike; every failure is
an :class:`~mqpy.errors.MQMIError`, and so is every warning, as in pymqi.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.collected import closed_by_finalizer
from mqpy.errors import MQMIError, PYIFError
from mqpy.mqi import Queue, QueueManager, common_q_args
from mqpy.properties import calls
from mqpy.structs.pubsubstructs import SD, SRO
from mqpy.structs.tables import OD, PMO

__all__ = ["Subscription", "Topic"]


def _name(value: Any) -> Any:
    """A topic or subscription name as pymqi keeps it: bytes (a str encoded as UTF-8, which
    is ASCII for every name pymqi itself takes); None and bytes as they are."""
    return value.encode("utf-8") if isinstance(value, str) else value


def _check_topic_desc(od: OD) -> None:
    """pymqi's checks of a Topic's own MQOD: a topic's (MQOT_TOPIC), of version 4."""
    if od["ObjectType"] != CMQC.MQOT_TOPIC:
        raise PYIFError("The Topic Descriptor ObjectType is not MQOT_TOPIC.")
    if od["Version"] != CMQC.MQOD_VERSION_4:
        raise PYIFError("The Topic Descriptor Version is not MQOD_VERSION_4.")


def _topic_od(topic_name: Any, topic_string: Any) -> OD:
    """An MQOD (version 4) for a topic object and/or a topic string."""
    od = OD(Version=CMQC.MQOD_VERSION_4, ObjectType=CMQC.MQOT_TOPIC)
    if topic_name:
        od.ObjectName = topic_name
    if topic_string:
        od.set_vs("ObjectString", topic_string)
    return od


class Topic:
    """pymqi.Topic: ``Topic(qmgr, topic_name=None, topic_string=None, topic_desc=None,
    open_opts=None)``; opened at once when ``open_opts`` is given."""

    def __init__(self, queue_manager: QueueManager, topic_name: Any = None,
                 topic_string: Any = None, topic_desc: OD | None = None,
                 open_opts: int | None = None) -> None:
        self._qmgr = queue_manager
        self.topic_name = _name(topic_name)
        self.topic_string = _name(topic_string)
        if topic_desc:
            _check_topic_desc(topic_desc)
        self._topic_desc = topic_desc
        self._open_opts = open_opts
        self._hobj: int | None = None
        if open_opts:
            self.open(open_opts=open_opts)

    def open(self, topic_name: Any = None, topic_string: Any = None,
             topic_desc: OD | None = None, open_opts: int | None = None) -> None:
        """MQOPEN of the topic (for output unless ``open_opts`` say otherwise)."""
        if self._hobj is not None:
            raise PYIFError("the topic is already open")
        self.topic_name = _name(topic_name) or self.topic_name
        self.topic_string = _name(topic_string) or self.topic_string
        self._topic_desc = topic_desc or self._topic_desc
        self._open_opts = open_opts or self._open_opts or CMQC.MQOO_OUTPUT
        od = self._topic_desc
        if od is None:
            if not self.topic_name and not self.topic_string:
                raise PYIFError("no topic name or topic string given")
            od = _topic_od(self.topic_name, self.topic_string)
        self._topic_desc = od
        self._hobj = self._qmgr._backend().open(od, self._open_opts)

    def pub(self, msg: bytes | str, *opts: Any) -> None:
        """MQPUT of a publication: ``pub(msg[, md[, pmo]])``."""
        md, pmo = common_q_args(*opts)
        pmo = pmo if pmo is not None else PMO()
        if pmo.Version >= 3 and (pmo.OriginalMsgHandle or pmo.NewMsgHandle):
            # the handle's properties as an MQRFH2 in front of the data, as Queue.put does
            return calls.put_with_properties(self.pub, self._qmgr, msg, md, pmo)
        if self._hobj is None:
            self.open()
        assert self._hobj is not None
        if type(msg) is not bytes:
            msg = self._qmgr._message_bytes(msg, md)
        warning = self._qmgr._backend().put(self._hobj, md, pmo, msg)
        if warning:
            raise MQMIError(CMQC.MQCC_WARNING, warning)

    def pub_rfh2(self, msg: bytes, *opts: Any) -> None:
        """pymqi's ``pub_rfh2(msg[, md, pmo, [rfh2, ...]])``: the MQRFH2 headers, then msg,
        put on the topic's handle as ``Queue.put_rfh2`` puts them on a queue's."""
        if self._hobj is None:
            self.open()
        on_topic = Queue(self._qmgr)
        on_topic.set_handle(self._hobj)
        try:
            on_topic.put_rfh2(msg, *opts)
        finally:
            on_topic.set_handle(None)  # the handle stays the Topic's

    def sub(self, *opts: Any, **kw: Any) -> Subscription:
        """A Subscription to this topic (``Subscription.sub``'s arguments)."""
        sub = Subscription(self._qmgr)
        kw.setdefault("topic_name", self.topic_name)
        kw.setdefault("topic_string", self.topic_string)
        sub.sub(*opts, **kw)
        return sub

    def close(self, options: int = CMQC.MQCO_NONE) -> None:
        if self._hobj is None:
            raise PYIFError("Topic not open.")
        self._qmgr._backend().close(self._hobj, options)
        self._hobj = None

    def get_handle(self) -> int | None:
        return self._hobj

    def __del__(self) -> None:
        """A Topic collected while open closes its handle, as a Queue does (the collector's
        MQCLOSE made by the connection's next call: ``mqpy.collected``)."""
        if getattr(self, "_hobj", None) is not None:
            try:
                if closed_by_finalizer(self._qmgr._conn, self._hobj):
                    self._hobj = None
                    return
                self.close()
            except (MQMIError, PYIFError, OSError):
                pass

    def __enter__(self) -> Topic:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._hobj is not None:
            self.close()


class Subscription:
    """pymqi.Subscription: MQSUB with an SD (or the names it is built from), the
    destination as ``sub_queue`` (a Queue), ``get`` from it, ``subrq``, ``close``."""

    def __init__(self, queue_manager: QueueManager, sub_desc: SD | None = None,
                 sub_name: Any = None, sub_queue: Queue | None = None,
                 sub_opts: int | None = None, topic_name: Any = None,
                 topic_string: Any = None) -> None:
        self._qmgr = queue_manager
        self.sub_queue = sub_queue
        self.sub_desc = sub_desc
        self.sub_name = _name(sub_name)
        self.sub_opts = sub_opts
        self.topic_name = _name(topic_name)
        self.topic_string = _name(topic_string)
        self._hsub: int | None = None
        if sub_desc is not None:
            self.sub(sub_desc=sub_desc)

    def get_sub_queue(self) -> Queue | None:
        return self.sub_queue

    def get(self, max_length: int | None = None, *opts: Any) -> bytes:
        if self.sub_queue is None:
            raise PYIFError("Subscription has no queue.")
        return self.sub_queue.get(max_length, *opts)

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        if self.sub_queue is None:
            raise PYIFError("Subscription has no queue.")
        return self.sub_queue.get_rfh2(max_length, *opts)

    def _descriptor(self) -> SD:
        """The MQSD to subscribe with: the one given, else one made from the names."""
        sd = self.sub_desc
        if sd is None:
            sd = SD(Options=self.sub_opts if self.sub_opts is not None
                    else CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
            if self.topic_name:
                sd.ObjectName = self.topic_name
            if self.topic_string:
                sd.set_vs("ObjectString", self.topic_string)
            if self.sub_name:
                sd.set_vs("SubName", self.sub_name)
        return sd

    def sub(self, sub_desc: SD | None = None, sub_queue: Queue | int | None = None,
            sub_name: Any = None, sub_opts: int | None = None, topic_name: Any = None,
            topic_string: Any = None) -> None:
        """MQSUB; the destination's handle becomes ``sub_queue``. A ``sub_desc`` that is
        not an SD is pymqi's TypeError."""
        if sub_desc and not isinstance(sub_desc, SD):
            raise TypeError("sub_desc must be a SD(sub descriptor) object.")
        if sub_desc is not None:
            self.sub_desc = sub_desc
        self.sub_name = _name(sub_name) or self.sub_name
        self.sub_opts = sub_opts if sub_opts is not None else self.sub_opts
        self.topic_name = _name(topic_name) or self.topic_name
        self.topic_string = _name(topic_string) or self.topic_string
        if isinstance(sub_queue, int) and not isinstance(sub_queue, bool):
            handle, sub_queue = sub_queue, Queue(self._qmgr)  # pymqi's: an object handle
            sub_queue.set_handle(handle)
        if sub_queue is not None:
            self.sub_queue = sub_queue
        sd = self.sub_desc = self._descriptor()
        given = self.sub_queue.get_handle() if self.sub_queue is not None else None
        hobj, self._hsub = self._qmgr._backend().sub(sd, given or CMQC.MQHO_NONE)
        if self.sub_queue is None or self.sub_queue.get_handle() != hobj:
            self.sub_queue = Queue(self._qmgr)
            self.sub_queue.set_handle(hobj)

    def subrq(self, sub_action: int | SRO = CMQC.MQSR_ACTION_PUBLICATION,
              sro: SRO | None = None) -> SRO:
        """MQSUBRQ (ibmmq's ``subrq(sub_action, sro)``; an SRO first is taken too): the
        retained publications now; the MQSRO (NumPubs) as filled in, also returned."""
        if isinstance(sub_action, SRO):
            sub_action, sro = CMQC.MQSR_ACTION_PUBLICATION, sub_action
        if sro is not None and not isinstance(sro, SRO):
            raise TypeError("sro must be an SRO(sub request options) object.")
        if self._hsub is None:
            raise PYIFError("Subscription not open.")
        return self._qmgr._backend().subrq(self._hsub, sub_action,
                                           SRO() if sro is None else sro)

    def close(self, sub_close_options: int = CMQC.MQCO_NONE, close_sub_queue: bool = False,
              close_sub_queue_options: int = CMQC.MQCO_NONE) -> None:
        """MQCLOSE of the subscription handle, then of its queue if asked."""
        if self._hsub is None:
            raise PYIFError("Subscription not open.")
        self._qmgr._backend().close(self._hsub, sub_close_options)
        self._hsub = None
        if close_sub_queue and self.sub_queue is not None:
            self.sub_queue.close(close_sub_queue_options)

    def get_sub_handle(self) -> int | None:
        return self._hsub

    def __del__(self) -> None:
        """pymqi's: a Subscription collected while open closes its handle (MQCO_NONE); a
        failure (the connection already ended) is not the collector's to raise."""
        if getattr(self, "_hsub", None) is not None:
            try:
                if closed_by_finalizer(self._qmgr._conn, self._hsub):  # (mqpy.collected)
                    self._hsub = None
                    return
                self.close()
            except (MQMIError, PYIFError, OSError):
                pass

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._hsub is not None:
            self.close()
