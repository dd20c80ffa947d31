"""MQOPEN and MQCLOSE of a connection (:class:`OpenCalls`): name resolution
(``resolution``), cluster queues and the workload choice, model queues and the dynamic queues
made from them, and the exclusive-input rules."""

from __future__ import annotations

import time

from mqpy import CMQC
from mqpy.engine import (
    authority,
    cluster,
    distlist,
    groups,
    instrumentation,
    msgselection,
    readahead,
    resolution,
)
from mqpy.engine.callcounts import counted
from mqpy.engine.cluster import ClusterRoute
from mqpy.engine.handle import Handle
from mqpy.engine.mqmd import _refuse_header, _trusted
from mqpy.engine.objects import ObjectDef
from mqpy.engine.options import _INPUT_OPTS, _OO_KNOWN, _fail, _strip
from mqpy.engine.queues import MessageQueue
from mqpy.errors import MQMIError
from mqpy.pubsub import mqsub
from mqpy.pubsub.handles import SubHandle
from mqpy.structs.tables import MD, OD

_DEFBIND_OPTION = {"OPEN": CMQC.MQOO_BIND_ON_OPEN, "NOTFIXED": CMQC.MQOO_BIND_NOT_FIXED,
                   "GROUP": CMQC.MQOO_BIND_ON_GROUP}
_BIND_OPTIONS = CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP


def _with_defbind(options: int, opened: ObjectDef) -> int:
    """MQOO_BIND_AS_Q_DEF takes the DEFBIND of the queue opened (an alias's own)."""
    if options & _BIND_OPTIONS:
        return options
    return options | _DEFBIND_OPTION.get(str(opened.attributes.get("DEFBIND") or "OPEN")
                                         .strip().upper(), CMQC.MQOO_BIND_ON_OPEN)


class OpenCalls:
    """MQOPEN and MQCLOSE of a :class:`~mqpy.engine.connection.Connection`."""

    @counted(None, "open_fails")  # (a successful one counts itself)
    def open(self, od: OD, options: int, *, no_model: bool = False) -> int:
        """MQOPEN a queue, resolving its name (resolution.py); returns the object handle.
        ``no_model``: a model queue is refused with 2057 (IBM: not valid on MQPUT1 nor as a
        distribution list's MQOR) rather than a dynamic queue being made from it."""
        _refuse_header(od)
        if options & ~_OO_KNOWN:  # a bit no MQOO_* option has (a distribution list's too)
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        readahead.check_open(options)
        selector = msgselection.for_open(od)  # 2459 for a bad one, before anything opens
        if distlist.is_list_od(od):
            return distlist.open_list(self, od, options)
        if od.ObjectType == CMQC.MQOT_TOPIC:  # publishing (mqpy.pubsub)
            return mqsub.open_topic(self, od, options)  # type: ignore[arg-type]
        with self.engine.lock:
            try:
                return self._open_queue(od, options, selector, no_model)
            except MQMIError as err:  # an instrumentation event, if IBM reports this reason
                instrumentation.open_refused(self, _strip(od.ObjectName),
                                             _strip(od.ObjectQMgrName), options, err)
                raise

    def _open_queue(self, od: OD, options: int, selector: object, no_model: bool) -> int:
        """MQOPEN of a queue, engine lock held: resolution, authority, the handle."""
        eng = self.engine
        self.check_usable()
        name = _strip(od.ObjectName)
        qmname = _strip(od.ObjectQMgrName)
        if od.ObjectType != CMQC.MQOT_Q:
            raise _fail(CMQC.MQRC_OBJECT_TYPE_ERROR)
        if not name:
            raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        inputs = options & _INPUT_OPTS
        if inputs & (inputs - 1):
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        if not options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT
                          | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET):
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        if options & CMQC.MQOO_FAIL_IF_QUIESCING and eng.quiescing:
            raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
        alternate = _strip(od.AlternateUserId) \
            if options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY else None
        if qmname and resolution.is_blank_qmgr_alias(eng.catalog, qmname):
            qmname = ""  # IBM: an alias with a blank RQMNAME equates its name with blank
        res, route = self._resolve_for_open(name, qmname, options, alternate)
        obj, base = res.opened, res.target
        # a cluster queue hosted elsewhere is authorised on the cluster transmission
        # queue (IBM's default, ClusterQueueAccessControl=Xmitq)
        checked = base if route is not None and obj.objtype == "QCLUSTER" else obj
        eng.authority.check_open(self.user.decode("latin-1").strip(), checked.objtype,
                                 checked.name, options, alternate_user=alternate)
        dynamic = None
        if base.objtype == "QMODEL" and no_model:
            raise _fail(CMQC.MQRC_Q_TYPE_ERROR)
        if base.objtype == "QMODEL":
            base, dynamic = self._create_dynamic(base, _strip(od.DynamicQName))
            obj = base
            od.ObjectName = base.name
            res = resolution.Resolved(base, base)
        if res.remote and options & (_INPUT_OPTS | CMQC.MQOO_BROWSE):
            raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        if (qmname and qmname != eng.name
                and options & (CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)):
            raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        mq = eng.catalog.queues[base.qid]
        exclusive = self._exclusive_input(base, mq, inputs) if inputs else False
        hobj = self.new_hobj()
        h = Handle(hobj, obj, base, mq, options, exclusive, dynamic=dynamic,
                   remote_q=res.remote_q, remote_qm=res.remote_qm, cluster=route)
        h.selector = selector
        self.handles[hobj] = h
        _trusted(od, {"ResolvedQName": (res.remote_q or base.name).encode(),
                      "ResolvedQMgrName": (res.remote_qm or eng.name).encode()})
        if inputs:
            eng._on_input_open(base)
        eng.stats.mqi.opens += 1
        self.accounting.mqi.opens += 1
        return hobj

    def _resolve_for_open(self, name: str, qmname: str, options: int, alternate: str | None
                          ) -> tuple[resolution.Resolved, ClusterRoute | None]:
        """The object an MQOPEN names, resolved (resolution.py), and its cluster route
        (None: not a cluster queue): a name unknown here may be a cluster's; a clustered
        local queue put-inhibited, or competing with the cluster's other instances
        (CLWLUSEQ), may go to another instance."""
        eng = self.engine
        route = None
        try:
            res = resolution.resolve(eng.catalog, eng.name, name, qmname)
        except MQMIError as err:
            res, route = self._cluster_open(err, name, qmname, options)
        else:
            if eng.cluster is not None and res.target.attributes.get("PUT") == "DISABLED":
                res, route = self._around_put_disabled(res, name, qmname, options)
            elif eng.cluster is not None and self._local_competes(res, qmname, options):
                local_queue = res.target
                by_name = res.opened is local_queue  # not through an alias
                res, route = self._with_local_instance(res, name, options)
                if route is not None and by_name:
                    # it may get messages: authorised as itself too (an alias opened
                    # is judged alone, as IBM judges the object named in the MQOPEN)
                    eng.authority.check_open(self.user.decode("latin-1").strip(),
                                             local_queue.objtype, local_queue.name,
                                             options, alternate_user=alternate)
        return res, route

    def _exclusive_input(self, base: ObjectDef, mq: MessageQueue, inputs: int) -> bool:
        """Whether an MQOPEN for input has the queue exclusively (MQOO_INPUT_EXCLUSIVE, or
        AS_Q_DEF with DEFSOPT(EXCL), or SHARE(NO)); 2042 when that clashes with the handles
        open for input already."""
        attrs_ = base.attributes
        exclusive = bool(inputs & CMQC.MQOO_INPUT_EXCLUSIVE) or (
            bool(inputs & CMQC.MQOO_INPUT_AS_Q_DEF) and attrs_.get("DEFSOPT") == "EXCL"
        ) or attrs_.get("SHARE") == "NO"
        holders = [h for h in self.engine._open_handles(mq) if h.options & _INPUT_OPTS]
        if holders and (exclusive or any(h.exclusive for h in holders)):
            raise _fail(CMQC.MQRC_OBJECT_IN_USE)
        return exclusive

    def _cluster_open(self, err: MQMIError, name: str, qmname: str, options: int
                      ) -> tuple[resolution.Resolved, ClusterRoute]:
        """A name that does not resolve here may be a cluster queue or queue manager
        (mqpy.engine.cluster); if the cluster does not know it either, ``err`` stands."""
        eng = self.engine
        local_qm = not qmname or qmname == eng.name
        if eng.cluster is not None and local_qm and err.reason in (
                CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
            return self._cluster_behind_definition(err, name, options)
        wanted = CMQC.MQRC_UNKNOWN_OBJECT_NAME if local_qm else CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
        if eng.cluster is None or err.reason != wanted:
            raise err
        if options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET):
            raise err  # a cluster queue elsewhere is for output only
        target = "" if local_qm else resolution.qmgr_alias_target(eng.catalog, qmname)
        route = eng.cluster.open(name, target, options)
        if route is None:
            request = eng.cluster.unknown(target or name)
            if request is not None:
                eng._system_put(cluster.COMMAND_QUEUE, "", MD(Format=cluster.REQUEST_FORMAT
                                                              .encode()), request,
                                dead_letter=False)
            raise err
        return self._cluster_resolved(name, route), route

    def _cluster_behind_definition(self, err: MQMIError, name: str, options: int
                                   ) -> tuple[resolution.Resolved, ClusterRoute]:
        """A local definition whose way on is through the cluster (IBM: a QALIAS's TARGET
        may be a cluster queue; a QREMOTE's RQMNAME may be a cluster queue manager, reached
        on SYSTEM.CLUSTER.TRANSMIT.QUEUE when no XMITQ, no transmission queue named like it
        and no DEFXMITQ says otherwise). The definition opened keeps its DEFPSIST, DEFPRTY
        and DEFBIND, and its authority is the one checked. Else ``err`` (2082, 2087)."""
        eng = self.engine
        opened = eng.catalog.queue_def(name)
        if opened is None:
            raise err
        options = _with_defbind(options, opened)
        step = opened
        if step.objtype == "QALIAS":
            target_name = str(step.attributes.get("TARGET") or "").strip()
            step = eng.catalog.queue_def(target_name)
            if step is None:  # 2082 here: a cluster queue hosted elsewhere?
                return self._cluster_route_for(err, opened, target_name, "", options)
        if (step.objtype == "QREMOTE" and err.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
                and str(step.attributes.get("RNAME") or "").strip()
                and not str(step.attributes.get("XMITQ") or "").strip()):
            rqm = str(step.attributes.get("RQMNAME") or "").strip()
            if rqm and rqm != eng.name:
                return self._cluster_route_for(
                    err, opened, str(step.attributes["RNAME"]).strip(),
                    resolution.qmgr_alias_target(eng.catalog, rqm), options)
        raise err

    def _cluster_route_for(self, err: MQMIError, opened: ObjectDef, queue: str, qmgr: str,
                           options: int) -> tuple[resolution.Resolved, ClusterRoute]:
        eng = self.engine
        if options & (_INPUT_OPTS | CMQC.MQOO_BROWSE):
            raise err  # a cluster queue elsewhere is for output (and inquire of the alias)
        route = eng.cluster.open(queue, qmgr, options)  # type: ignore[union-attr]
        if route is None:
            request = eng.cluster.unknown(qmgr or queue)  # type: ignore[union-attr]
            if request is not None:
                eng._system_put(cluster.COMMAND_QUEUE, "", MD(Format=cluster.REQUEST_FORMAT
                                                              .encode()), request,
                                dead_letter=False)
            raise err
        xmitq = eng.catalog.queue_def(route.xmitq)
        if xmitq is None or xmitq.objtype != "QLOCAL":
            raise _fail(CMQC.MQRC_UNKNOWN_XMIT_Q)
        return resolution.Resolved(opened, xmitq, route.remote_q, route.remote_qm), route

    def _around_put_disabled(self, res: resolution.Resolved, name: str, qmname: str,
                             options: int) -> tuple[resolution.Resolved, ClusterRoute | None]:
        """A clustered local queue that is put-inhibited is not "the local instance" the
        workload algorithm prefers (IBM: CLWLUSEQ(LOCAL) applies only to a put-enabled
        one): an MQOPEN for output goes to another instance if the cluster has one."""
        target = res.target
        clustered = str(target.attributes.get("CLUSTER") or "").strip() or \
            str(target.attributes.get("CLUSNL") or "").strip()
        if (not clustered or target.objtype != "QLOCAL" or res.opened is not target
                or (qmname and qmname != self.engine.name)
                or options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
                              | CMQC.MQOO_SET)):
            return res, None
        route = self.engine.cluster.open(name, "", options)  # type: ignore[union-attr]
        if route is None:
            return res, None  # no other instance: MQPUT says 2051
        return self._cluster_resolved(name, route), route

    def _local_competes(self, res: resolution.Resolved, qmname: str, options: int) -> bool:
        """Whether a clustered local queue opened for output takes part in workload
        balancing with the cluster's other instances: its CLWLUSEQ is ANY (or QMGR with the
        queue manager's ANY), no queue manager was named, and the put is not by a cluster
        channel (IBM: a message that arrived over a cluster channel goes to the local
        instance). Spec aliases-channels-storage 1 use 5."""
        target = res.target
        opened_as = res.opened.objtype  # the queue itself, or an alias whose TARGET it is
        if (qmname or target.objtype != "QLOCAL"
                or (res.opened is not target and opened_as != "QALIAS")
                or not options & CMQC.MQOO_OUTPUT
                or options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
                              | CMQC.MQOO_SET)
                or self.appl_name.rstrip(b" \x00").decode("latin-1")
                == cluster.CLUSTER_RECEIVER_APPL):
            return False
        attributes = target.attributes
        if not (str(attributes.get("CLUSTER") or "").strip()
                or str(attributes.get("CLUSNL") or "").strip()):
            return False
        useq = str(attributes.get("CLWLUSEQ") or "QMGR").strip().upper()
        if useq == "QMGR":
            useq = str(self.engine.catalog.qmgr.get("CLWLUSEQ") or "LOCAL").strip().upper()
        return useq == "ANY"

    def _with_local_instance(self, res: resolution.Resolved, name: str, options: int
                             ) -> tuple[resolution.Resolved, ClusterRoute | None]:
        """The workload choice between the local queue and the cluster's other instances
        (CLWLUSEQ(ANY)); with BIND_NOT_FIXED it is made again at each MQPUT. Opened through
        a QALIAS, the choice is made for its TARGET with the alias's DEFBIND, and the alias
        stays the object opened (its DEFPSIST, DEFPRTY and authority), as when the TARGET is
        a cluster queue hosted elsewhere."""
        opened, target = res.opened, res.target
        if opened.objtype == "QALIAS":
            options = _with_defbind(options, opened)
        route = self.engine.cluster.open(  # type: ignore[union-attr]
            target.name, "", options, local_instance=True)
        if route is None or route.local:
            return res, None  # no other instance, or bound to the local one
        if opened.objtype != "QALIAS":
            return self._cluster_resolved(name, route), route
        xmitq = self.engine.catalog.queue_def(route.xmitq)
        if xmitq is None or xmitq.objtype != "QLOCAL":
            raise _fail(CMQC.MQRC_UNKNOWN_XMIT_Q)
        return resolution.Resolved(opened, xmitq, route.remote_q, route.remote_qm), route

    def _cluster_resolved(self, name: str, route: ClusterRoute) -> resolution.Resolved:
        eng = self.engine
        xmitq = eng.catalog.queue_def(route.xmitq)
        if xmitq is None or xmitq.objtype != "QLOCAL":
            raise _fail(CMQC.MQRC_UNKNOWN_XMIT_Q)
        opened = ObjectDef("QCLUSTER", name, {"DEFPSIST": "YES" if route.defpsist else "NO",
                                              "DEFPRTY": route.defprty})
        return resolution.Resolved(opened, xmitq, route.remote_q, route.remote_qm)

    def _create_dynamic(self, model: ObjectDef, dyn_name: str) -> tuple[ObjectDef, str]:
        eng = self.engine
        if not dyn_name:
            dyn_name = "AMQ.*"
        if dyn_name.endswith("*"):
            stem = dyn_name[:-1]
            unique = f"{int(time.time() * 1000) & 0xFFFFFFFF:08X}{eng._next_hconn:04X}" \
                     f"{self._next_hobj:04X}"
            name = (stem + unique)[:48]
            while eng.catalog.queue_def(name) is not None:
                unique = f"{eng.data.new_seq():016X}"
                name = (stem + unique)[:48]
        else:
            name = dyn_name
            if eng.catalog.queue_def(name) is not None:
                raise _fail(CMQC.MQRC_OBJECT_ALREADY_EXISTS)
        deftype = str(model.attributes.get("DEFTYPE", "TEMPDYN"))
        attributes = {k: v for k, v in model.attributes.items() if k != "DEFTYPE"}
        attributes["DEFTYPE"] = deftype
        obj = eng.define("QLOCAL", name, attributes)
        return obj, deftype

    @counted(None, "close_fails")
    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        """MQCLOSE. The handle that created a temporary dynamic queue deletes it, messages and
        uncommitted work included; MQCO_DELETE(_PURGE) deletes a permanent dynamic queue. A
        handle whose group put in logical order is unfinished closes with the warning
        MQRC_INCOMPLETE_GROUP (``engine.groups``)."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self.handles.get(hobj)
            if h is None:
                if hobj in self.dist_lists:
                    return distlist.close_list(self, hobj)
                raise _fail(CMQC.MQRC_HOBJ_ERROR)
            if type(h) is SubHandle:  # a subscription handle (mqpy.pubsub)
                return self.close_subscription(h, options)  # type: ignore[attr-defined]
            if options & ~(CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE | CMQC.MQCO_QUIESCE):
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            delete_opts = options & (CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE)
            eng.stats.mqi.closes += 1
            self.accounting.mqi.closes += 1
            if h.deleted:
                del self.handles[hobj]
                return
            deftype = h.base.attributes.get("DEFTYPE", "PREDEFINED")
            if delete_opts and (h.obj.objtype == "QALIAS" or deftype == "PREDEFINED"):
                raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            if h.dynamic == "TEMPDYN":
                del self.handles[hobj]
                eng._delete_queue_locked(h.base, purge=True, force=True)
            elif delete_opts and deftype == "PERMDYN":
                if h.dynamic != "PERMDYN" and not authority.may_delete(  # not its creator
                        eng.authority, self.user.decode("latin-1").strip(), "QLOCAL",
                        h.base.name):
                    instrumentation.close_refused(self, h.obj.name)
                    raise _fail(CMQC.MQRC_NOT_AUTHORIZED)
                others = [x for x in eng._open_handles(h.mq) if x is not h]
                if others:
                    raise _fail(CMQC.MQRC_OBJECT_IN_USE)
                del self.handles[hobj]
                try:
                    eng._delete_queue_locked(h.base,
                                             purge=bool(options & CMQC.MQCO_DELETE_PURGE))
                except MQMIError:
                    self.handles[hobj] = h  # MQCLOSE failed: the handle stays open
                    raise
                if eng.object_changed is not None:  # configuration events (CONFIGEV)
                    eng.object_changed(self, "MQCLOSE", h.base, h.base.attributes)
            else:
                del self.handles[hobj]
            warning = groups.close_warning(h)
        if warning:  # closed, with a group put in logical order unfinished
            raise _fail(warning, CMQC.MQCC_WARNING)
