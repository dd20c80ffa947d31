"""Who may come in: the channel initiator's questions to its queue manager's security policy.

The policy (CHLAUTH records, CONNAUTH, object authorities) lives in the queue manager
(``mqpy.security.policy``); the channel initiator is an MQI application of it and asks through its
*admin* object (``EngineAdmin`` in this process, the bindings socket's SPI otherwise):

- :meth:`ChannelAccess.address_allowed`: the listener's BLOCKADDR check, made before the first
  byte of a new connection is read. A blocked address is closed at once (the client's MQCONN
  fails with MQRC_Q_MGR_NOT_AVAILABLE, 2059) and AMQ9782E is logged.
- :meth:`ChannelAccess.decide`: the full CHLAUTH decision for a channel once its name and the
  partner's identity are known: a receiving message channel right after its INITIAL_DATA
  (QMGRMAP / ADDRESSMAP / BLOCKUSER against the channel's MCAUSER), a SVRCONN conversation at
  its MQCONN (``svrconn``). A refused message channel gets STATUS SECURITY_FAILURE; both log
  IBM's AMQ9776E / AMQ9777E text.
- :meth:`ChannelAccess.connect_for`: MQCONN on behalf of a client conversation, as the user
  CHLAUTH decided and with the client's MQCSP, so that CONNAUTH (CHCKCLNT) and the object
  authority manager judge the client, not the channel initiator.

An admin without these methods (an older test double) allows everything and connects as the
channel initiator itself: the behaviour of a queue manager without security.

Every CHLAUTH refusal (BLOCKADDR, USERSRC(NOACCESS), BLOCKUSER), and every channel a WARN(YES)
record would have refused, is told to :attr:`ChannelAccess.on_blocked` with its query and
decision: the channel initiator's channel events make a Channel Blocked event of it
(:func:`blocked_event`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import trio

import mqpy
from mqpy import CMQCFC, events
from mqpy.pcf import PCFMessage

__all__ = ["ChannelAccess", "blocked_event"]

#: a CHLAUTH refusal's message id -> its Channel Blocked reason qualifier (a refusal of
#: another kind -- a user name no MQ user id can be, a check that could not be made -- is
#: no Channel Blocked event)
_BLOCKED = {"AMQ9782E": CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS,
            "AMQ9776E": CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID,
            "AMQ9777E": CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS}


def blocked_event(qmgr: str, query: dict[str, object], decision: dict[str, object]
                  ) -> PCFMessage | None:
    """The Channel Blocked event (2577; 2578 for a WARN(YES) record that let the channel in)
    of a CHLAUTH ``decision`` on ``query`` (``decide``'s), or None if it blocked nothing."""
    qualifier = decision.get("reason_qualifier") or _BLOCKED.get(str(decision.get("msgid")))
    warning = bool(decision.get("allowed"))
    if not qualifier or (warning and not decision.get("warning")):
        return None
    if warning and qualifier == CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS \
            and not query.get("address_only"):
        return None  # the listener's BLOCKADDR check, made first, told this one already

    def q(key: str) -> str:
        return str(query.get(key) or "")

    client = "client_user" in query or "csp_user" in query  # a SVRCONN conversation's query
    # the user BLOCKUSER judged: the decision's when it says, else as far as the query tells
    # (the channel's MCAUSER, else the user the client flowed)
    blocked_user = str(decision.get("blocked_user") or q("mcauser") or q("client_user")
                       or q("csp_user"))
    return events.channel_blocked(
        qmgr, int(qualifier), q("address"), warning=warning, channel=q("channel"),
        user=blocked_user, remote_qmgr=q("remote_qmgr"), ssl_peer=q("ssl_peer"),
        client_user=(q("client_user") or q("csp_user")) if client else "",
        appl_name=q("appl") if client else "")

_ALLOWED: dict[str, object] = {"allowed": True, "user": "", "msgid": "AMQ9783I", "text": "",
                               "warning": False}


class ChannelAccess:
    def __init__(self, admin: Any, connect_qm: Callable[[], Any],
                 connect_for: Callable[[Any, str], Any] | None,
                 log: Callable[[str, str], None]) -> None:
        self.admin = admin
        self.connect_qm = connect_qm
        self._connect_for = connect_for or getattr(admin, "connect_for", None)
        self.log = log
        #: told (query, decision) of every channel CHLAUTH blocked, or would have blocked
        #: but for WARN(YES); it neither blocks nor raises
        self.on_blocked: Callable[[dict[str, object], dict[str, object]], None] | None = None

    async def decide(self, query: dict[str, object]) -> dict[str, object]:
        """The CHLAUTH decision for ``query`` (keys: ``mqpy.security.policy.channel_decision``).

        If the queue manager cannot be asked, the channel is refused (never let in blind). A
        block (or a WARN(YES) record's warning) is told to :attr:`on_blocked`."""
        d = await self._decide(query)
        if self.on_blocked is not None and (not d["allowed"] or d.get("warning")):
            self.on_blocked(query, d)
        return d

    async def _decide(self, query: dict[str, object]) -> dict[str, object]:
        ask = getattr(self.admin, "channel_decision", None)
        if ask is None:
            return dict(_ALLOWED, user=str(query.get("mcauser") or
                                           query.get("client_user") or ""))
        try:
            return await trio.to_thread.run_sync(ask, query)
        except mqpy.MQMIError as e:
            why = f"reason {e.reason}"
        except Exception as exc:  # noqa: BLE001 - any fault in the check refuses, never lets in
            why = f"{type(exc).__name__}: {exc}"
        return {"allowed": False, "user": "", "msgid": "AMQ9999E",
                "text": f"Channel '{query.get('channel', '')}' from "
                        f"{query.get('address', '')} refused: its channel authentication "
                        f"could not be checked ({why}).", "warning": False}

    async def address_allowed(self, address: str) -> bool:
        """BLOCKADDR, before anything is read from ``address``; logs AMQ9782E if blocked."""
        if not address or not hasattr(self.admin, "channel_decision"):
            return True
        d = await self.decide({"address_only": True, "address": address})
        if not d["allowed"]:
            self.log(str(d["msgid"]), str(d["text"]))
        return bool(d["allowed"])

    async def connect_for(self, security: Any, appl: str = "") -> Any:
        """MQCONN for a client conversation: an async connection when ``connect_for`` is a
        coroutine function (``mqpy_chinit.qmconn``), else a blocking one made on a thread."""
        if self._connect_for is None:
            return await trio.to_thread.run_sync(self.connect_qm)
        if inspect.iscoroutinefunction(self._connect_for):
            return await self._connect_for(security, appl)
        return await trio.to_thread.run_sync(self._connect_for, security, appl)

