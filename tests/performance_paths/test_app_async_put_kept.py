"""An asynchronous MQPUT's request kept per object handle on the application's side
(``bindings_templates.Templates.kept_async_put``, ``bindings_calls.TemplatedCalls.
_put_async_packed``): sent again, with the identifiers ``asyncput.prepare`` would make,
only for structures whose fields are those it was packed from, of the same types; the
bytes sent and the MQMD left to the application are the packed path's own."""

from __future__ import annotations

import itertools
import random

import pytest

import mqpy
from mqpy import CMQC, asyncput, bindings, bindings_calls
from mqpy.bindings_templates import Templates
from tests.support.recording_socket import RecordingSocket

_ASYNC = CMQC.MQPMO_ASYNC_RESPONSE
_NEW_MSG_ID, _NEW_CORREL_ID = CMQC.MQPMO_NEW_MSG_ID, CMQC.MQPMO_NEW_CORREL_ID
#: the handle whose queue's DEFPRESP is ASYNC (MQPMO_RESPONSE_AS_Q_DEF puts are asynchronous)
_DEFPRESP_ASYNC = 9


def _forms() -> list:
    """Makers of (hobj, MQMD, MQPMO, message) of an asynchronous put, each a form an
    application puts again and again; the MQMD and MQPMO objects some share are made
    once (an application's reused structures)."""
    reused_md = mqpy.MD()
    reused_pmo = mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_NO_SYNCPOINT)
    both = mqpy.PMO(Options=_ASYNC | _NEW_MSG_ID | _NEW_CORREL_ID)
    # MQMDs put again with new identifiers: each holds those the put before made
    again_new, again_both = mqpy.MD(), mqpy.MD(Persistence=1)
    again_correl, again_viewed = mqpy.MD(MsgId=b"g" * 24), mqpy.MD()

    def viewed_again():
        again_viewed.__dict__["MsgId"] = memoryview(b"v" * 24)  # (made anew: not looked at)
        return 5, again_viewed, mqpy.PMO(Options=_ASYNC | _NEW_MSG_ID), b"viewed again"

    def other_type(field: str, value: object):
        def make():
            md = mqpy.MD()
            md.__dict__[field] = value  # (past the structure's own checks)
            return 5, md, mqpy.PMO(Options=_ASYNC), b"typed"
        return make

    def viewed():
        md = mqpy.MD()
        md.__dict__["Format"] = memoryview(md.Format)
        return 5, md, mqpy.PMO(Options=_ASYNC), b"viewed"

    return [
        lambda: (5, mqpy.MD(), reused_pmo, b"fresh"),  # a MsgId made each time
        lambda: (5, mqpy.MD(), reused_pmo, b"x" * 1000),  # another length, same request
        lambda: (5, mqpy.MD(), reused_pmo, b""),
        lambda: (5, mqpy.MD(), reused_pmo, b"L" * (bindings_calls.PACKED_LIMIT + 1)),
        lambda: (5, reused_md, reused_pmo, b"reused"),  # its MsgId made once, then its own
        lambda: (5, mqpy.MD(MsgId=b"given"), mqpy.PMO(Options=_ASYNC), b"short id"),
        lambda: (5, mqpy.MD(MsgId=b"I" * 24, CorrelId=b"C" * 24),
                 mqpy.PMO(Options=_ASYNC | _NEW_MSG_ID), b"new msg id"),
        lambda: (5, mqpy.MD(CorrelId=b"c"), mqpy.PMO(Options=_ASYNC | _NEW_CORREL_ID),
                 b"new correl id"),
        lambda: (5, mqpy.MD(Persistence=1), both, b"both"),
        lambda: (5, mqpy.MD(Version=1, Priority=7), mqpy.PMO(Options=_ASYNC, Version=1),
                 b"version 1"),
        lambda: (5, mqpy.MD(Format=CMQC.MQFMT_STRING), mqpy.PMO(Options=_ASYNC),
                 b"string"),
        lambda: (6, mqpy.MD(), mqpy.PMO(Options=_ASYNC | CMQC.MQPMO_SYNCPOINT), b"six"),
        lambda: (_DEFPRESP_ASYNC, mqpy.MD(), mqpy.PMO(), b"as q def"),
        lambda: (_DEFPRESP_ASYNC, mqpy.MD(), mqpy.PMO(Options=_NEW_CORREL_ID), b"def corr"),
        lambda: (5, mqpy.MD(), mqpy.PMO(Options=_ASYNC), b"plain"),  # (kept, for those next)
        lambda: (5, again_new, mqpy.PMO(Options=_ASYNC | _NEW_MSG_ID), b"again"),
        lambda: (5, again_both, both, b"again both"),
        lambda: (6, again_correl, mqpy.PMO(Options=_ASYNC | _NEW_CORREL_ID), b"again correl"),
        lambda: (5, again_new, mqpy.PMO(Options=_ASYNC | _NEW_CORREL_ID), b"again, given"),
        viewed_again,
        other_type("Priority", True),
        other_type("Priority", 0.0),
        other_type("Expiry", -1.0),
        viewed,
    ]


def _run(kept: bool, monkeypatch, order: list[int], forms=_forms) -> tuple[list, list, int]:
    """The puts of the forms in ``order`` on one connection, with kept requests or without
    (``kept``): the requests sent, each MQMD after its put (or the failure), and how many
    puts a kept request served."""
    monkeypatch.setattr(asyncput, "_COUNTER", itertools.count(1))  # the same ids each run
    served: list = []
    original = Templates.kept_async_put

    def counted(self, *args):
        found = original(self, *args) if kept else None
        served.append(found)
        return found

    monkeypatch.setattr(Templates, "kept_async_put", counted)
    conn = bindings.BindingsConnection(RecordingSocket(), "QM")
    conn._async_default = {_DEFPRESP_ASYNC}  # as an MQOPEN reply's FOPA says
    conn._flows.unanswered = -10 ** 6  # (no replies to read: none come)
    forms = forms()
    after = []
    for i in order:
        hobj, md, pmo, data = forms[i]()
        try:
            after.append(conn.put(hobj, md, pmo, data))
        except mqpy.MQMIError as e:
            after.append((e.comp, e.reason))
        except Exception as e:  # (a value no path packs: each path's own error)
            after.append((type(e).__name__, str(e)))
        after.append(dict(md.__dict__))
    return conn._sock.sent, after, len([s for s in served if s is not None])


def test_kept_asynchronous_puts_send_what_packing_each_sends(monkeypatch):
    """Given asynchronous puts of many forms, each again and again (ids made or given,
    MQPMO_NEW_MSG_ID / NEW_CORREL_ID, reused structures -- an MQMD put again with new ids,
    whose MsgId the last put made --, versions, lengths, a queue's DEFPRESP(ASYNC), values
    of another type), when put with kept requests and then with each packed, then the
    same bytes are sent and each MQMD is left the same, and kept requests served most of
    them."""
    order = [i for i in range(len(_forms())) for _ in range(4)]
    fast = _run(True, monkeypatch, order)
    packed = _run(False, monkeypatch, order)
    assert fast[:2] == packed[:2]
    assert packed[2] == 0
    assert fast[2] >= 2 * 19  # (each form of kept types, from its third put on at least)


@pytest.mark.parametrize("seed", range(3))
def test_kept_asynchronous_puts_in_any_order_send_what_packing_each_sends(monkeypatch,
                                                                           seed):
    """Given the same forms mixed at random (a kept request of one handle left for
    another's puts, a form coming back after others), when put with kept requests and with
    each packed, then the same bytes are sent and each MQMD is left the same."""
    rng = random.Random(seed)
    order = [rng.randrange(len(_forms())) for _ in range(300)]
    fast = _run(True, monkeypatch, order)
    packed = _run(False, monkeypatch, order)
    assert fast[:2] == packed[:2]
    assert fast[2] >= 30


def _one_mqmd(options: int):
    def forms() -> list:
        md = mqpy.MD(Persistence=1)
        return [lambda: (5, md, mqpy.PMO(Options=_ASYNC | options), b"m")]
    return forms


@pytest.mark.parametrize("options", [_NEW_MSG_ID, _NEW_CORREL_ID, _NEW_MSG_ID | _NEW_CORREL_ID])
def test_one_mqmd_put_again_with_new_ids_is_served_by_the_kept_request(monkeypatch, options):
    """Given one MQMD put again and again asynchronously with new identifiers (each put
    leaving in it those it made), when put with kept requests, then every put after the
    first two is made from the kept request, and the bytes sent and the MQMD left are
    packing's."""
    fast = _run(True, monkeypatch, [0] * 20, _one_mqmd(options))
    packed = _run(False, monkeypatch, [0] * 20, _one_mqmd(options))
    assert fast[:2] == packed[:2]
    assert fast[2] >= 18


def test_a_kept_asynchronous_put_is_kept_only_for_equal_fields_of_the_same_types():
    """Given an asynchronous put's request kept for a handle, when the next put's MQMD and
    MQPMO have the fields it was packed from, then it is found; for a field changed, or
    equal but of another type (True, 1.0, a memoryview), another handle, or a field that
    changes in place: not."""
    templates = Templates()
    md, pmo = mqpy.MD(Persistence=1), mqpy.PMO(Options=_ASYNC)
    prefix = mqpy.MD().pack()  # (where the MQMD is: checked)
    request = bytes(bindings_calls._HEADERS) + prefix + b"pmo and length"
    templates.keep_async_put(5, md.__dict__, pmo.__dict__, (True, False), 10, request)
    assert templates.kept_async_put(5, mqpy.MD(Persistence=1), mqpy.PMO(Options=_ASYNC)) \
        is templates.async_puts[5]
    boolean, floated, viewed = (mqpy.MD(Persistence=1) for _ in range(3))
    boolean.__dict__["Persistence"] = True
    floated.__dict__["Persistence"] = 1.0
    viewed.__dict__["CorrelId"] = memoryview(viewed.CorrelId)
    assert templates.kept_async_put(6, md, pmo) is None
    for other_md in (boolean, floated, viewed, mqpy.MD(Persistence=1, MsgId=b"given")):
        assert templates.kept_async_put(5, other_md, pmo) is None
    for other_pmo in (mqpy.PMO(), mqpy.PMO(Options=_ASYNC | _NEW_MSG_ID)):
        assert templates.kept_async_put(5, md, other_pmo) is None
    listed = mqpy.PMO(Options=_ASYNC)
    listed.ResponseRecPtr = []  # (a value that may change in place: never kept)
    templates.keep_async_put(7, md.__dict__, listed.__dict__, (True, False), 10, request)
    assert templates.kept_async_put(7, md, listed) is None
    templates.keep_async_put(8, md.__dict__, pmo.__dict__, (True, False), 10, b"x" * 300)
    assert templates.kept_async_put(8, md, pmo) is None  # (no MQMD where it should be)


@pytest.mark.parametrize("name", ["QM", "QM1", "A_VERY_LONG_QUEUE_MANAGER_NAME", "QMÉ", "QM€"])
def test_made_identifiers_are_amq_the_queue_managers_name_the_process_and_a_count(
        monkeypatch, name):
    """Given a queue manager's name (short, longer than 12 characters, characters
    Latin-1 lacks), when identifiers are made for it, twice, then each is AMQ, the name's
    first 12 characters padded, this process's 4 bytes and the next count: 24 bytes."""
    monkeypatch.setattr(asyncput, "_COUNTER", itertools.count(41))
    first, second = asyncput.new_id(name), asyncput.new_id(name)
    head = b"AMQ " + name[:12].ljust(12).encode("latin-1", "replace") + asyncput._PROCESS
    assert (first, second) == (head + (41).to_bytes(4, "big"), head + (42).to_bytes(4, "big"))
    assert len(first) == 24
