"""MQOPEN of a topic, MQSUB, MQSUBRQ and the MQCLOSE of a subscription handle, for a
connection (:class:`SubscribeCalls`, one of ``Connection``'s bases).

IBM's rules, as built here (MQSUB, MQSD, MQSUBRQ, MQCLOSE):

1. A topic is named by a TOPIC object (ObjectName), a topic string (ObjectString), or both
   (``topicstrings.full_topic_string``); neither, or an ObjectName that is no TOPIC object,
   is MQRC_UNKNOWN_OBJECT_NAME. A topic is opened for output only (publishing): input or
   browse is MQRC_OPTION_NOT_VALID_FOR_TYPE.
2. MQSD.Options must hold MQSO_CREATE, MQSO_RESUME or MQSO_ALTER (else MQRC_OPTIONS_ERROR);
   a durable subscription needs a SubName (MQRC_SUB_NAME_ERROR). A name in use: CREATE alone
   is MQRC_SUB_ALREADY_EXISTS; a handle already open on it MQRC_SUBSCRIPTION_IN_USE. No such
   name: RESUME or ALTER without CREATE is MQRC_NO_SUBSCRIPTION.
3. A new subscription needs SUB(ENABLED) at its topic (MQRC_SUB_INHIBITED) and, durable,
   DURSUB(YES) (MQRC_DURABILITY_NOT_ALLOWED). MQSO_MANAGED makes its destination from the
   topic's model queue -- MDURMDL (a permanent dynamic queue SYSTEM.MANAGED.DURABLE.*) or
   MNDURMDL (a temporary one, SYSTEM.MANAGED.NDURABLE.*) -- and returns it opened for input
   and browse; a missing model, or a durable one of DEFTYPE(TEMPDYN), is
   MQRC_INVALID_DESTINATION. Otherwise Hobj is the application's queue (MQRC_HOBJ_ERROR if
   it is none; a temporary dynamic queue for a durable subscription is
   MQRC_INVALID_DESTINATION).
4. SubCorrelId is the application's with MQSO_SET_CORREL_ID, else the queue manager's, and
   is returned; every publication to the subscription carries it. ResObjectString returns
   the full topic string.
5. A new subscription gets the retained publications it matches at once, unless
   MQSO_NEW_PUBLICATIONS_ONLY or MQSO_PUBLICATIONS_ON_REQUEST; MQSUBRQ
   (MQSR_ACTION_PUBLICATION) sends them when asked (MQRC_NO_RETAINED_MSG when there is
   none) and returns their number in MQSRO.NumPubs.
6. MQSO_RESUME (or ALTER) returns the subscription's own values in the MQSD: SubCorrelId,
   SubExpiry, PubPriority, ResObjectString, and in Options its durability, MQSO_MANAGED and
   its wildcard scheme.
7. MQCLOSE of a subscription handle: MQCO_REMOVE_SUB ends the subscription, MQCO_KEEP_SUB
   (durable only) keeps it, MQCO_NONE keeps a durable one and ends a non-durable one. An
   ended managed subscription's queue goes with it (a temporary one when its handle
   closes).
8. Publishing needs ``pub`` authority, subscribing (and resuming) ``sub``, on the topic's
   closest administrative topic object or on one above it up to SYSTEM.BASE.TOPIC
   (MQRC_NOT_AUTHORIZED); a managed destination needs none of its own. A destination the
   application gives (its Hobj) needs ``put`` on that queue; one a resume opens for it,
   ``put``, ``get`` and ``browse`` (MQRC_NOT_AUTHORIZED, with AUTHOREV ENABLED a Not
   Authorized type 6 event).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from mqpy import CMQC
from mqpy.engine import instrumentation
from mqpy.engine.callcounts import counted
from mqpy.engine.handle import Handle
from mqpy.engine.mqmd import _refuse_header, _trusted
from mqpy.engine.objects import ObjectDef
from mqpy.engine.options import _INPUT_OPTS, _fail, _strip
from mqpy.errors import MQMIError
from mqpy.pubsub import admintopic, destinations, publication, topicstrings, topictree
from mqpy.pubsub.handles import SubHandle, TopicHandle
from mqpy.pubsub.interqmgr import by_pubsub_daemon
from mqpy.pubsub.pubprops import Publication
from mqpy.pubsub.registry import Registry, end_subscription, registry_for
from mqpy.pubsub.subscription import Subscription
from mqpy.selection.evaluate import compile_selector
from mqpy.structs.pubsubstructs import SD, SRO
from mqpy.structs.tables import MD, OD

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection

__all__ = ["SubscribeCalls", "open_topic"]

_ACCESS = CMQC.MQSO_CREATE | CMQC.MQSO_RESUME | CMQC.MQSO_ALTER
#: what a topic may be opened with (rule 1)
_TOPIC_OPEN = (CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
               | CMQC.MQOO_PASS_IDENTITY_CONTEXT | CMQC.MQOO_PASS_ALL_CONTEXT
               | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT
               | CMQC.MQOO_NO_MULTICAST | CMQC.MQOO_RESOLVE_LOCAL_TOPIC
               | CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP)
_MANAGED_QUEUE_OPEN = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
_CLOSE_SUB = CMQC.MQCO_KEEP_SUB | CMQC.MQCO_REMOVE_SUB
_MANAGED_NAMES = {True: "SYSTEM.MANAGED.DURABLE.*", False: "SYSTEM.MANAGED.NDURABLE.*"}


def _vs(struc: Any, name: str) -> str:
    """An MQCHARV of ``struc`` as text ('' when unset)."""
    value = struc.get_vs(name)
    return value.decode("utf-8", "replace") if value else ""


def _topic_of(conn: Connection, object_name: str, object_string: str
              ) -> tuple[str, ObjectDef]:
    """The full topic string an MQOD or MQSD names and the topic object whose attributes
    describe it (the one named, the closest node, or SYSTEM.BASE.TOPIC) (rule 1)."""
    eng = conn.engine
    named = None
    if object_name:
        named = eng.catalog.lookup("TOPIC", object_name)
        if named is None or named.objtype != "TOPIC":
            raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    topic = topicstrings.full_topic_string(
        str(named.attributes.get("TOPICSTR") or "") if named is not None else "", object_string)
    if not topic:
        raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    reg = registry_for(eng)
    obj = named or topictree.node_for(reg.tree(), topic) or reg.base() or \
        ObjectDef("TOPIC", topictree.BASE_TOPIC, dict(topictree.BASE_VALUES))
    return topic, obj


def _authorised(conn: Any, topic: str, needed: str, options: int) -> None:
    """``needed`` ("pub", "sub") on the topic, up the tree (rule 8): else 2035 (with AUTHOREV
    ENABLED, a Not Authorized event: type 2 for "pub", type 5 for "sub")."""
    reg = registry_for(conn.engine)
    names = topictree.authority_objects(reg.tree(), topic)
    try:
        conn.engine.authority.check_topic(conn.user.decode("latin-1").strip(), names, needed)
    except MQMIError as err:
        instrumentation.topic_refused(conn, topic, names, needed, options, err)
        raise


#: what a destination needs (rule 8): one the application gives, one a resume opens
_DEST_GIVEN = CMQC.MQOO_OUTPUT
_DEST_OPENED = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE


def _destination_authorised(conn: Any, objtype: str, name: str, dest_qmgr: str, topic: str,
                            options: int, access: int) -> None:
    """``access`` on the destination queue ``name`` (rule 8): else 2035 (with AUTHOREV
    ENABLED, a Not Authorized type 6 event)."""
    try:
        conn.engine.authority.check_open(conn.user.decode("latin-1").strip(), objtype, name,
                                         access)
    except MQMIError as err:
        if err.reason == CMQC.MQRC_NOT_AUTHORIZED:
            instrumentation.sub_destination_refused(conn, options, topic, dest_qmgr, name)
        raise


def open_topic(conn: Connection, od: OD, options: int) -> int:
    """MQOPEN of MQOT_TOPIC, for publishing (rule 1): the object handle."""
    eng = conn.engine
    with eng.lock:
        conn.check_usable()
        if options & (_INPUT_OPTS | CMQC.MQOO_BROWSE):
            raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        if options & ~_TOPIC_OPEN or not options & CMQC.MQOO_OUTPUT:
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        if options & CMQC.MQOO_FAIL_IF_QUIESCING and eng.quiescing:
            raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
        topic, obj = _topic_of(conn, _strip(od.ObjectName), _vs(od, "ObjectString"))
        if admintopic.publish_error(topic):  # $SYS/MQ is the queue manager's to publish in
            raise _fail(admintopic.publish_error(topic))
        _authorised(conn, topic, "pub", options)
        hobj = conn.new_hobj()
        conn.handles[hobj] = TopicHandle(hobj, obj, obj, None, options,  # type: ignore[arg-type]
                                         topic=topic)
        if od.Version >= CMQC.MQOD_VERSION_4:
            od.set_vs("ResObjectString", topic)
        eng.stats.mqi.opens += 1
        conn.accounting.mqi.opens += 1
        return hobj


def _sub_counted(sd: SD, hobj: int = CMQC.MQHO_NONE) -> int:
    """Where an MQSUB that completes is counted: SubCountDur or SubCountNDur."""
    return 0 if sd.Options & CMQC.MQSO_DURABLE else 1


class SubscribeCalls:
    """MQSUB, MQSUBRQ and the MQCLOSE of a subscription handle, of a ``Connection``."""

    @counted(_sub_counted, "sub_fails")
    def sub(self: Any, sd: SD, hobj: int = CMQC.MQHO_NONE) -> tuple[int, int]:
        """MQSUB: (the destination's object handle, the subscription handle Hsub)."""
        _refuse_header(sd)
        eng = self.engine
        with eng.lock:
            self.check_usable()
            opts = sd.Options
            if not opts & _ACCESS or opts & CMQC.MQSO_WILDCARD_CHAR \
                    and opts & CMQC.MQSO_WILDCARD_TOPIC:
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            if opts & CMQC.MQSO_FAIL_IF_QUIESCING and eng.quiescing:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
            reg = registry_for(eng)
            reg.reap()
            name = _vs(sd, "SubName")
            if opts & CMQC.MQSO_DURABLE and not name:
                raise _fail(CMQC.MQRC_SUB_NAME_ERROR)
            existing = reg.named(name) if name else None
            if existing is not None:
                if not opts & (CMQC.MQSO_RESUME | CMQC.MQSO_ALTER):
                    raise _fail(CMQC.MQRC_SUB_ALREADY_EXISTS)
                if existing.subid in reg.open_by:
                    raise _fail(CMQC.MQRC_SUBSCRIPTION_IN_USE)
                if existing.expired(time.time()):  # it ended: gone, as if never made
                    end_subscription(eng, reg, existing)
                    raise _fail(CMQC.MQRC_NO_SUBSCRIPTION)
                return self._resume(reg, existing, sd, hobj)
            if not opts & CMQC.MQSO_CREATE:
                raise _fail(CMQC.MQRC_NO_SUBSCRIPTION)
            return self._create(reg, sd, hobj, name)

    def _create(self: Any, reg: Registry, sd: SD, hobj: int, name: str) -> tuple[int, int]:
        """A new subscription (rules 3 to 5)."""
        eng = self.engine
        opts = sd.Options
        topic, obj = _topic_of(self, _strip(sd.ObjectName), _vs(sd, "ObjectString"))
        scheme = CMQC.MQWS_CHAR if opts & CMQC.MQSO_WILDCARD_CHAR else CMQC.MQWS_TOPIC
        if admintopic.subscribe_error(topic, scheme):  # wildcards restricted in $SYS/MQ
            raise _fail(admintopic.subscribe_error(topic, scheme))
        fixed = topicstrings.SEPARATOR.join(topicstrings.levels(topic)[
            :topicstrings.fixed_prefix_levels(topic, scheme)])
        tree = reg.tree()
        durable = bool(opts & CMQC.MQSO_DURABLE)
        _authorised(self, fixed, "sub", opts)
        if reg.topic_attribute(fixed, "SUB", tree) == "DISABLED":
            raise _fail(CMQC.MQRC_SUB_INHIBITED)
        if durable and reg.topic_attribute(fixed, "DURSUB", tree) == "NO":
            raise _fail(CMQC.MQRC_DURABILITY_NOT_ALLOWED)
        managed = bool(opts & CMQC.MQSO_MANAGED)
        if managed:
            qhobj = self._managed_queue(str(reg.topic_attribute(
                fixed, "MDURMDL" if durable else "MNDURMDL", tree)), durable)
        else:
            qhobj = self._provided_queue(hobj, durable)
        queue = self.handles[qhobj].base.name if managed else self.handles[qhobj].obj.name
        dest_qmgr = ""
        if not managed:
            queue, dest_qmgr = destinations.dest_of(self.handles[qhobj])
            h = self.handles[qhobj]
            # judged as its MQOPEN was: a cluster queue hosted elsewhere by its transmission
            # queue (IBM's ClusterQueueAccessControl=Xmitq)
            given = h.base if h.obj.objtype == "QCLUSTER" else h.obj
            _destination_authorised(self, given.objtype, given.name, dest_qmgr, topic, opts,
                                    _DEST_GIVEN)
        selector = _vs(sd, "SelectionString")
        compile_selector(selector)  # MQRC_SELECTOR_SYNTAX_ERROR for a bad one
        correl = sd.SubCorrelId if opts & CMQC.MQSO_SET_CORREL_ID else eng.new_msgid()
        sub = Subscription(
            subid=eng.new_msgid(), name=name, topic=topic, dest=queue, dest_qmgr=dest_qmgr,
            managed=managed, proxy=by_pubsub_daemon(self),
            durable=durable, correl_id=correl, user_data=sd.get_vs("SubUserData") or b"",
            selector=selector,
            sub_user=self.user.decode("latin-1").strip(), expiry=sd.SubExpiry,
            pub_priority=sd.PubPriority, pub_accounting=sd.PubAccountingToken,
            pub_appl_id=_strip(sd.PubApplIdentityData),
            on_request=bool(opts & CMQC.MQSO_PUBLICATIONS_ON_REQUEST), wildcard_scheme=scheme,
            topic_object=obj.name if _strip(sd.ObjectName) else "",
            set_identity=bool(opts & CMQC.MQSO_SET_IDENTITY_CONTEXT), options=opts)
        try:
            reg.add(sub)
        except MQMIError:
            if managed:
                self._drop_managed(sub, qhobj)
            raise
        hsub = self._sub_handle(reg, sub, obj, qhobj if managed else 0)
        _trusted(sd, {"SubCorrelId": correl})
        sd.set_vs("ResObjectString", topic)
        if not opts & (CMQC.MQSO_NEW_PUBLICATIONS_ONLY | CMQC.MQSO_PUBLICATIONS_ON_REQUEST):
            lsn = self._send_retained(reg, sub)[1]
            if lsn is not None:
                self.force_log(lsn)
        return qhobj, hsub

    def _managed_queue(self: Any, model: str, durable: bool) -> int:
        """The new managed destination, opened for input and browse (rule 3)."""
        found = self.engine.catalog.queue_def(model)
        if found is None or found.objtype != "QMODEL" or (
                durable and found.attributes.get("DEFTYPE") == "TEMPDYN"):
            raise _fail(CMQC.MQRC_INVALID_DESTINATION)
        queue, dynamic = self._create_dynamic(found, _MANAGED_NAMES[durable])
        return self._managed_handle(queue, dynamic)

    def _managed_handle(self: Any, queue: ObjectDef, dynamic: str | None) -> int:
        """A handle on a managed destination, open for input and browse. The queue manager
        opens it for the subscriber: no authority on the queue or its model is needed."""
        eng = self.engine
        hobj = self.new_hobj()
        self.handles[hobj] = Handle(hobj, queue, queue, eng.catalog.queues[queue.qid],
                                    _MANAGED_QUEUE_OPEN, dynamic=dynamic)
        eng._on_input_open(queue)
        eng.stats.mqi.opens += 1
        self.accounting.mqi.opens += 1
        return hobj

    def _provided_queue(self: Any, hobj: int, durable: bool) -> int:
        """The application's destination handle, checked (rule 3)."""
        h = self.handles.get(hobj)
        if h is None or h.mq is None or h.deleted:
            raise _fail(CMQC.MQRC_HOBJ_ERROR)
        if durable and h.base.attributes.get("DEFTYPE") == "TEMPDYN":
            raise _fail(CMQC.MQRC_INVALID_DESTINATION)
        return hobj

    def _sub_handle(self: Any, reg: Registry, sub: Subscription, obj: ObjectDef,
                    queue_hobj: int) -> int:
        hsub = self.new_hobj()
        self.handles[hsub] = SubHandle(hsub, obj, obj, None, 0,  # type: ignore[arg-type]
                                       subid=sub.subid, queue_hobj=queue_hobj)
        reg.open_by[sub.subid] = self
        reg.resumed[sub.subid] = time.time()
        return hsub

    def _resume(self: Any, reg: Registry, sub: Subscription, sd: SD, hobj: int
                ) -> tuple[int, int]:
        """An existing subscription, resumed (or altered: MQSO_ALTER)."""
        opts = sd.Options
        _authorised(self, sub.topic, "sub", opts)
        if hobj not in (CMQC.MQHO_NONE, 0) and not sub.managed:  # before any alteration
            given = self.handles[self._provided_queue(hobj, sub.durable)].obj
            _destination_authorised(self, given.objtype, given.name, sub.dest_qmgr,
                                    sub.topic, opts, _DEST_GIVEN)
        if opts & CMQC.MQSO_ALTER:
            self._alter(reg, sub, sd, hobj)
        if hobj not in (CMQC.MQHO_NONE, 0) and not sub.managed:
            qhobj = self._provided_queue(hobj, sub.durable)
        elif sub.managed:
            queue = self.engine.catalog.queue_def(sub.dest)
            if queue is None or queue.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_INVALID_DESTINATION)
            qhobj = self._managed_handle(queue, None)
        else:
            found = self.engine.catalog.queue_def(sub.dest)
            if found is not None:
                _destination_authorised(self, found.objtype, found.name, sub.dest_qmgr,
                                        sub.topic, opts, _DEST_OPENED)
            try:
                qhobj = self.open(OD(ObjectName=sub.dest, ObjectQMgrName=sub.dest_qmgr),
                                  CMQC.MQOO_INPUT_AS_Q_DEF)
            except MQMIError as err:
                if err.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME:
                    raise _fail(CMQC.MQRC_INVALID_DESTINATION) from None
                raise
        obj = registry_topic_object(self, sub)
        hsub = self._sub_handle(reg, sub, obj, qhobj if sub.managed else 0)
        _trusted(sd, {"SubCorrelId": sub.correl_id, "SubExpiry": sub.expiry,
                      "PubPriority": sub.pub_priority, "Options": _resumed_options(sd, sub)})
        sd.set_vs("ResObjectString", sub.topic)
        return qhobj, hsub

    def _alter(self: Any, reg: Registry, sub: Subscription, sd: SD, hobj: int) -> None:
        """MQSO_ALTER: the subscription takes the MQSD's values (not its durability)."""
        opts = sd.Options
        if bool(opts & CMQC.MQSO_DURABLE) != sub.durable:
            raise _fail(CMQC.MQRC_DURABILITY_NOT_ALTERABLE)
        if not sub.managed and hobj not in (CMQC.MQHO_NONE, 0):
            sub.dest = self.handles[self._provided_queue(hobj, sub.durable)].obj.name
        if opts & CMQC.MQSO_SET_CORREL_ID:
            sub.correl_id = sd.SubCorrelId
        sub.user_data = sd.get_vs("SubUserData") or b""
        sub.expiry, sub.pub_priority = sd.SubExpiry, sd.PubPriority
        sub.started = time.time()  # the expiry counts from the alteration
        sub.on_request = bool(opts & CMQC.MQSO_PUBLICATIONS_ON_REQUEST)
        reg.changed(sub)

    def _send_retained(self: Any, reg: Registry, sub: Subscription) -> tuple[int, int | None]:
        """The retained publications ``sub`` matches, put to its destination outside
        syncpoint: (how many, the LSN to force)."""
        sent, lsn = 0, None
        tree = reg.tree()
        for topic, retained in list(reg.retained.items()):
            if not topicstrings.matches(sub.topic, topic, sub.wildcard_scheme) \
                    or topictree.wildcard_blocked(tree, sub.topic, sub.wildcard_scheme, topic):
                continue
            md = MD()
            md.unpack(retained.md)
            try:
                pub = Publication.of(md, retained.data, topic, retained=True)
                lsn = publication.deliver(self, [sub], md, pub,
                                          persistent=retained.persistent,
                                          priority=md.Priority, syncpoint=False,
                                          policy="ALL") or lsn
            except MQMIError:
                continue  # this one could not be put (a full queue ...): the rest still go
            sent += 1
        return sent, lsn

    @counted("subrqs", "subrq_fails")
    def subrq(self: Any, hsub: int, action: int, sro: SRO | None = None) -> SRO:
        """MQSUBRQ: send the subscription's retained publications now (rule 5)."""
        sro = SRO() if sro is None else sro
        _refuse_header(sro)
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self.handles.get(hsub)
            if not isinstance(h, SubHandle):
                raise _fail(CMQC.MQRC_HOBJ_ERROR)
            if action != CMQC.MQSR_ACTION_PUBLICATION:
                raise _fail(CMQC.MQRC_ACTION_ERROR)
            if sro.Options & ~CMQC.MQSRO_FAIL_IF_QUIESCING:
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            if sro.Options & CMQC.MQSRO_FAIL_IF_QUIESCING and eng.quiescing:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
            reg = registry_for(eng)
            sub = reg.subs.get(h.subid)
            if sub is None:
                raise _fail(CMQC.MQRC_NO_SUBSCRIPTION)
            sent, lsn = self._send_retained(reg, sub)
            if not sent:
                raise _fail(CMQC.MQRC_NO_RETAINED_MSG)
            sro.NumPubs = sent
        if lsn is not None:
            self.force_log(lsn)
        return sro

    def close_subscription(self: Any, h: SubHandle, options: int) -> None:
        """MQCLOSE of a subscription handle (rule 7), engine lock held."""
        if options & ~(_CLOSE_SUB | CMQC.MQCO_QUIESCE) or options & _CLOSE_SUB == _CLOSE_SUB:
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        reg = registry_for(self.engine)
        sub = reg.subs.get(h.subid)
        if sub is not None and options & CMQC.MQCO_KEEP_SUB and not sub.durable:
            raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        del self.handles[h.hobj]
        if sub is None:
            return  # ended meanwhile (DELETE SUB)
        reg.open_by.pop(sub.subid, None)
        if options & CMQC.MQCO_REMOVE_SUB or not sub.durable:
            end_subscription(self.engine, reg, sub)

    def _drop_managed(self: Any, sub: Subscription, qhobj: int) -> None:
        """A managed destination made for a subscription that was not made after all."""
        try:
            self.close(qhobj, CMQC.MQCO_DELETE_PURGE if sub.durable else CMQC.MQCO_NONE)
        except MQMIError:
            self.handles.pop(qhobj, None)


def _resumed_options(sd: SD, sub: Subscription) -> int:
    """The MQSD's Options as MQSUB returns them for an existing subscription: its
    durability, whether it is managed, and its wildcard scheme, beside the caller's."""
    options = sd.Options & ~(CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED | CMQC.MQSO_WILDCARD_CHAR
                             | CMQC.MQSO_WILDCARD_TOPIC)
    if sub.durable:
        options |= CMQC.MQSO_DURABLE
    if sub.managed:
        options |= CMQC.MQSO_MANAGED
    if sub.wildcard_scheme == CMQC.MQWS_CHAR:
        options |= CMQC.MQSO_WILDCARD_CHAR
    return options


def registry_topic_object(conn: Connection, sub: Subscription) -> ObjectDef:
    """The topic object describing a subscription's topic (for its handle)."""
    reg = registry_for(conn.engine)
    named = conn.engine.catalog.lookup("TOPIC", sub.topic_object) if sub.topic_object else None
    return named or topictree.node_for(reg.tree(), sub.topic) or reg.base() or \
        ObjectDef("TOPIC", topictree.BASE_TOPIC, dict(topictree.BASE_VALUES))
