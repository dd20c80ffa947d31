"""Given a message put with a message handle (MQPMO.OriginalMsgHandle), when it is got with
one (MQGMO.MsgHandle, MQGMO_PROPERTIES_IN_HANDLE), then the getter's handle holds the
properties and the data is the data put, in every mode; without a handle the properties come
as an MQRFH2 or not at all, as the MQGMO_PROPERTIES_* options and the queue's PROPCTL say."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.rfh2 import RFH2
from tests.mqi._modes import QUEUE


def _put_with(qm: mqpy.QueueManager, props: dict, data: bytes = b"body",
              md: mqpy.MD | None = None) -> mqpy.MD:
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    for name, (value, ptype) in props.items():
        handle.properties.set(name, value, property_type=ptype)
    pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    md = md if md is not None else mqpy.MD(Format=CMQC.MQFMT_STRING)
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    q.put(data, md, pmo)
    q.close()
    return md


def _get_with(qm: mqpy.QueueManager, options: int = CMQC.MQGMO_PROPERTIES_IN_HANDLE,
              max_length: int | None = None):
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=CMQC.MQGMO_NO_WAIT | options)
    gmo.MsgHandle = handle.msg_handle
    md = mqpy.MD()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    try:
        data = q.get(max_length, md, gmo)
    finally:
        q.close()
    return handle, md, data


def _get_plain(qm: mqpy.QueueManager, options: int = 0):
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT | options)
    md = mqpy.MD()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    try:
        return md, q.get(None, md, gmo)
    finally:
        q.close()


TYPED = {
    "colour": ("blue", CMQC.MQTYPE_STRING),
    "count": (42, CMQC.MQTYPE_INT32),
    "big": (-(2 ** 63), CMQC.MQTYPE_INT64),
    "flag": (True, CMQC.MQTYPE_BOOLEAN),
    "ratio": (2.5, CMQC.MQTYPE_FLOAT64),
    "blob": (b"\x00\x01\xff", CMQC.MQTYPE_BYTE_STRING),
}


def test_properties_put_with_a_handle_come_back_in_the_getters_handle(connect):
    qm = connect()
    try:
        _put_with(qm, TYPED)
        handle, md, data = _get_with(qm)
        assert data == b"body"
        assert md.Format == CMQC.MQFMT_STRING
        for name, (value, _ptype) in TYPED.items():
            assert handle.properties.get(name, max_value_length=100) == value
    finally:
        qm.disconnect()


def test_a_message_without_properties_leaves_the_getters_handle_empty(connect):
    qm = connect()
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        q.put(b"plain")
        q.close()
        handle, _md, data = _get_with(qm)
        assert data == b"plain"
        with pytest.raises(mqpy.MQMIError) as e:
            handle.properties.get("colour")
        assert e.value.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
    finally:
        qm.disconnect()


def test_without_a_handle_usr_properties_come_as_an_mqrfh2_on_a_compat_queue(connect):
    qm = connect()
    try:
        _put_with(qm, {"colour": ("blue", CMQC.MQTYPE_STRING)})
        md, data = _get_plain(qm)
        assert md.Format == CMQC.MQFMT_RF_HEADER_2
        header = RFH2()
        header.unpack(data, md.Encoding)
        assert b"<colour>blue</colour>" in header["usr"]
        assert header["Format"] == CMQC.MQFMT_STRING
        assert data[header["StrucLength"]:] == b"body"
    finally:
        qm.disconnect()


def test_no_properties_option_strips_them(connect):
    qm = connect()
    try:
        _put_with(qm, {"colour": ("blue", CMQC.MQTYPE_STRING)})
        md, data = _get_plain(qm, CMQC.MQGMO_NO_PROPERTIES)
        assert (md.Format, data) == (CMQC.MQFMT_STRING, b"body")
    finally:
        qm.disconnect()


def test_an_mqrfh2_put_by_the_application_comes_back_in_a_handle(connect):
    qm = connect()
    try:
        header = RFH2(Format=CMQC.MQFMT_STRING)
        header.add_folder(b"<usr><colour>red</colour></usr>")
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        q.put_rfh2(b"body", mqpy.MD(Format=CMQC.MQFMT_RF_HEADER_2), mqpy.PMO(), [header])
        q.close()
        handle, md, data = _get_with(qm)
        assert (data, md.Format) == (b"body", CMQC.MQFMT_STRING)
        assert handle.properties.get("colour") == "red"
    finally:
        qm.disconnect()


def test_a_buffer_too_short_counts_the_data_not_the_properties(connect):
    qm = connect()
    try:
        _put_with(qm, {"colour": ("blue" * 40, CMQC.MQTYPE_STRING)}, data=b"0123456789")
        handle, _md, data = _get_with(qm, max_length=10)
        assert data == b"0123456789"
        assert handle.properties.get("colour", max_value_length=200) == "blue" * 40
    finally:
        qm.disconnect()


def test_the_putters_mqmd_keeps_its_format(connect):
    qm = connect()
    try:
        md = _put_with(qm, {"colour": ("blue", CMQC.MQTYPE_STRING)})
        assert md.Format == CMQC.MQFMT_STRING
        assert md.MsgId != b"\x00" * 24
    finally:
        qm.disconnect()
