"""MQI structures: IBM's lengths and offsets, defaults, pymqi's interface, round trips."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqpy import CMQC, CMQXC
from mqpy.structs.fields import StructError, byte_order
from mqpy.structs.mqstruct import MQStruct
from mqpy.structs.tables import CD, DLH, GMO, MD, OD, PMO, SCO, TM, TMC2, XQH

ALL = [MD, OD, PMO, GMO, XQH, DLH, TM, TMC2, CD, SCO]
LE = CMQC.MQENC_NATIVE  # 546: integers reversed (little-endian)
BE = CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL

# (structure, constant prefix, module, versions) -> lengths must equal IBM's *_LENGTH_n.
LENGTHS = [
    (MD, "MQMD", CMQC, [1, 2]),
    (OD, "MQOD", CMQC, [1, 2, 3, 4]),
    (PMO, "MQPMO", CMQC, [1, 2, 3]),
    (GMO, "MQGMO", CMQC, [1, 2, 3, 4]),
    (XQH, "MQXQH", CMQC, [1]),
    (DLH, "MQDLH", CMQC, [1]),
    (TM, "MQTM", CMQC, [1]),
    (TMC2, "MQTMC2", CMQC, [1, 2]),
    (CD, "MQCD", CMQXC, list(range(1, 13))),
    (SCO, "MQSCO", CMQC, [1, 2, 3, 4, 5, 6, 7]),
]


def _version(obj):
    return obj._layout_version()


@pytest.mark.parametrize(("cls", "prefix", "module", "versions"), LENGTHS)
def test_lengths_equal_ibm_length_constants(cls, prefix, module, versions):
    """Given each version of a structure, then its length is IBM's *_LENGTH_n (64-bit)."""
    for v in versions:
        expected = getattr(module, f"{prefix}_LENGTH_{v}")
        assert cls.length(v) == expected, (prefix, v)
        assert cls.construct(v).sizeof() == expected, (prefix, v)
        assert cls.construct(v, BE).sizeof() == expected, (prefix, v)
    assert cls._layout_.max_version == versions[-1]


def test_xqh_is_104_bytes_plus_mqmd_v1():
    """Given MQXQH, then it is 104 bytes of header then a 324-byte MQMD v1 (428 in all)."""
    assert XQH.length() == CMQC.MQXQH_LENGTH_1 == 104 + CMQC.MQMD_LENGTH_1


MD_OFFSETS = {
    "StrucId": 0, "Version": 4, "Report": 8, "MsgType": 12, "Expiry": 16, "Feedback": 20,
    "Encoding": 24, "CodedCharSetId": 28, "Format": 32, "Priority": 40, "Persistence": 44,
    "MsgId": 48, "CorrelId": 72, "BackoutCount": 96, "ReplyToQ": 100, "ReplyToQMgr": 148,
    "UserIdentifier": 196, "AccountingToken": 208, "ApplIdentityData": 240,
    "PutApplType": 272, "PutApplName": 276, "PutDate": 304, "PutTime": 312,
    "ApplOriginData": 320, "GroupId": 324, "MsgSeqNumber": 348, "Offset": 352,
    "MsgFlags": 356, "OriginalLength": 360,
}
DLH_OFFSETS = {
    "StrucId": 0, "Version": 4, "Reason": 8, "DestQName": 12, "DestQMgrName": 60,
    "Encoding": 108, "CodedCharSetId": 112, "Format": 116, "PutApplType": 124,
    "PutApplName": 128, "PutDate": 156, "PutTime": 164,
}
XQH_OFFSETS = {"StrucId": 0, "Version": 4, "RemoteQName": 8, "RemoteQMgrName": 56,
               "MsgDesc": 104}


@pytest.mark.parametrize(
    ("cls", "table"), [(MD, MD_OFFSETS), (DLH, DLH_OFFSETS), (XQH, XQH_OFFSETS)]
)
def test_offsets_match_wire_format(cls, table):
    """Given wire-format.md's offset tables, then every field sits at its documented offset."""
    assert [f.name for f in cls._layout_.fields] == list(table)
    for name, offset in table.items():
        assert cls.offset_of(name) == offset, name


def test_packed_bytes_land_at_documented_offsets():
    """Given an MD with marker values, when packed, then the bytes are where Wireshark reads them."""
    md = MD(MsgId=b"M" * 24, PutApplName="app", GroupId=b"G" * 24, Priority=7,
            OriginalLength=99)
    b = md.pack(LE)
    assert b[48:72] == b"M" * 24
    assert b[276:304] == b"app".ljust(28)
    assert b[324:348] == b"G" * 24
    assert int.from_bytes(b[40:44], "little") == 7
    assert int.from_bytes(md.pack(BE)[40:44], "big") == 7
    assert b[360:364] == (99).to_bytes(4, "little")
    x = XQH(RemoteQName="TARGET.Q", RemoteQMgrName="QM2", MsgDesc=MD(Version=1, MsgId=b"I"))
    xb = x.pack()
    assert xb[8:56] == b"TARGET.Q".ljust(48) and xb[56:104] == b"QM2".ljust(48)
    assert xb[104:108] == b"MD  " and xb[104 + 48] == ord("I")
    d = DLH(Reason=CMQC.MQRC_Q_FULL, DestQName="Q", PutTime="12345678").pack()
    assert d[:4] == b"DLH " and int.from_bytes(d[8:12], "little") == 2053
    assert d[12:60] == b"Q".ljust(48) and d[164:172] == b"12345678"


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("encoding", [LE, BE])
def test_round_trip_every_structure_both_byte_orders(cls, encoding):
    """Given a default structure, when packed and unpacked in one byte order, then it is equal,
    and construct's declaration parses and rebuilds the same bytes."""
    obj = cls()
    data = obj.pack(encoding)
    assert len(data) == obj.packed_size()
    back = cls.from_bytes(data, encoding)
    assert back == obj
    assert back.pack(encoding) == data
    declared = cls.construct(_version(obj), encoding)
    assert declared.build(declared.parse(data)) == data


@pytest.mark.parametrize("cls", [MD, OD, PMO, GMO, DLH, TM, CD, SCO])
def test_construct_and_fast_path_agree_on_integers(cls):
    """Given a structure whose integers differ by byte order, then the hot path (struct) and
    the declaration (construct) agree field by field in both orders."""
    obj = cls()
    for encoding in (LE, BE):
        parsed = cls.construct(_version(obj), encoding).parse(obj.pack(encoding))
        for name, value in obj.get().items():
            if name in parsed and not name.endswith("Ptr"):
                assert parsed[name] == obj._layout_.by_name[name].canonical(value) or (
                    list(parsed[name]) == list(value)), name
    assert obj.pack(LE) != obj.pack(BE)


def test_byte_order_follows_encoding():
    """Given MQENC values, then INTEGER_NORMAL means big-endian and NATIVE little-endian."""
    assert byte_order(None) == byte_order(546) == byte_order(2) == "<"
    assert byte_order(1) == byte_order(273) == ">"


def test_md_defaults():
    """Given MD(), then IBM's defaults hold except Version, which is 2 in mqpy."""
    md = MD()
    assert md.StrucId == b"MD  " and md.Version == CMQC.MQMD_VERSION_2
    assert md.Expiry == CMQC.MQEI_UNLIMITED and md.Encoding == 546
    assert md.Priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF
    assert md.Persistence == CMQC.MQPER_PERSISTENCE_AS_Q_DEF
    assert md.MsgSeqNumber == 1 and md.OriginalLength == CMQC.MQOL_UNDEFINED
    assert md.MsgId == b"" and len(md.pack()) == 364
    packed = md.pack()
    assert packed[32:40] == CMQC.MQFMT_NONE and packed[48:72] == CMQC.MQMI_NONE


def test_options_structures_default_to_highest_version():
    """Given PMO() and GMO(), then they are v3 / v4 with IBM's field defaults."""
    pmo, gmo = PMO(), GMO()
    assert pmo.Version == CMQC.MQPMO_VERSION_3 and len(pmo.pack()) == 184
    assert pmo.Timeout == -1 and pmo.Options == CMQC.MQPMO_NONE
    assert gmo.Version == CMQC.MQGMO_VERSION_4 and len(gmo.pack()) == 112
    assert gmo.Options == CMQC.MQGMO_NO_WAIT
    assert gmo.MatchOptions == CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
    assert gmo.GroupStatus == CMQC.MQGS_NOT_IN_GROUP and gmo.ReturnedLength == -1
    od = OD()
    assert od.Version == CMQC.MQOD_VERSION_1 and od.DynamicQName == b"AMQ.*"
    assert od.ObjectType == CMQC.MQOT_Q and len(od.pack()) == 168
    assert TMC2().Version == CMQC.MQTMC_VERSION_2 and len(TMC2().pack()) == 732
    assert CD().Version == 6 and CD().StrucLength == CMQXC.MQCD_LENGTH_6


def test_pymqi_interface():
    """Given pymqi-style use, then keyword, attribute, item, set() and get() all work."""
    md = MD(Format=CMQC.MQFMT_STRING, Priority=5)
    assert md.Priority == 5 and md["Priority"] == 5
    md.Priority = 3
    assert md.Priority == 3
    md["Priority"] = 4
    assert md.Priority == 4
    md.set(Persistence=CMQC.MQPER_PERSISTENT, ReplyToQ=b"R")
    got = md.get()
    assert list(got)[:3] == ["StrucId", "Version", "Report"]
    assert got["Persistence"] == 1 and got["ReplyToQ"] == b"R"
    assert "Priority=4" in repr(md) and repr(md).startswith("MD(")


def test_unknown_field_is_an_error():
    """Given a misspelt field, then construction, set and item access fail; an attribute of
    that name is a plain one, never packed, with a warning (pymqi's and ibmmq's structures
    take it, and IBM's samples set one)."""
    with pytest.raises(TypeError, match="Priorty"):
        MD(Priorty=1)
    md = MD()
    with pytest.raises(TypeError):
        md.set(Bogus=1)
    with pytest.warns(UserWarning, match="Bogus"):
        md.Bogus = 1
    assert md.pack() == MD().pack()
    with pytest.raises(AttributeError, match="Bogus"):
        md["Bogus"] = 1
    with pytest.raises(AttributeError):
        MD()["Bogus"]  # noqa: B018


def test_str_is_accepted_and_stored_as_bytes():
    """Given str values, when assigned, then the field holds bytes (pymqi style)."""
    md = MD(ReplyToQ="REPLY.Q")
    md.PutApplName = "amqsput"
    assert md.ReplyToQ == b"REPLY.Q" and md.PutApplName == b"amqsput"
    assert MD.from_bytes(md.pack()).ReplyToQ == b"REPLY.Q".ljust(48)


def test_padding_text_with_blanks_binary_with_nuls():
    """Given short values, when packed, then names are blank-padded and ids NUL-padded,
    and unpack returns IBM's padded bytes."""
    md = MD(Format="MQSTR", MsgId=b"abc", CorrelId=b"c", AccountingToken=b"t")
    back = MD.from_bytes(md.pack())
    assert back.Format == CMQC.MQFMT_STRING
    assert back.MsgId == b"abc" + b"\0" * 21
    assert back.CorrelId == b"c" + b"\0" * 23
    assert back.AccountingToken == b"t" + b"\0" * 31
    assert back.ReplyToQMgr == b" " * 48
    assert back == md  # equality by packed value


def test_over_long_value_is_rejected():
    """Given a value longer than its field, then ValueError names the field and the maximum."""
    with pytest.raises(ValueError, match=r"MD\.ReplyToQ .* maximum length is 48"):
        MD(ReplyToQ="Q" * 49)
    md = MD()
    with pytest.raises(ValueError, match=r"MD\.MsgId .* maximum length is 24"):
        md.MsgId = b"x" * 25
    with pytest.raises(ValueError, match="Priority"):
        md.Priority = 2**31
    with pytest.raises(TypeError, match="Priority"):
        md.Priority = "5"


def test_short_buffer_is_rejected_naming_the_structure():
    """Given a truncated buffer, then unpack raises StructError naming MQMD, reason MD_ERROR."""
    data = MD().pack()
    with pytest.raises(StructError, match=r"MQMD .*needs 364 bytes, got 363") as info:
        MD.from_bytes(data[:-1])
    assert info.value.reason == CMQC.MQRC_MD_ERROR
    with pytest.raises(StructError, match=r"MQMD needs at least 324 bytes, got 10"):
        MD().unpack(data[:10])
    with pytest.raises(StructError, match="MQGMO"):
        GMO.from_bytes(GMO().pack()[:50])


def test_wrong_struc_id_is_rejected():
    """Given bytes that are not an MQMD, then unpack raises StructError quoting the StrucId."""
    data = b"XX  " + MD().pack()[4:]
    with pytest.raises(StructError, match=r"MQMD StrucId is b'XX  ', expected b'MD  '"):
        MD.from_bytes(data)
    with pytest.raises(StructError, match="MQXQH"):
        XQH.from_bytes(MD().pack() + bytes(100))


def test_bad_version_is_rejected():
    """Given a Version mqpy does not know, then unpack and pack raise StructError."""
    data = bytearray(MD().pack())
    data[4:8] = (3).to_bytes(4, "little")
    with pytest.raises(StructError, match="MQMD Version 3 is higher"):
        MD.from_bytes(bytes(data))
    data[4:8] = (0).to_bytes(4, "little")
    with pytest.raises(StructError, match="MQMD Version 0 is not valid"):
        MD.from_bytes(bytes(data))
    with pytest.raises(StructError):
        MD(Version=0).pack()


def test_version_decides_bytes_packed_and_read():
    """Given MD v1, then 324 bytes travel; unpacking them resets v2 fields to defaults."""
    md = MD(Version=1, GroupId=b"G", MsgSeqNumber=5)
    data = md.pack()
    assert len(data) == CMQC.MQMD_LENGTH_1
    back = MD(GroupId=b"old", MsgSeqNumber=9).unpack(data + b"message data")
    assert back.Version == 1 and back.GroupId == b"" and back.MsgSeqNumber == 1
    assert len(md.pack(version=2)) == 364 and MD.from_bytes(md.pack(version=2)).Version == 2
    assert len(MD().pack(version=1)) == 324


def test_unpack_at_offset_ignores_trailing_data():
    """Given MD bytes inside a larger buffer, then unpack(offset=) reads just the MD."""
    md = MD(MsgId=b"id")
    buf = b"prefix" + md.pack() + b"payload"
    assert MD.from_bytes(buf, offset=6) == md


def test_xqh_exposes_embedded_md_v1():
    """Given an XQH, then MsgDesc is an MD object, packed as v1 whatever its Version says."""
    x = XQH()
    assert isinstance(x.MsgDesc, MD) and x.MsgDesc.Version == 1
    x.MsgDesc = MD(Priority=8, MsgId=b"m")  # a v2 MD
    data = x.pack()
    assert len(data) == 428 and int.from_bytes(data[108:112], "little") == 1
    back = XQH.from_bytes(data)
    assert back.MsgDesc.Priority == 8 and back.MsgDesc.Version == 1
    back_be = XQH.from_bytes(x.pack(BE), BE)
    assert back_be.MsgDesc.Priority == 8
    with pytest.raises(TypeError):
        x.MsgDesc = b"not an md"


def test_tmc2_character_version():
    """Given TMC2, then Version is characters and v1 packs 684 bytes without QMgrName."""
    t = TMC2(QName="INIT.Q", QMgrName="QM1", ApplType=b"   6")
    back = TMC2.from_bytes(t.pack())
    assert back.Version == b"   2" and back.QMgrName == b"QM1".ljust(48)
    v1 = TMC2(Version=CMQC.MQTMC_VERSION_1)
    assert len(v1.pack()) == CMQC.MQTMC2_LENGTH_1


def test_pointers_pack_as_zero():
    """Given a pointer field set to a value, then pack writes zeros (no addresses travel)."""
    pmo = PMO(PutMsgRecPtr=0xDEADBEEF)
    data = pmo.pack()
    assert data[144:152] == bytes(8)
    assert PMO.from_bytes(data) == pmo  # pointers are not part of a structure's value


def test_copy_is_independent_and_equality_by_value():
    """Given a structure, then copies are equal and independent; unhashable as mutable."""
    cd = CD(ChannelName="TO.QM2")
    dup = copy.copy(cd)
    assert dup == cd and dup is not cd
    dup.MsgCompList[0] = 7
    assert cd.MsgCompList[0] == 0 and dup != cd
    x = XQH()
    y = x.copy()
    y.MsgDesc.Priority = 9
    assert x.MsgDesc.Priority != 9
    assert copy.deepcopy(x) == x
    assert MD() != OD()
    with pytest.raises(TypeError):
        hash(MD())


_text = st.binary(max_size=48).map(lambda b: b.rstrip(b" "))
_long = st.integers(-(2**31), 2**31 - 1)


@settings(max_examples=200, deadline=None)
@given(
    version=st.sampled_from([1, 2]),
    encoding=st.sampled_from([LE, BE]),
    ints=st.lists(_long, min_size=13, max_size=13),
    msg_id=st.binary(max_size=24),
    reply=_text,
    fmt=st.binary(max_size=8),
    group=st.binary(max_size=24),
)
def test_md_round_trip_property(version, encoding, ints, msg_id, reply, fmt, group):
    """Given any valid MD, when packed and unpacked in either order, then it is unchanged."""
    names = ["Report", "MsgType", "Expiry", "Feedback", "Encoding", "CodedCharSetId",
             "Priority", "Persistence", "BackoutCount", "PutApplType", "MsgSeqNumber",
             "Offset", "OriginalLength"]
    md = MD(Version=version, MsgId=msg_id, ReplyToQ=reply, Format=fmt, GroupId=group,
            **dict(zip(names, ints, strict=True)))
    back = MD.from_bytes(md.pack(encoding), encoding)
    if version == 1:  # v2 fields do not travel in a v1 MQMD
        md.set(GroupId=b"", MsgSeqNumber=1, Offset=0, OriginalLength=-1)
    assert back == md
    assert back.pack(encoding) == md.pack(encoding)


def test_wrong_byte_order_is_named_in_the_error():
    """Given a big-endian MD read as little-endian, then the error suggests the Encoding."""
    with pytest.raises(StructError, match="other byte order"):
        MD.from_bytes(MD().pack(BE), LE)


def test_describe_uses_symbolic_names():
    """Given an MD, when described, then enumerated fields carry their IBM names."""
    text_ = MD(MsgType=CMQC.MQMT_REPLY, Feedback=CMQC.MQFB_COA).describe()
    assert "MQMT_REPLY" in text_ and "MQFB_COA" in text_ and text_.startswith("MQMD:")


def _all_structures():
    seen, todo = [], list(MQStruct.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if "_layout_" in cls.__dict__:
            seen.append(cls)
    return sorted(seen, key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _all_structures(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("encoding", [LE, BE])
def test_from_bytes_fast_path_reads_what_unpack_reads(cls, encoding):
    """Given every version of every structure (MQXQH with its nested MQMD included), packed
    with non-default values, at an offset inside a larger buffer (bytes and memoryview), when
    from_bytes reads it (its Version read from the bytes, or given), then it equals what the
    general unpack reads, field by field, and a corrupted StrucId or a buffer one byte short
    still fails as unpack fails."""
    layout = cls._layout_
    numeric = layout.versioned and layout.by_name["Version"].kind == "long"
    versions = range(layout.versions[0], layout.highest_version + 1) if numeric else [None]
    for number in versions:
        obj = cls() if number is None else cls(Version=number)
        for f in layout.fields:  # a value unlike the default in every plain field
            if f.kind == "long" and f.name != "Version":
                obj.__dict__[f.name] = 7
            elif f.kind in ("text", "binary") and f.size and f.name not in ("StrucId", "Version"):
                obj.__dict__[f.name] = b"Z" * min(f.size, 3)
        data = b"junk" + obj.pack(encoding) + b"trailer"
        for buf in (data, memoryview(data)):
            general = cls.__new__(cls)
            general._reset()
            general.unpack(buf, encoding, offset=4)
            assert cls.from_bytes(buf, encoding, offset=4).get() == general.get()
            if number is not None:  # the version given by the caller, as MQXQH gives its MQMD's
                forced = cls.__new__(cls)
                forced._reset()
                forced.unpack(buf, encoding, offset=4, version=number)
                assert cls.from_bytes(buf, encoding, offset=4, version=number).get() == \
                    forced.get()
        if layout.struc_id is not None:
            bad = data[:4] + b"\x00" + data[5:]
            with pytest.raises(StructError):
                cls.from_bytes(bad, encoding, offset=4)
        with pytest.raises(StructError):
            cls.from_bytes(data[:4 + len(obj.pack(encoding)) - 1], encoding, offset=4)


def test_keyword_construction_keeps_validation_and_a_subclasss_own_setattr() -> None:
    """Given the constructor's direct store of the usual values (an int MQLONG in range,
    bytes that fit), when a value is not usual -- out of range, too long, a str, a wrong
    type, an unknown name -- then the errors are those of attribute assignment; and a
    program's subclass with its own __setattr__ still sees every keyword."""

    assert MD(Persistence=1, MsgId=b"x" * 24).MsgId == b"x" * 24
    assert MD(Format="MQSTR").Format == b"MQSTR"
    for kw, error in (({"Priority": 2**31}, ValueError), ({"MsgId": b"x" * 25}, ValueError),
                      ({"Priority": "5"}, TypeError), ({"Nope": 1}, TypeError),
                      ({"Format": 5}, TypeError)):
        with pytest.raises(error):
            MD(**kw)
    seen = []

    class Watched(MD):
        def __setattr__(self, name, value):
            seen.append(name)
            super().__setattr__(name, value)

    assert Watched(Priority=3).Priority == 3 and seen == ["Priority"]
