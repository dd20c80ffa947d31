"""REFRESH SECURITY TYPE(SSL) in a channel initiator: a fresh view of the key repository.

IBM's command (MQSC reference, "REFRESH SECURITY", usage notes, [M]) refreshes the cached
view of the key repository and updates every running TLS channel:

- sender, server and cluster-sender channels finish their current batch and then run the
  TLS handshake again with the refreshed repository. Python's ``ssl`` cannot redo a
  handshake inside a session, so mqpy ends such an instance after its batch (as STOP
  CHANNEL MODE(QUIESCE) STATUS(INACTIVE) does) and starts it again at once: a new
  connection, a new handshake;
- every other TLS channel (receivers, requesters, server-connection instances) is stopped as
  by STOP CHANNEL MODE(FORCE) STATUS(INACTIVE): its partner retries (a client reconnects)
  and its new handshake sees the refreshed repository.

The contexts built from the queue manager's SSLKEYR are dropped first
(``tlsstream.refresh``), so even an unchanged file is read again. Plain channels are not
touched. This module reaches into the channel initiator's running-instance tables; it owns
no state of its own.
"""

from __future__ import annotations

from typing import Any

import trio

from mqpy import amqmsgs
from mqpy.fap import channeldefs as D
from mqpy_chinit import svrconn, tlsstream
from mqpy_chinit.states import ChannelState

__all__ = ["refresh_ssl"]

#: channel types that finish their batch and handshake again (the others are stopped)
_REHANDSHAKE = ("SDR", "SVR", "CLUSSDR")


def _tls(definition: dict[str, object] | None) -> bool:
    return bool(definition) and bool(D.str_attr(definition, "SSLCIPH"))  # type: ignore[arg-type]


async def refresh_ssl(chinit: Any) -> dict[str, object]:
    """Refresh ``chinit``'s TLS (module docstring); the command's reply."""
    repository = await trio.to_thread.run_sync(chinit._key_repository)
    tlsstream.refresh(repository)
    restarted, stopped = [], []
    for name, mca in list(chinit.senders.items()):
        definition = getattr(mca, "definition", None)
        status = chinit.statuses.get(name)
        if not _tls(definition) or status is None:
            continue
        if D.str_attr(definition, "CHLTYPE") in _REHANDSHAKE:  # type: ignore[arg-type]
            status.stop_requested = "INACTIVE"
            mca.stop_requested.set()
            chinit.nursery.start_soon(_restart, chinit, name, definition,
                                      chinit.running.get(name))
            restarted.append(name)
    for (name, partner), (scope, _peer) in list(chinit.receivers.items()):
        definition = await trio.to_thread.run_sync(chinit.admin.channel, name)
        if _tls(definition):
            st = chinit.statuses.get((name, partner)) or chinit.statuses.get(name)
            if st is not None:
                st.stop_requested = "INACTIVE"
            scope.cancel()
            stopped.append(name)
    for name, scope in list(chinit.running.items()):
        st = chinit.statuses.get(name)
        if name in chinit.senders or st is None or st.chltype != "RQSTR":
            continue
        definition = await trio.to_thread.run_sync(chinit.admin.channel, name)
        if _tls(definition):
            st.stop_requested = "INACTIVE"
            scope.cancel()
            stopped.append(name)
    stopped += _stop_client_instances(chinit)
    for name in stopped:
        # IBM's message for a channel an operator's command closes (AMQ9534 is IBM's
        # "channel is currently not enabled", an E message for a refused start)
        chinit.log(amqmsgs.AMQ9528.msgid, f"User requested closure of channel '{name}'. "
                   f"REFRESH SECURITY TYPE(SSL) stopped it: its partner's next start uses "
                   f"the refreshed key repository.")
    return {"ok": True, "message": "", "restarted": restarted, "stopped": stopped}


def _stop_client_instances(chinit: Any) -> list[str]:
    """End the server-connection instances running over TLS (their clients reconnect)."""
    out = []
    for inst in svrconn.instances(chinit):
        nursery = getattr(inst, "nursery", None)
        if nursery is not None and tlsstream.is_tls(inst.conv.stream):
            nursery.cancel_scope.cancel()
            out.append(inst.name)
    return out


async def _restart(chinit: Any, name: str, definition: dict[str, object],
                   instance: Any) -> None:
    """Start ``name`` again once its quiesced instance (``instance``: its scope in
    ``chinit.running``) has ended (a new TLS handshake). If another instance is running by
    then (a second refresh's restart, START CHANNEL), that one stands: nothing waits on it."""
    while instance is not None and chinit.running.get(name) is instance:
        await trio.sleep(0.05)
    if name in chinit.running:
        return
    status = chinit.statuses.get(name)
    if status is None or status.state is ChannelState.STOPPED:
        return  # someone stopped it meanwhile: that stands
    status.stop_requested = ""
    err = chinit.start_channel(name, definition)
    if err is not None:
        chinit.log("AMQ9999E", f"Channel '{name}' could not be started again after REFRESH "
                   f"SECURITY TYPE(SSL): {err}")
