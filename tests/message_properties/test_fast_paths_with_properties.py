"""Given a random mix of messages with and without properties, got with and without a message
handle and with each MQGMO_PROPERTIES_* option, when it runs once with the fast paths and once
with every call on the general path, then the application sees the same data, MQMDs and
properties; and every plain put and get (no properties, no handle) is still the fast path's:
a message without properties costs nothing extra."""

from __future__ import annotations

import random

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine import fastpath
from tests.mqi.test_fast_paths import _md_fields, _Served

_OPTIONS = (0, CMQC.MQGMO_NO_PROPERTIES, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2,
            CMQC.MQGMO_PROPERTIES_COMPATIBILITY, CMQC.MQGMO_PROPERTIES_IN_HANDLE)


def _properties(handle: mqpy.MessageHandle) -> list:
    out = []
    try:
        while True:
            out.append(handle.properties.get("%", max_value_length=100,
                                             impo_options=CMQC.MQIMPO_INQ_NEXT))
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
    return out


def _workload(root: str, seed: int, served: _Served) -> tuple[list, int]:
    """What the application saw, and how many plain calls the fast paths did not serve."""
    rnd = random.Random(seed)
    qm = mqpy.embedded("QM1", data_path=root)
    inprocess.running("QM1", root).define("QLOCAL", "Q1", {"PROPCTL": rnd.choice(
        ("COMPAT", "ALL", "NONE", "FORCE"))})
    out = mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT)
    inq = mqpy.Queue(qm, "Q1", CMQC.MQOO_INPUT_SHARED)
    seen: list = []
    ids: dict[bytes, int] = {}
    missed = 0
    try:
        for step in range(200):
            before = (served.puts, served.gets)
            plain = False
            if rnd.random() < 0.5:
                md = mqpy.MD(Format=CMQC.MQFMT_STRING)
                pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
                if rnd.random() < 0.5:
                    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
                    handle.properties.set(rnd.choice(("usr.a", "b", "mcd.Msd", "x.y")),
                                          step, property_type=CMQC.MQTYPE_INT32)
                    pmo.OriginalMsgHandle = handle.msg_handle
                else:
                    plain = True
                out.put(b"m%d" % step, md, pmo)
                seen.append(("put", _md_fields(md, ids)))
                missed += plain and served.puts == before[0]
                continue
            md, options = mqpy.MD(), rnd.choice(_OPTIONS)
            gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=CMQC.MQGMO_NO_WAIT | options)
            handle = None
            if rnd.random() < 0.5 and options != CMQC.MQGMO_NO_PROPERTIES:
                handle = mqpy.MessageHandle(qm, mqpy.CMHO())
                gmo.MsgHandle = handle.msg_handle
            try:
                data = inq.get(None, md, gmo)
            except mqpy.MQMIError as e:
                seen.append(("error", e.reason))
                continue
            seen.append(("get", data, _md_fields(md, ids),
                         handle and _properties(handle)))
    finally:
        inprocess.stop("QM1", root)
    return seen, missed


def test_fast_and_general_paths_agree_and_plain_messages_stay_fast(tmp_path, monkeypatch):
    served = _Served(monkeypatch)
    for seed in (1, 2):
        fast, missed = _workload(str(tmp_path / f"fast{seed}"), seed, served)
        assert missed == 0
        monkeypatch.setattr(fastpath, "ENABLED", False)
        general, _ = _workload(str(tmp_path / f"general{seed}"), seed, served)
        monkeypatch.setattr(fastpath, "ENABLED", True)
        assert fast == general
