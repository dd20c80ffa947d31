"""Given a connection's message handles, when the MQI's handle calls run, then handles,
structures and buffers behave as IBM documents."""

import pytest

from mqpy import CMQC
from mqpy.properties.errors import PropertyError
from mqpy.properties.handles import MessageHandleTable
from mqpy.structs.propstructs import BMHO, CMHO, DMHO, DMPO, IMPO, MHBO, PD, SMPO
from mqpy.structs.tables import MD

T = CMQC


def reason(call, *args, **kw):
    with pytest.raises(PropertyError) as err:
        call(*args, **kw)
    return err.value.reason


def test_given_the_structures_then_ibms_lengths_and_defaults():
    assert [len(s().pack()) for s in (CMHO, DMHO, DMPO, MHBO, BMHO, SMPO, IMPO, PD)] == \
        [12, 12, 12, 12, 12, 20, 64, 24]
    assert PD().CopyOptions == T.MQCOPY_DEFAULT and PD().Support == T.MQPD_SUPPORT_OPTIONAL
    assert IMPO().RequestedCCSID == T.MQCCSI_APPL and SMPO().ValueCCSID == T.MQCCSI_APPL
    assert IMPO.from_bytes(IMPO(Options=8).pack()).Options == 8


def test_given_crtmh_then_a_usable_handle_and_dltmh_returns_none():
    table = MessageHandleTable()
    h = table.crtmh(CMHO())
    assert h not in (T.MQHM_NONE, T.MQHM_UNUSABLE_HMSG)
    table.setmp(h, "a", 1, T.MQTYPE_INT32)
    assert table.inqmp(h, "a").value == 1
    assert table.dltmh(h, DMHO()) == T.MQHM_NONE
    assert reason(table.inqmp, h, "a") == T.MQRC_HMSG_ERROR


@pytest.mark.parametrize("call", ["crtmh", "dltmh"])
def test_given_bad_options_or_structures_then_their_errors(call):
    table = MessageHandleTable()
    h = table.crtmh()
    if call == "crtmh":
        assert reason(table.crtmh, CMHO(Options=4)) == T.MQRC_CMHO_ERROR
        assert reason(table.crtmh, CMHO(Version=2)) == T.MQRC_CMHO_ERROR
        assert reason(table.crtmh, DMHO()) == T.MQRC_CMHO_ERROR
    else:
        assert reason(table.dltmh, h, DMHO(Options=1)) == T.MQRC_DMHO_ERROR
        assert reason(table.dltmh, 12345) == T.MQRC_HMSG_ERROR


def test_given_a_handle_in_use_then_msg_handle_in_use():
    table = MessageHandleTable()
    h = table.crtmh()
    table.in_use.add(h)
    assert reason(table.dltmh, h) == T.MQRC_MSG_HANDLE_IN_USE


def test_given_no_validation_then_any_name_is_set():
    table = MessageHandleTable()
    h = table.crtmh(CMHO(Options=T.MQCMHO_NO_VALIDATION))
    table.setmp(h, "NULL", 1, T.MQTYPE_INT32)
    assert reason(table.setmp, table.crtmh(), "NULL", 1, T.MQTYPE_INT32) == \
        T.MQRC_PROPERTY_NAME_ERROR


def test_given_bad_smpo_pd_impo_dmpo_then_their_errors():
    table = MessageHandleTable()
    h = table.crtmh()
    assert reason(table.setmp, h, "a", 1, T.MQTYPE_INT32, smpo=SMPO(Version=2)) == T.MQRC_SMPO_ERROR
    assert reason(table.setmp, h, "a", 1, T.MQTYPE_INT32, pd=PD(Options=1)) == T.MQRC_PD_ERROR
    assert reason(table.inqmp, h, "a", impo=IMPO(StrucId=b"XXXX")) == T.MQRC_IMPO_ERROR
    assert reason(table.dltmp, h, "a", DMPO(Version=3)) == T.MQRC_DMPO_ERROR


def test_given_inqmp_then_impo_and_pd_are_filled():
    table = MessageHandleTable()
    h = table.crtmh()
    table.setmp(h, "a", "x", T.MQTYPE_STRING, pd=PD(Context=T.MQPD_USER_CONTEXT))
    impo, pd = IMPO(), PD()
    table.inqmp(h, "a", impo=impo, pd=pd)
    assert pd.Context == T.MQPD_USER_CONTEXT and impo.ReturnedNameVSLength == 1
    assert impo.ReturnedCCSID == 1208


def test_given_mhbuf_then_bufmh_gives_the_properties_back():
    table = MessageHandleTable()
    h = table.crtmh()
    table.setmp(h, "colour", "red", T.MQTYPE_STRING)
    table.setmp(h, "n", None, T.MQTYPE_NULL)
    md = MD(Format=T.MQFMT_STRING)
    header = table.mhbuf(h, "%", MHBO(), md)
    assert md.Format == T.MQFMT_RF_HEADER_2 and header[:4] == T.MQRFH_STRUC_ID
    h2 = table.crtmh()
    md2 = MD(Format=T.MQFMT_RF_HEADER_2, Encoding=md.Encoding)
    rest = table.bufmh(h2, header + b"body", md2, BMHO())
    assert rest == b"body" and md2.Format == T.MQFMT_STRING
    assert [(p.name, p.value) for p in table.properties(h2)] == [("colour", "red"), ("n", None)]


def test_given_mhbuf_delete_properties_then_the_handle_loses_them():
    table = MessageHandleTable()
    h = table.crtmh()
    table.setmp(h, "a", 1, T.MQTYPE_INT32)
    table.setmp(h, "b", 2, T.MQTYPE_INT32)
    table.mhbuf(h, "a", MHBO(Options=T.MQMHBO_PROPERTIES_IN_MQRFH2 | T.MQMHBO_DELETE_PROPERTIES))
    assert [p.name for p in table.properties(h)] == ["b"]
    assert reason(table.mhbuf, h, "%", MHBO(Options=0)) == T.MQRC_MHBO_ERROR


def test_given_bufmh_without_delete_then_the_buffer_is_unchanged():
    table = MessageHandleTable()
    h = table.crtmh()
    table.setmp(h, "a", 1, T.MQTYPE_INT32)
    buf = table.mhbuf(h, "%", md=MD(Format=T.MQFMT_NONE)) + b"x"
    h2 = table.crtmh()
    md = MD(Format=T.MQFMT_RF_HEADER_2)
    assert table.bufmh(h2, buf, md, BMHO(Options=0)) == buf
    assert md.Format == T.MQFMT_RF_HEADER_2  # it still describes the buffer
    assert table.inqmp(h2, "a").value == 1
    assert reason(table.bufmh, h2, buf, MD(Format=T.MQFMT_RF_HEADER_2), BMHO(Options=9)) == \
        T.MQRC_BMHO_ERROR


def test_given_a_broken_rfh2_then_bufmh_is_rfh_error():
    table = MessageHandleTable()
    h = table.crtmh()
    bad = T.MQRFH_STRUC_ID + b"\x02\x00\x00\x00" + b"\xff" * 40
    assert reason(table.bufmh, h, bad, MD(Format=T.MQFMT_RF_HEADER_2)) == T.MQRC_RFH_ERROR


def test_given_close_all_then_no_handles_remain():
    table = MessageHandleTable()
    table.crtmh()
    table.close_all()
    assert len(table) == 0
