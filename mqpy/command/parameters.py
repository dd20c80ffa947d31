"""The parameters each PCF command takes, as IBM's PCF reference lists them for
Multiplatforms (its required and optional parameters; the z/OS-only ones, CommandScope,
QSGDisposition, ChannelDisposition..., are not here, as IBM's command server on Multiplatforms
refuses them too), and the refusal of any other: MQRCCF_<structure>_PARM_ID_ERROR for the
structure it came in (MQRCCF_CFIN_PARM_ID_ERROR for an MQCFIN, MQRCCF_CFST_PARM_ID_ERROR for an
MQCFST...), the parameter named in the reply (MQIACF_PARAMETER_ID).

A command's table holds every parameter its handler reads (``msg.get``, ``required_name``,
``asked_attrs``... in :mod:`mqpy.command`), and the few IBM documents that mqpy's handler
has no use for (an Inquire Queue Status's OpenType), and what public programs send where
IBM answers them (noted at each): those are accepted and change nothing.
The commands that set attributes (Create, Change and Copy of an object, Change Queue
Manager, Set Channel Authentication Record, Create and Change Subscription) are checked by
their handlers, attribute by attribute against the object's attribute table
(:func:`mqpy.command.changes.attributes`): their entry is :data:`ATTRIBUTES`. A filter
(MQCFIF, MQCFSF, MQCFBF) names an attribute of the answer, not a parameter of the command,
and is checked as a filter. This module reads a request; it never runs one."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, CMQXC, pcf
from mqpy.command.requests import Refused
from mqpy.mqsc import pcfmap

__all__ = ["ATTRIBUTES", "NOT_FILTERED", "TAKES", "check_parameters"]

#: the entry of a command whose handler checks its parameters itself (its object's
#: attribute table and the parameters that steer it)
ATTRIBUTES = None

_C, _F, _X = CMQC, CMQCFC, CMQXC


def _takes(*parameters: int) -> frozenset[int]:
    return frozenset(parameters)


def _family(name: int, attrs_list: int, names: bool, *selectors: int,
            delete: tuple[int, ...] = ()) -> dict[str, frozenset[int] | None]:
    """(inquire, inquire names, delete) tables of an object type named by ``name``."""
    return {"inquire": _takes(name, attrs_list, *selectors),
            "names": _takes(name, *selectors) if names else ATTRIBUTES,
            "delete": _takes(name, *delete)}


_NAMELIST = _family(_C.MQCA_NAMELIST_NAME, _F.MQIACF_NAMELIST_ATTRS, True,
                    _C.MQIA_NAMELIST_TYPE, delete=(_F.MQIACF_REMOVE_AUTHREC,))
_PROCESS = _family(_C.MQCA_PROCESS_NAME, _F.MQIACF_PROCESS_ATTRS, True,
                   delete=(_F.MQIACF_REMOVE_AUTHREC,))
_LISTENER = _family(_F.MQCACH_LISTENER_NAME, _F.MQIACF_LISTENER_ATTRS, False,
                    _F.MQIACH_XMIT_PROTOCOL_TYPE)
_AUTHINFO = _family(_C.MQCA_AUTH_INFO_NAME, _F.MQIACF_AUTH_INFO_ATTRS, True,
                    _C.MQIA_AUTH_INFO_TYPE, delete=(_F.MQIACF_REMOVE_AUTHREC,))
_SERVICE = _family(_C.MQCA_SERVICE_NAME, _F.MQIACF_SERVICE_ATTRS, False,
                   delete=(_F.MQIACF_REMOVE_AUTHREC,))
_TOPIC = _family(_C.MQCA_TOPIC_NAME, _F.MQIACF_TOPIC_ATTRS, True,
                 _F.MQIACF_CLUSTER_INFO, _C.MQIA_TOPIC_TYPE,
                 delete=(_F.MQIACF_REMOVE_AUTHREC,))

_CHLAUTH_RUNCHECK = (_F.MQCACH_CONNECTION_NAME, _F.MQCACH_CLIENT_USER_ID,
                     _C.MQCA_REMOTE_Q_MGR_NAME, _F.MQCACH_SSL_PEER_NAME,
                     _C.MQCA_SSL_CERT_ISSUER_NAME)
_ENTITIES = (_F.MQCACF_PRINCIPAL_ENTITY_NAMES, _F.MQCACF_GROUP_ENTITY_NAMES)

#: command -> the parameters it takes (:data:`ATTRIBUTES`: its handler checks them)
TAKES: dict[int, frozenset[int] | None] = {
    _F.MQCMD_ESCAPE: _takes(_F.MQIACF_ESCAPE_TYPE, _F.MQCACF_ESCAPE_TEXT),
    _F.MQCMD_PING_Q_MGR: _takes(),
    # queues
    _F.MQCMD_INQUIRE_Q: _takes(_C.MQCA_Q_NAME, _C.MQIA_Q_TYPE, _F.MQIACF_Q_ATTRS,
                               _F.MQIACF_CLUSTER_INFO, _C.MQCA_CLUSTER_NAME,
                               _C.MQCA_CLUSTER_NAMELIST),
    _F.MQCMD_INQUIRE_Q_NAMES: _takes(_C.MQCA_Q_NAME, _C.MQIA_Q_TYPE),
    # (QType: a public status collector sends Inquire Queue's arguments, QName and QType
    # MQQT_LOCAL, with Inquire Queue Status too; the status is of local queues only)
    _F.MQCMD_INQUIRE_Q_STATUS: _takes(_C.MQCA_Q_NAME, _F.MQIACF_Q_STATUS_TYPE,
                                      _F.MQIACF_Q_STATUS_ATTRS, _F.MQIACF_OPEN_TYPE,
                                      _C.MQIA_Q_TYPE),
    _F.MQCMD_CREATE_Q: ATTRIBUTES, _F.MQCMD_CHANGE_Q: ATTRIBUTES, _F.MQCMD_COPY_Q: ATTRIBUTES,
    _F.MQCMD_DELETE_Q: _takes(_C.MQCA_Q_NAME, _C.MQIA_Q_TYPE, _F.MQIACF_PURGE,
                              _F.MQIACF_REMOVE_AUTHREC),
    _F.MQCMD_CLEAR_Q: _takes(_C.MQCA_Q_NAME),
    _F.MQCMD_RESET_Q_STATS: _takes(_C.MQCA_Q_NAME),
    # the queue manager
    _F.MQCMD_INQUIRE_Q_MGR: _takes(_F.MQIACF_Q_MGR_ATTRS),
    _F.MQCMD_INQUIRE_Q_MGR_STATUS: _takes(_F.MQIACF_Q_MGR_STATUS_ATTRS),
    _F.MQCMD_CHANGE_Q_MGR: ATTRIBUTES,
    _F.MQCMD_RESET_Q_MGR: _takes(_F.MQIACF_ACTION, _C.MQCA_CHILD, _C.MQCA_PARENT),
    _F.MQCMD_REFRESH_Q_MGR: _takes(_F.MQIACF_REFRESH_TYPE, _F.MQIACF_OBJECT_TYPE,
                                   _F.MQCACF_OBJECT_NAME, _F.MQIACF_REFRESH_INTERVAL),
    _F.MQCMD_REFRESH_SECURITY: _takes(_F.MQIACF_SECURITY_TYPE),
    # channels
    _F.MQCMD_INQUIRE_CHANNEL: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACH_CHANNEL_TYPE,
                                     _F.MQIACF_CHANNEL_ATTRS),
    _F.MQCMD_INQUIRE_CHANNEL_NAMES: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACH_CHANNEL_TYPE),
    _F.MQCMD_INQUIRE_CHANNEL_STATUS: _takes(
        _F.MQCACH_CHANNEL_NAME, _F.MQIACH_CHANNEL_INSTANCE_TYPE,
        _F.MQIACH_CHANNEL_INSTANCE_ATTRS, _F.MQCACH_CONNECTION_NAME, _F.MQCACH_XMIT_Q_NAME,
        _F.MQCACH_CLIENT_ID),
    _F.MQCMD_CREATE_CHANNEL: ATTRIBUTES, _F.MQCMD_CHANGE_CHANNEL: ATTRIBUTES,
    _F.MQCMD_COPY_CHANNEL: ATTRIBUTES,
    _F.MQCMD_DELETE_CHANNEL: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACH_CHANNEL_TABLE,
                                    _F.MQIACH_CHANNEL_TYPE),
    _F.MQCMD_START_CHANNEL: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACF_IGNORE_STATE),
    _F.MQCMD_STOP_CHANNEL: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACF_MODE,
                                  _F.MQIACH_CHANNEL_STATUS, _C.MQCA_Q_MGR_NAME,
                                  _F.MQCACH_CONNECTION_NAME, _F.MQIACF_IGNORE_STATE),
    _F.MQCMD_PING_CHANNEL: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACH_DATA_COUNT),
    _F.MQCMD_RESET_CHANNEL: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACH_MSG_SEQUENCE_NUMBER),
    _F.MQCMD_RESOLVE_CHANNEL: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACH_IN_DOUBT),
    _F.MQCMD_START_CHANNEL_LISTENER: _takes(_F.MQCACH_LISTENER_NAME),
    _F.MQCMD_STOP_CHANNEL_LISTENER: _takes(_F.MQCACH_LISTENER_NAME),
    _F.MQCMD_INQUIRE_LISTENER_STATUS: _takes(_F.MQCACH_LISTENER_NAME,
                                             _F.MQIACF_LISTENER_STATUS_ATTRS),
    # services
    _F.MQCMD_START_SERVICE: _takes(_C.MQCA_SERVICE_NAME, _F.MQIACF_IGNORE_STATE),
    _F.MQCMD_STOP_SERVICE: _takes(_C.MQCA_SERVICE_NAME, _F.MQIACF_IGNORE_STATE),
    _F.MQCMD_INQUIRE_SERVICE_STATUS: _takes(_C.MQCA_SERVICE_NAME,
                                            _F.MQIACF_SERVICE_STATUS_ATTRS),
    # connections
    _F.MQCMD_INQUIRE_CONNECTION: _takes(_F.MQBACF_CONNECTION_ID,
                                        _F.MQBACF_GENERIC_CONNECTION_ID,
                                        _F.MQIACF_CONN_INFO_TYPE, _F.MQIACF_CONNECTION_ATTRS),
    _F.MQCMD_STOP_CONNECTION: _takes(_F.MQBACF_CONNECTION_ID),
    # security
    _F.MQCMD_SET_AUTH_REC: _takes(_F.MQCACF_AUTH_PROFILE_NAME, _F.MQIACF_OBJECT_TYPE,
                                  _F.MQIACF_AUTH_ADD_AUTHS, _F.MQIACF_AUTH_REMOVE_AUTHS,
                                  _F.MQCACF_SERVICE_COMPONENT, *_ENTITIES),
    _F.MQCMD_DELETE_AUTH_REC: _takes(_F.MQCACF_AUTH_PROFILE_NAME, _F.MQIACF_OBJECT_TYPE,
                                     _F.MQCACF_SERVICE_COMPONENT, *_ENTITIES),
    _F.MQCMD_INQUIRE_AUTH_RECS: _takes(_F.MQIACF_AUTH_OPTIONS, _F.MQCACF_AUTH_PROFILE_NAME,
                                       _F.MQIACF_OBJECT_TYPE, _F.MQCACF_ENTITY_NAME,
                                       _F.MQIACF_ENTITY_TYPE, _F.MQIACF_AUTH_PROFILE_ATTRS,
                                       _F.MQCACF_SERVICE_COMPONENT),
    _F.MQCMD_INQUIRE_ENTITY_AUTH: _takes(_F.MQIACF_AUTH_OPTIONS, _F.MQCACF_ENTITY_NAME,
                                         _F.MQIACF_ENTITY_TYPE, _F.MQIACF_OBJECT_TYPE,
                                         _F.MQCACF_OBJECT_NAME, _F.MQIACF_AUTH_PROFILE_ATTRS,
                                         _F.MQCACF_SERVICE_COMPONENT),
    _F.MQCMD_SET_CHLAUTH_REC: ATTRIBUTES,
    _F.MQCMD_INQUIRE_CHLAUTH_RECS: _takes(_F.MQCACH_CHANNEL_NAME, _F.MQIACF_CHLAUTH_TYPE,
                                          _F.MQIACH_MATCH, _F.MQIACF_CHLAUTH_ATTRS,
                                          *_CHLAUTH_RUNCHECK),
    # clusters
    _F.MQCMD_INQUIRE_CLUSTER_Q_MGR: _takes(_C.MQCA_CLUSTER_Q_MGR_NAME, _C.MQCA_CLUSTER_NAME,
                                           _F.MQCACH_CHANNEL_NAME,
                                           _F.MQIACF_CLUSTER_Q_MGR_ATTRS),
    _F.MQCMD_SUSPEND_Q_MGR_CLUSTER: _takes(_C.MQCA_CLUSTER_NAME, _C.MQCA_CLUSTER_NAMELIST,
                                           _F.MQIACF_MODE),
    _F.MQCMD_RESUME_Q_MGR_CLUSTER: _takes(_C.MQCA_CLUSTER_NAME, _C.MQCA_CLUSTER_NAMELIST),
    _F.MQCMD_REFRESH_CLUSTER: _takes(_C.MQCA_CLUSTER_NAME, _F.MQIACF_REFRESH_REPOSITORY),
    _F.MQCMD_RESET_CLUSTER: _takes(_C.MQCA_CLUSTER_NAME, _F.MQIACF_ACTION, _C.MQCA_Q_MGR_NAME,
                                   _C.MQCA_Q_MGR_IDENTIFIER, _F.MQIACF_REMOVE_QUEUES),
    # publish/subscribe
    _F.MQCMD_CREATE_SUBSCRIPTION: ATTRIBUTES, _F.MQCMD_CHANGE_SUBSCRIPTION: ATTRIBUTES,
    _F.MQCMD_DELETE_SUBSCRIPTION: _takes(_F.MQCACF_SUB_NAME, _F.MQBACF_SUB_ID),
    _F.MQCMD_INQUIRE_SUBSCRIPTION: _takes(_F.MQCACF_SUB_NAME, _F.MQBACF_SUB_ID,
                                          _F.MQIACF_SUB_TYPE, _F.MQIACF_DURABLE_SUBSCRIPTION,
                                          _F.MQIACF_SUB_ATTRS),
    _F.MQCMD_INQUIRE_SUB_STATUS: _takes(_F.MQCACF_SUB_NAME, _F.MQBACF_SUB_ID,
                                        _F.MQIACF_SUB_TYPE, _F.MQIACF_DURABLE_SUBSCRIPTION,
                                        _F.MQIACF_SUB_STATUS_ATTRS),
    _F.MQCMD_INQUIRE_TOPIC_STATUS: _takes(_C.MQCA_TOPIC_STRING, _F.MQIACF_TOPIC_STATUS_TYPE,
                                          _F.MQIACF_TOPIC_STATUS_ATTRS),
    _F.MQCMD_INQUIRE_PUBSUB_STATUS: _takes(_F.MQIACF_PS_STATUS_TYPE,
                                           _F.MQIACF_PUBSUB_STATUS_ATTRS),
}
for _cmds, _table in (
        ((_F.MQCMD_INQUIRE_NAMELIST, _F.MQCMD_INQUIRE_NAMELIST_NAMES,
          _F.MQCMD_DELETE_NAMELIST, _F.MQCMD_CREATE_NAMELIST, _F.MQCMD_CHANGE_NAMELIST,
          _F.MQCMD_COPY_NAMELIST), _NAMELIST),
        ((_F.MQCMD_INQUIRE_PROCESS, _F.MQCMD_INQUIRE_PROCESS_NAMES, _F.MQCMD_DELETE_PROCESS,
          _F.MQCMD_CREATE_PROCESS, _F.MQCMD_CHANGE_PROCESS, _F.MQCMD_COPY_PROCESS), _PROCESS),
        ((_F.MQCMD_INQUIRE_LISTENER, 0, _F.MQCMD_DELETE_LISTENER, _F.MQCMD_CREATE_LISTENER,
          _F.MQCMD_CHANGE_LISTENER, _F.MQCMD_COPY_LISTENER), _LISTENER),
        ((_F.MQCMD_INQUIRE_AUTH_INFO, _F.MQCMD_INQUIRE_AUTH_INFO_NAMES,
          _F.MQCMD_DELETE_AUTH_INFO, _F.MQCMD_CREATE_AUTH_INFO, _F.MQCMD_CHANGE_AUTH_INFO,
          _F.MQCMD_COPY_AUTH_INFO), _AUTHINFO),
        ((_F.MQCMD_INQUIRE_SERVICE, 0, _F.MQCMD_DELETE_SERVICE, _F.MQCMD_CREATE_SERVICE,
          _F.MQCMD_CHANGE_SERVICE, _F.MQCMD_COPY_SERVICE), _SERVICE),
        ((_F.MQCMD_INQUIRE_TOPIC, _F.MQCMD_INQUIRE_TOPIC_NAMES, _F.MQCMD_DELETE_TOPIC,
          _F.MQCMD_CREATE_TOPIC, _F.MQCMD_CHANGE_TOPIC, _F.MQCMD_COPY_TOPIC), _TOPIC)):
    _inquire, _names, _delete, *_changes = _cmds
    TAKES[_inquire] = _table["inquire"]
    if _names:
        TAKES[_names] = _table["names"]
    TAKES[_delete] = _table["delete"]
    TAKES.update(dict.fromkeys(_changes, ATTRIBUTES))


#: command -> attributes of its answer a filter may not name (IBM's DISPLAY lists the
#: keywords its WHERE may not use: for DISPLAY QSTATUS, QTIME among them)
NOT_FILTERED: dict[int, frozenset[int]] = {
    _F.MQCMD_INQUIRE_Q_STATUS: _takes(_F.MQIACF_Q_TIME_INDICATOR, _F.MQIACF_Q_STATUS_TYPE,
                                      _F.MQIACF_OPEN_TYPE),
}


def check_parameters(msg: pcf.PCFMessage) -> None:
    """Refuse a parameter the request's command does not take, or a filter on an attribute
    it cannot filter: MQRCCF_<structure>_PARM_ID_ERROR naming it. A command with no table
    here, or whose handler checks its parameters itself, is not checked."""
    command = msg.header.Command
    takes = TAKES.get(command)
    unfiltered = NOT_FILTERED.get(command, frozenset())
    for p in msg.params:
        if isinstance(p, pcf.FILTERS):
            refused = p.Parameter in unfiltered
        else:
            refused = takes is not None and p.Parameter not in takes
        if refused:
            raise Refused(pcfmap.parm_id_error(p), p.Parameter)
