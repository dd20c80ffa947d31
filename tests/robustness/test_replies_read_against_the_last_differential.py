"""Whatever reply bytes a queue manager sends, an application's reading of them from the one
read that brings them (a bindings connection's ``bindings_calls._one_reply``, a client's
``ChannelInstance._one_reply`` and ``clientcalls``: ``mqpy.bindings_templates``, a reply
read against the last one; ``mqiflows.common_reply`` and ``mqpy.fap.fusedbodies``, a body
of the common form read in one go) gives exactly what the general reader gives (the segment
reader's event, ``mqiflows.decode_reply`` item by item), or steps aside having filled
nothing in; where the general reader refuses the reply, it steps aside.

The replies are MQPUT and MQGET replies of the common form, in runs as an application gets
them (the same structures with other ids, times and messages), changed as a hostile or
unusual queue manager changes them (``tests.support.mqi_mutations``: the TSH, the API
header's CompCode and Reason, MQMD and MQPMO / MQGMO fields and versions, DataLength and
the message's length beyond what came, cut short, extended). The same templates read a
whole run, so that a changed reply is read against the last and is then the last.
"""

from __future__ import annotations

import copy
import types

import attrs
import pytest
from hypothesis import strategies as st

import mqpy
from mqpy import CMQC, bindings, bindings_calls, bindings_templates, clientcalls
from mqpy.bindings_templates import Templates
from mqpy.clientinstance import ChannelInstance
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.mqicalls import copy_fields
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.support.mqi_mutations import MUTATIONS, mutated, run_examples
from tests.support.queue_contents import ServedExamples

_T = SegmentType
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED
_CONV = 1


def _md(i: int, **fields) -> mqpy.MD:
    """An MQMD as a queue manager returns it for message ``i``."""
    return mqpy.MD(MsgId=b"%024d" % i, CorrelId=b"c%023d" % i, PutDate=b"2026112%d" % (i % 10),
                   PutTime=b"%08d" % (i * 7), PutApplName=b"app", UserIdentifier=b"me",
                   **fields)


def _reply(kind: int, i: int, client: bool) -> tuple[SegmentType, bytes]:
    """Reply ``kind`` (modulo the forms there are) of message ``i``: its verb and segment
    (``client``: a client conversation's, a TSHM)."""
    gmo, pmo = mqpy.GMO, mqpy.PMO
    data = b"m%03d" % i
    forms = [
        (_T.MQPUT, [_md(i), pmo(ResolvedQName=b"Q", ResolvedQMgrName=b"QM")], _OK, 0),
        (_T.MQPUT, [_md(i, Version=1), pmo(Version=1)], _OK, 0),
        (_T.MQPUT, [_md(i), pmo(Version=3, ResolvedQName=b"Q")], _WARNING,
         CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM),
        (_T.MQGET, [_md(i), gmo(ResolvedQName=b"Q", MsgToken=b"%016d" % i,
                                ReturnedLength=len(data)), len(data), data], _OK, 0),
        (_T.MQGET, [_md(i), gmo(Version=2), len(data), data], _OK, 0),
        (_T.MQGET, [_md(i), gmo(Version=4, ResolvedQName=b"Q", ReturnedLength=2), 9, b"tr"],
         _WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED),
        (_T.MQGET, [_md(i), gmo(Version=4, ResolvedQName=b"Q", ReturnedLength=9), 9, b"tru"],
         _WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED),
        (_T.MQGET, [_md(i, Version=1), gmo(Version=1), 0, b""], _OK, 0),
        (_T.MQGET, [_md(i), gmo(), 9, b""], _FAILED, CMQC.MQRC_TRUNCATED_MSG_FAILED),
    ]
    verb, values, comp, reason = forms[kind % len(forms)]
    event = mqiflows.encode_reply(verb, values, comp=comp, reason=reason)
    if client:
        event = attrs.evolve(event, conv_id=_CONV, request_id=i + 1)
    return verb, SegmentWriter(bindings.MAX_TRANSMISSION_SIZE).send(event)


def _reader(client: bool) -> SegmentReader:
    """A new connection's segment reader (a client's: its partner known little-endian)."""
    reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE, max_msg_size=bindings.MAX_MSG_SIZE)
    if client:
        reader.partner_byte_order = ByteOrder.LITTLE
    return reader


def _client_reply(segment: bytes, verb: SegmentType, targets: tuple,
                  templates: Templates) -> object:
    """A client's reading of ``segment`` from the one read that brings it
    (``ChannelInstance._one_reply``, then ``PackedClientCalls._answer``'s: read against
    the last, or ``clientcalls._decoded``); None when it is the general reader's."""
    reply = ChannelInstance._one_reply(types.SimpleNamespace(reader=_reader(True)), segment,
                                       _CONV, mqiflows.reply_type(verb))
    if reply is None:
        return None
    try:
        decoded = templates.reply(verb, *reply[1:], targets) if reply[1] != _FAILED else None
        return decoded or clientcalls._decoded(verb, reply, targets)
    except Exception as exc:  # noqa: BLE001 - the refusal is the answer compared
        return ("refused", type(exc).__name__)


def _general(verb: SegmentType, segment: bytes, targets: tuple, client: bool) -> object:
    """What the general reader gives ``segment`` read whole: the segment reader's event
    decoded by ``decode_reply`` item by item (the fused reading off), into ``targets``
    unless it failed; or what it refuses it with."""
    reader = _reader(client)
    try:
        events = reader.feed(segment)
        if len(events) != 1 or reader.buffered:
            return ("not one reply", len(events), reader.buffered)
        event = events[0]
        if getattr(event, "segment_type", None) != mqiflows.reply_type(verb) \
                or (client and event.conv_id != _CONV):
            return ("another flow", type(event).__name__)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(mqiflows, "_FUSED_REPLIES", {})
            return mqiflows.decode_reply(event, reader.partner_byte_order,
                                         into=targets if event.comp != _FAILED else ())
    except Exception as exc:  # noqa: BLE001 - the refusal is the answer compared
        return ("refused", type(exc).__name__)


def _plain(decoded: object) -> object:
    """A decoded reply as plain values (structures as their fields)."""
    if not isinstance(decoded, mqiflows.Decoded):
        return decoded
    values = decoded.values
    if values is not None:
        values = tuple((type(v).__name__, dict(v.__dict__)) if hasattr(v, "__dict__") else v
                       for v in values)
    return (decoded.verb, decoded.comp, decoded.reason, decoded.hobj, values)


def _check(data: st.DataObject, client: bool) -> None:
    kinds = data.draw(st.lists(st.integers(0, 100), min_size=1, max_size=6), label="replies")
    templates = Templates()
    opts = {_T.MQPUT: (mqpy.PMO(), mqpy.PMO()), _T.MQGET: (mqpy.GMO(), mqpy.GMO())}
    for i, kind in enumerate(kinds):
        verb, segment = _reply(kind, i, client)
        change = data.draw(MUTATIONS, label=f"changes {i}")
        second = "PMO" if verb == _T.MQPUT else "GMO"
        segment = mutated(segment, change, second, (0, 5))
        ours, theirs = opts[verb]
        mine = (mqpy.MD(), ours)
        before = copy.deepcopy([s.__dict__ for s in mine])
        read = _client_reply if client else bindings_calls._one_reply
        got = read(segment, verb, mine, templates)
        yours = (mqpy.MD(), theirs)
        general = _general(verb, segment, yours, client)
        if got is None:  # stepped aside: nothing filled in; the general path reads it
            assert [s.__dict__ for s in mine] == before
            got = general
        else:
            assert _plain(got) == _plain(general)
        if not isinstance(general, mqiflows.Decoded):
            continue  # (refused: the connection ends)
        for targets, values in ((mine, got.values), (yours, general.values)):
            for dst, src in zip(targets, values or (), strict=False):  # as the caller
                copy_fields(dst, src)
        assert [s.__dict__ for s in mine] == [s.__dict__ for s in yours]


def _changed_replies(request, monkeypatch, client: bool, examples: int) -> None:
    """:func:`_check` on ``examples`` examples; the share of those in which a reply was
    read against the last asserted."""
    against = ServedExamples(monkeypatch, (bindings_templates, "read_against"))

    def check(data: st.DataObject) -> None:
        with against.fast_way():
            _check(data, client)

    run_examples(request, examples, check)
    assert against.served >= against.examples // 5, against


@pytest.mark.parametrize("client", [False, True], ids=["bindings", "client"])
def test_changed_replies_read_from_one_read_are_what_the_general_reader_gives(
        request, monkeypatch, client):
    """Given runs of MQPUT and MQGET replies of the common form, changed in their TSH, API
    header, structures, lengths or message, when an application reads each from the one
    read that brings it (against the last reply of its verb) and the general reader reads
    it, then the reading either steps aside having filled nothing in or gives what the
    general reader gives, which refuses none it reads; on a bindings connection and a
    client's (300 examples each, hypothesis' fixed seed); and a reply was read against
    the last in a fifth of the examples at least."""
    _changed_replies(request, monkeypatch, client, 300)


@pytest.mark.soak
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("client", [False, True], ids=["bindings", "client"])
def test_changed_replies_read_from_one_read_are_what_the_general_reader_gives_at_length(
        request, monkeypatch, client):
    """As above, 30,000 examples each (``make soak``)."""
    _changed_replies(request, monkeypatch, client, 30000)
