"""The channel state table (mqpy_chinit/states.py): each life a channel leads is a run of
events the table allows, an event the table does not allow in a state is refused, and no
product module changes a channel's state except through the table.

Pure tests: no sockets, no queue manager."""

from __future__ import annotations

import ast
import pathlib

import pytest

from mqpy_chinit.states import (
    TRANSITIONS,
    ChannelEvent,
    ChannelState,
    ChannelStateError,
    ChannelStatus,
)

E, S = ChannelEvent, ChannelState
ROOT = pathlib.Path(__file__).resolve().parents[2]
PRODUCT = [p for pkg in ("mqpy", "mqpy_chinit", "mqpy_cli")
           for p in sorted((ROOT / pkg).rglob("*.py"))]
STATES_PY = ROOT / "mqpy_chinit" / "states.py"

# Each life a channel leads in mqpy (spec: dqm-intercommunication behaviour numbers), as the
# events its code sends the table, and the state it ends in.
LIVES = {
    "a sender runs and ends at its disconnect interval (34)":
        ([E.START, E.BIND, E.NEGOTIATED, E.ENDED], S.INACTIVE),
    "a sender retries, then runs (37)":
        ([E.START, E.BIND, E.RETRY, E.BIND, E.RETRY, E.BIND, E.NEGOTIATED], S.RUNNING),
    "a sender's retries run out (37)":
        ([E.START, E.BIND, E.RETRY, E.BIND, E.STOP], S.STOPPED),
    "a sender ends on an error it cannot retry (38)":
        ([E.START, E.BIND, E.NEGOTIATED, E.STOP], S.STOPPED),
    "STOP CHANNEL MODE(QUIESCE) ends the batch, then stops (39)":
        ([E.START, E.BIND, E.NEGOTIATED, E.STOP_REQUESTED, E.STOP], S.STOPPED),
    "STOP CHANNEL MODE(FORCE) while retrying (39)":
        ([E.START, E.BIND, E.RETRY, E.STOP], S.STOPPED),
    "STOP CHANNEL while waiting in STARTING for an active slot (41)":
        ([E.START, E.STOP], S.STOPPED),
    "STOP CHANNEL STATUS(INACTIVE) MODE(FORCE) on a running sender":
        ([E.START, E.BIND, E.NEGOTIATED, E.STOPPED_INACTIVE], S.INACTIVE),
    "STOP CHANNEL STATUS(INACTIVE) on a retrying sender":
        ([E.START, E.BIND, E.RETRY, E.STOPPED_INACTIVE], S.INACTIVE),
    "a receiver pauses for message retry, then goes on (43)":
        ([E.START, E.BIND, E.NEGOTIATED, E.MESSAGE_RETRY, E.MESSAGE_RETRY_ENDED], S.RUNNING),
    "a receiver's partner goes while it waits for message retry":
        ([E.START, E.BIND, E.NEGOTIATED, E.MESSAGE_RETRY, E.ENDED], S.INACTIVE),
    "a receiver is replaced by a new start of its partner (51)":
        ([E.START, E.BIND, E.NEGOTIATED, E.ADOPTED], S.INACTIVE),
    "a receiver in message retry is replaced (51)":
        ([E.START, E.BIND, E.NEGOTIATED, E.MESSAGE_RETRY, E.ADOPTED], S.INACTIVE),
    "a receiver's negotiation fails":
        ([E.START, E.BIND, E.ENDED], S.INACTIVE),
    "a server its requester called is stopped when it has ended (26, 39)":
        ([E.START, E.BIND, E.NEGOTIATED, E.ENDED, E.STOP], S.STOPPED),
    "a requester's call fails and cannot be retried":
        ([E.START, E.BIND, E.STOP], S.STOPPED),
    "a server-connection instance is stopped":
        ([E.START, E.BIND, E.NEGOTIATED, E.STOP_REQUESTED], S.STOPPING),
    "STOP CHANNEL on a channel that is not running disables it":
        ([E.STOP], S.STOPPED),
    "a STOPPED state remembered at restart, then START CHANNEL (40)":
        ([E.RESTORED_STOPPED, E.START], S.STARTING),
    "START CHANNEL makes a STOPPED receiver available again":
        ([E.STOP, E.ENABLED], S.INACTIVE),
}


def live(events: list[ChannelEvent]) -> ChannelStatus:
    status = ChannelStatus("QM1.TO.QM2", "SDR")
    for event in events:
        status.move(event)
    return status


@pytest.mark.parametrize("name", LIVES)
def test_each_life_of_a_channel_is_allowed_by_the_table(name):
    """Given a new channel, when the events of one of its lives reach it, then the table
    allows each and the channel ends in that life's state, every change in its history."""
    events, final = LIVES[name]
    status = live(events)
    assert status.state is final
    assert status.history[-1] is final


def test_a_refused_event_names_the_event_the_state_and_the_channel():
    """Given a channel STOPPED, when it is told it negotiated, then ChannelStateError names
    the channel, the event and the state, and the status is left as it was."""
    status = live([E.STOP])
    with pytest.raises(ChannelStateError, match=r"QM1\.TO\.QM2.*NEGOTIATED.*STOPPED"):
        status.move(E.NEGOTIATED)
    assert status.state is S.STOPPED and status.history == [S.STOPPED]


@pytest.mark.parametrize(("events", "refused"), [
    ([], E.NEGOTIATED),                               # INACTIVE straight to RUNNING
    ([], E.ADOPTED),                                  # nothing running to adopt
    ([E.START, E.BIND, E.NEGOTIATED], E.RESTORED_STOPPED),  # restored only at restart
    ([E.START, E.BIND, E.NEGOTIATED], E.ENABLED),     # ENABLED is for a STOPPED one
    ([E.STOP], E.RETRY),                              # a STOPPED channel does not retry
    ([E.STOP], E.STOP),                               # STOP twice: the caller checks first
    ([E.START, E.BIND, E.RETRY], E.ENDED),            # a retrying channel never ends normally
])
def test_an_event_the_table_does_not_allow_raises(events, refused):
    """Given a channel in some state, when an event that state does not allow reaches it,
    then ChannelStateError is raised (a programming error, never ignored)."""
    status = live(events)
    before = status.state
    with pytest.raises(ChannelStateError):
        status.move(refused)
    assert status.state is before


def test_the_table_covers_every_state_and_each_is_reachable():
    """Every state has a row, and every state can be reached from INACTIVE."""
    assert set(TRANSITIONS) == set(ChannelState)
    seen, todo = {S.INACTIVE}, [S.INACTIVE]
    while todo:
        for new in TRANSITIONS[todo.pop()].values():
            if new not in seen:
                seen.add(new)
                todo.append(new)
    assert seen == set(ChannelState)


def test_start_stamps_the_channel_start_date_and_time():
    """CHSTADA/CHSTATI are set when the channel goes to STARTING."""
    status = live([E.START])
    assert status.start_date and status.start_time


def _events_moved_in(tree: ast.AST) -> set[str]:
    """The ChannelEvent members passed to ``.move(...)`` in a module."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "move":
            for arg in ast.walk(node):
                if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) \
                        and arg.value.id == "ChannelEvent":
                    found.add(arg.attr)
    return found


def test_every_event_the_code_sends_is_in_the_table():
    """Every ChannelEvent a product module moves a channel with is in the table, and the
    lives above use every event the code sends."""
    in_table = {event.name for row in TRANSITIONS.values() for event in row}
    used = set()
    for path in PRODUCT:
        source = path.read_text()
        if "ChannelEvent" in source:  # (one that never names it moves nothing: not parsed)
            used |= _events_moved_in(ast.parse(source, str(path)))
    assert used, "no module moves a channel: the search above is broken"
    assert used <= in_table
    assert used <= {event.name for events, _final in LIVES.values() for event in events}


#: The channel initiator's modules that move channels through the table, one MQ concept each.
CHANNEL_MOVERS = ("caller.py", "responder.py", "startstop.py", "statestore.py", "svrconn.py",
                  "sender_mca.py", "receiver_mca.py")


def test_the_scan_reads_every_module_of_the_channel_initiator_that_moves_a_channel():
    """Given the channel initiator split by concept (calling channels, responders, START and
    STOP CHANNEL, remembered states, SVRCONN instances, the MCAs), then each of its modules
    that moves a channel is among those the scans here read, and each is found moving one:
    a module added or renamed is not missed."""
    scanned = {path.relative_to(ROOT).as_posix() for path in PRODUCT}
    for name in CHANNEL_MOVERS:
        path = ROOT / "mqpy_chinit" / name
        assert path.relative_to(ROOT).as_posix() in scanned, name
        assert _events_moved_in(ast.parse(path.read_text(), str(path))), name


def _bypasses(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """Where a module changes a channel's state without the table: an assignment to a
    ``state`` or ``history`` attribute that names ChannelState (or, in the channel
    initiator's packages, to any ``.state``), a ``state=`` keyword naming ChannelState, or a
    change to a status ``history``."""
    source = path.read_text()
    if "state" not in source and "history" not in source:
        return []  # every change looked for below names one of them: nothing to parse
    tree = ast.parse(source, str(path))
    channel_pkg = path.relative_to(root).parts[0] in ("mqpy_chinit", "mqpy_cli")
    out = []

    def where(node: ast.AST) -> str:
        return f"{path.relative_to(root)}:{node.lineno}"

    def names_channel_state(node: ast.AST | None) -> bool:
        return node is not None and "ChannelState" in (ast.get_source_segment(source, node)
                                                        or "")

    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets, value = [node.target], node.value
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute) and t.attr in ("state", "history") \
                        and (channel_pkg or names_channel_state(value)):
                    out.append(where(node))
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "state" and names_channel_state(kw.value):
                    out.append(where(node))
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) \
                    and func.value.attr == "history" and func.attr in (
                        "append", "extend", "insert", "pop", "remove", "clear"):
                out.append(where(node))
            if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant) \
                    and node.args[1].value in ("state", "history"):
                out.append(where(node))
    return out


def test_no_module_changes_a_channel_state_outside_the_table():
    """Given the product code, then no module but states.py assigns a channel's state or
    history: every change goes through ChannelStatus.move and its table."""
    found = [hit for path in PRODUCT if path != STATES_PY for hit in _bypasses(path)]
    assert found == []


def test_the_bypass_search_finds_a_direct_assignment(tmp_path):
    """The search above is not blind: it reports ``status.state = ChannelState.X``, a
    ``history.append`` and a ``state=ChannelState.X`` keyword."""
    module = tmp_path / "bypass.py"
    module.write_text("def f(status, ChannelState, attrs):\n"
                      "    status.state = ChannelState.STOPPED\n"
                      "    status.history.append(ChannelState.STOPPED)\n"
                      "    attrs.evolve(status, state=ChannelState.INACTIVE)\n")
    assert len(_bypasses(module, tmp_path)) == 3
