"""runmqlsr's channels under the operator's commands: each running runmqlsr answers the channel
initiator's STATUS, STOP and START for the channel instances it serves, as the channel
initiator's own listeners' instances answer them (IBM: runmqlsr's channels are the queue
manager's channels; DISPLAY CHSTATUS shows them, STOP CHANNEL stops them).

The registry is the queue-manager directory itself: a runmqlsr binds
``runmqlsr.<pid>.sock`` there (mode 0600) while it runs and removes it as it ends. The channel
initiator lists those sockets for each command and asks every one (:func:`ask_listeners`);
one that refuses the connection, or is gone, was left by a runmqlsr that was killed: it is
removed and logged, and the command goes on without it. So a runmqlsr started before the
channel initiator, or running while the channel initiator restarts, is found.

The frames are ``handoff.py``'s (a *command* each way), and so is the rule of who may ask:
only the queue manager's own user (SO_PEERCRED, :func:`handoff.peer_allowed`); the channel
initiator asks only a socket file of that user (no symbolic link, ``handoff``).

Neither side waits on the other beyond a bound: a runmqlsr answers a command at once (a
plain function of its state), so the channel initiator gives each :data:`ASK_TIMEOUT`
seconds, all asked at once, and a socket that accepts and says nothing holds DISPLAY CHSTATUS
and STOP CHANNEL up that long only; a runmqlsr reads a command for :data:`READ_TIMEOUT`
seconds and reads at most :data:`MAX_COMMANDS` at once: a connection beyond them ends the one
that has waited longest without a whole command (an asker sends its command at once, so a
flood of silent connections neither takes the runmqlsr's descriptors from its partners nor
keeps the channel initiator's commands out).

What a runmqlsr does with a command (:func:`command`) and how the channel initiator merges
the answers with its own (:func:`merged_status`, :func:`merged_stop`) are plain functions of
their arguments: no socket, no clock. A STOP is the channel initiator's own ``stop_channel``
run in the runmqlsr, so MODE, STATUS(INACTIVE|STOPPED), QMNAME and CONNAME mean there what
they mean in the channel initiator, and a STOPPED mark refuses the partner's next start there
too until START CHANNEL (forwarded as START) enables the channel again. The channel initiator
alone writes the states that outlive a restart (``statestore``); a runmqlsr reads the STOPPED
ones as it starts, and reads a channel's again before it refuses a partner for its mark
(:func:`confirm_stopped`), so that a START it missed does not leave the channel STOPPED
there. RESET and RESOLVE CHANNEL need nothing from a runmqlsr: the sync records
and in-doubt units of work they act on are the queue manager's.
"""

from __future__ import annotations

import glob
import os
import socket
from collections.abc import Callable, Iterable
from typing import Any

import trio

import mqpy
from mqpy import syncrecord
from mqpy.bindings import bind_address
from mqpy_chinit import handoff, svrconn
from mqpy_chinit.mca import mqi
from mqpy_chinit.states import ChannelEvent, ChannelState

__all__ = ["ASK_TIMEOUT", "MAX_COMMANDS", "PREFIX", "READ_TIMEOUT", "SUFFIX", "ask_listeners",
           "command", "confirm_stopped", "merged_status", "merged_stop", "registered", "serve", "socket_path"]

PREFIX = "runmqlsr."
SUFFIX = ".sock"
#: how long the channel initiator waits for a runmqlsr's answer (seconds)
ASK_TIMEOUT = 3.0
#: how long a runmqlsr waits for a command's bytes once connected (seconds)
READ_TIMEOUT = 3.0
#: the connections a runmqlsr reads commands from at once
MAX_COMMANDS = 32

LogFn = Callable[[str, str], None]
Reply = dict[str, Any]


def socket_path(qmdir: str, pid: int | None = None) -> str:
    """The control socket of the runmqlsr ``pid`` (default: this process)."""
    return os.path.join(qmdir, f"{PREFIX}{os.getpid() if pid is None else pid}{SUFFIX}")


def registered(qmdir: str) -> list[str]:
    """The control sockets in ``qmdir``: one per runmqlsr running (or killed, not yet
    cleaned up)."""
    return sorted(glob.glob(os.path.join(glob.escape(qmdir), f"{PREFIX}*{SUFFIX}")))


# ------------------------------------------------------------------ the runmqlsr's side (pure)


def _is_mark(row: dict[str, object]) -> bool:
    """A STOPPED mark (the channel's own status, not an instance's: no partner named). A
    STOP CHANNEL leaves one in every process it reaches; the channel initiator's is shown."""
    return row.get("STATUS") == "STOPPED" and not row.get("CONNAME") \
        and not row.get("RQMNAME")


def command(chinit: Any, request: dict[str, Any]) -> Reply:
    """A channel initiator's command for the runmqlsr whose ChannelInitiator is ``chinit``:
    STATUS (its instances as DISPLAY CHSTATUS rows; not its STOPPED marks), STOP
    (``stop_channel``, as the channel initiator runs it for its own) or START (a STOPPED
    mark here enabled again; nothing is started: a runmqlsr only answers its partners)."""
    verb = request.get("command")
    name = str(request.get("channel") or "")
    if verb == "STATUS":  # its instances; a STOPPED mark is the channel initiator's to show
        return {"ok": True, "status": [
            row for row in chinit.status_list(name or "*")
            if not _is_mark(row)]}
    if verb == "STOP":
        err = chinit.stop_channel(name, str(request.get("mode") or "QUIESCE"),
                                  str(request.get("status") or "STOPPED"),
                                  str(request.get("qmname") or ""),
                                  str(request.get("conname") or ""),
                                  str(request.get("chltype") or ""))
        return {"ok": err is None, "message": err or ""}
    if verb == "START":
        status = chinit.statuses.get(name)
        if status is not None and status.state is ChannelState.STOPPED \
                and name not in chinit.running:
            status.move(ChannelEvent.ENABLED)
        return {"ok": True, "message": ""}
    return {"ok": False, "message": f"AMQ8405E: unknown channel command {verb!r} for a "
                                    f"listener"}


async def confirm_stopped(chinit: Any, name: str) -> bool:
    """A runmqlsr about to refuse a partner of channel ``name`` for its STOPPED mark: whether
    the channel is still STOPPED, as the queue manager remembers it. A START CHANNEL this
    runmqlsr missed (hung, unreachable, or not yet listening on its socket when it came)
    has made the channel initiator forget the state: the mark is then enabled here, logged,
    and the partner served. The channel initiator's own mark, and a queue manager that
    cannot be asked, leave it STOPPED."""
    status = chinit.statuses.get(name)
    if status is None or status.state is not ChannelState.STOPPED:
        return False
    if chinit.remembers_states or name in chinit.running or svrconn.quiescing(chinit):
        return True  # (while the queue manager quiesces it takes no new connection)
    try:
        qm = await mqi(chinit.connect_qm)
        try:
            states = await mqi(syncrecord.read_states, qm)
        finally:
            await mqi(qm.disconnect)
    except mqpy.MQMIError:
        return True
    if states.get(name) == "STOPPED" or chinit.statuses.get(name) is not status \
            or status.state is not ChannelState.STOPPED:
        return status.state is ChannelState.STOPPED
    status.move(ChannelEvent.ENABLED)
    chinit.log("AMQ9999W", f"Channel '{name}' is no longer STOPPED here: a START CHANNEL "
               f"this listener missed had enabled it.")
    return False


# ------------------------------------------------------- the channel initiator's side (pure)


def merged_status(own: list[dict[str, object]], hosted: Iterable[Reply]
                  ) -> list[dict[str, object]]:
    """DISPLAY CHSTATUS: the channel initiator's rows, then each runmqlsr's (what is not a
    row is left out)."""
    return own + [row for reply in hosted for row in reply.get("status") or []
                  if isinstance(row, dict)]


def merged_stop(own: str | None, hosted: Iterable[Reply]) -> str | None:
    """STOP CHANNEL's answer: done if done here or by a runmqlsr. "Not currently active"
    (AMQ9533E, for QMNAME or CONNAME naming no instance here) is no failure when a runmqlsr
    stopped an instance they name."""
    if own is None:
        return None
    if own.startswith("AMQ9533E") and any(r.get("ok") for r in hosted):
        return None
    return own


# ------------------------------------------------------------------------------ the I/O


async def serve(chinit: Any, path: str, log: LogFn, *,
                task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """The runmqlsr's control socket at ``path``, until cancelled: removed as it ends. One
    that cannot be made (the directory not writable by this user) is logged, and the
    runmqlsr serves its partners without it: its channels are then not the operator's."""
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            # the socket's mode before it is bound: the file is made 0600 (a chmod of the
            # path after the bind would follow whatever link replaced it meanwhile)
            os.fchmod(listener.fileno(), 0o600)
            # bound under another name and renamed once it listens: a socket found under
            # its name is listening (the channel initiator, refused by one bound and not
            # yet listening, would remove it as a killed runmqlsr's)
            making = path + ".new"
            with bind_address(making) as address:
                if os.path.lexists(making):  # a pid reused: what a killed runmqlsr left
                    os.unlink(making)
                await listener.bind(address)
                listener.listen(16)
            os.rename(making, path)
        except OSError as exc:
            log("AMQ9999E", f"The listener's channels cannot be reached by DISPLAY CHSTATUS "
                f"and STOP CHANNEL: {os.path.basename(path)} could not be made "
                f"({exc.strerror or exc}).")
            task_status.started()
            return
        task_status.started()
        reading: dict[object, trio.CancelScope] = {}  # oldest first
        async with trio.open_nursery() as nursery:
            while True:
                try:
                    conn, _ = await listener.accept()
                except OSError as exc:  # out of descriptors, say: the listener goes on
                    log("AMQ9999E", f"{os.path.basename(path)} could not accept a channel "
                        f"command: {exc.strerror or exc}.")
                    await trio.sleep(0.1)
                    continue
                if len(reading) >= MAX_COMMANDS:  # the longest silent one ends
                    reading.pop(next(iter(reading))).cancel()
                key, scope = object(), trio.CancelScope()
                reading[key] = scope
                nursery.start_soon(_serve_command, chinit, conn, log, path,
                                   lambda key=key: reading.pop(key, None), scope)
    finally:
        listener.close()
        for made in (path, path + ".new"):
            try:
                os.unlink(made)
            except OSError:
                pass


async def _serve_command(chinit: Any, conn: Any, log: LogFn, path: str,
                         read: Callable[[], object], reading: trio.CancelScope) -> None:
    """One connection's command: read (``reading``, cancelled by a flood; ``read()`` once
    its command is whole), carried out and answered, each within its time."""
    fds: list[int] = []
    try:
        uid = handoff.peer_uid_of(conn)
        if not handoff.peer_allowed(uid):
            log("AMQ9999E", f"A connection to {os.path.basename(path)} from user id {uid} "
                f"was refused: only the queue manager's user may send channel commands.")
            return
        with reading, trio.fail_after(READ_TIMEOUT):
            kind, header, _ = await handoff.read_request(conn, fds)
        if reading.cancelled_caught:
            return
        read()
        with trio.fail_after(READ_TIMEOUT):
            if kind != b"C":
                reply: Reply = {"ok": False, "message": "AMQ8405E: a listener takes commands "
                                                        "only"}
            else:
                try:
                    reply = command(chinit, header)
                except Exception as exc:  # noqa: BLE001 - a command's fault, not the listener's
                    reply = {"ok": False, "message": f"AMQ9999E: {exc!r}"}
            await handoff.answer(conn, reply)
    except (OSError, ValueError, trio.TooSlowError) as exc:
        log("AMQ9999E", f"A channel command over {os.path.basename(path)} failed: {exc!r}.")
    finally:
        read()
        for fd in fds:
            os.close(fd)
        conn.close()


async def ask_listeners(qmdir: str, request: dict[str, Any], log: LogFn) -> list[Reply]:
    """Ask every runmqlsr registered in ``qmdir`` (at once): their replies. One that cannot
    be asked is logged and left out; a socket no process listens on any more (a runmqlsr
    killed) is removed."""
    paths = registered(qmdir)
    if not paths:
        return []
    replies: list[Reply] = []

    async def ask_one(path: str) -> None:
        try:
            replies.append(await handoff.ask(path, request, ASK_TIMEOUT))
        except handoff.NotListening as exc:
            try:
                os.unlink(path)
            except OSError:
                pass
            log("AMQ9999E", f"{os.path.basename(path)} was left by a listener (runmqlsr) "
                f"that has ended ({exc}): removed.")
        except handoff.HandOffFailed as exc:
            log("AMQ9999E", f"Channel command {request.get('command')} for "
                f"'{request.get('channel', '')}' did not reach the listener "
                f"{os.path.basename(path)}: {exc}.")

    async with trio.open_nursery() as nursery:
        for path in paths:
            nursery.start_soon(ask_one, path)
    return replies
