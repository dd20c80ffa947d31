"""Given a property set, when written as MQRFH2 folders and read back, then the same
properties; given hostile folders, then MQRC_RFH_FORMAT_ERROR and never a traceback."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqpy import CMQC
from mqpy.errors import PYIFError
from mqpy.properties.errors import PropertyError
from mqpy.properties.propset import PropertySet
from mqpy.properties.rfh2props import folders_of, read_folder, read_folders
from mqpy.properties.types import float32
from mqpy.rfh2 import RFH2

T = CMQC


def round_trip(pset):
    out = PropertySet()
    assert read_folders(folders_of(pset), out) == []
    return [(p.name, p.type, p.value) for p in out]


def test_given_every_type_then_ibms_dt_values_and_the_same_values_back():
    s = PropertySet()
    s.set("b", True, T.MQTYPE_BOOLEAN)
    s.set("y", b"\x0a\xfc", T.MQTYPE_BYTE_STRING)
    s.set("i1", -1, T.MQTYPE_INT8)
    s.set("i2", 2, T.MQTYPE_INT16)
    s.set("i4", 4, T.MQTYPE_INT32)
    s.set("i8", 2**40, T.MQTYPE_INT64)
    s.set("r4", 0.5, T.MQTYPE_FLOAT32)
    s.set("r8", 0.1, T.MQTYPE_FLOAT64)
    s.set("s", "<&'\">", T.MQTYPE_STRING)
    s.set("n", None, T.MQTYPE_NULL)
    (usr,) = folders_of(s)
    text = usr.decode()
    for dt in ("boolean", "bin.hex", "i1", "i2", "i4", "i8", "r4", "r8"):
        assert f'dt="{dt}"' in text
    assert "<n xsi:nil='true'></n>" in text and len(usr) % 4 == 0
    assert round_trip(s) == [(p.name, p.type, p.value) for p in s]


def test_given_folders_then_ibms_order_and_content_properties():
    s = PropertySet()
    s.set("colour", "red", T.MQTYPE_STRING)
    s.set("JMSType", "t", T.MQTYPE_STRING)
    s.set("shop.city", "Paris", T.MQTYPE_STRING)
    s.set("Root.MQMD.Priority", 3, T.MQTYPE_INT32)
    folders = [f.decode().rstrip() for f in folders_of(s)]
    assert folders == ["<mcd><Type>t</Type></mcd>", "<usr><colour>red</colour></usr>",
                       "<shop content='properties'><city>Paris</city></shop>"]


def test_given_groups_then_nested_elements():
    s = PropertySet()
    s.set("mq_usr.a.b", 1, T.MQTYPE_INT32)
    s.set("mq_usr.a.c", 2, T.MQTYPE_INT32)
    assert folders_of(s)[0].decode().rstrip() == \
        '<mq_usr><a><b dt="i4">1</b><c dt="i4">2</c></a></mq_usr>'
    assert round_trip(s) == [("mq_usr.a.b", T.MQTYPE_INT32, 1), ("mq_usr.a.c", T.MQTYPE_INT32, 2)]


def test_given_a_name_xml_cannot_hold_then_escaped_and_read_back():
    s = PropertySet()
    s.set("$x", 1, T.MQTYPE_INT32)
    assert b"_x0024_x" in folders_of(s)[0]
    assert round_trip(s) == [("$x", T.MQTYPE_INT32, 1)]


def test_given_ibms_forms_then_read_as_ibm_means_them():
    name, props = read_folder(b"<usr><a dt='int'>5</a><b dt='boolean'>true</b><c></c>"
                              b"<d dt='mystery'>x</d></usr>  ")
    assert name == "usr"
    assert [(p.name, p.type, p.value) for p in props] == [
        ("a", T.MQTYPE_INT64, 5), ("b", T.MQTYPE_BOOLEAN, True), ("c", T.MQTYPE_STRING, ""),
        ("d", T.MQTYPE_STRING, "x")]


def test_given_a_folder_without_properties_then_left_as_it_was():
    s = PropertySet()
    rest = read_folders([b"<psc><Command>Publish</Command></psc>", b"<usr><a>1</a></usr>"], s)
    assert rest == [b"<psc><Command>Publish</Command></psc>"] and len(s) == 1


def test_given_utf16_name_value_data_then_read():
    _, props = read_folder("<usr><a>é</a></usr>".encode("utf-16-be"), 1200)
    assert props[0].value == "é"


@pytest.mark.parametrize("data", [
    b"<usr><a>1</usr>", b"<usr>", b"not xml", b"<usr><a dt='i4'>x</a></usr>",
    b"<usr><a dt='bin.hex'>zz</a></usr>", b"<usr><a dt='i1'>300</a></usr>",
    b"<usr><g>text<b>1</b></g></usr>", b"<usr></usr><jms></jms>", b"\xff\xfe<usr/>",
    b'<!DOCTYPE usr [<!ENTITY x "xx">]><usr><a>&x;</a></usr>',
    b"<usr>" + b"<g>" * 100 + b"<a>1</a>" + b"</g>" * 100 + b"</usr>"])
def test_given_hostile_folders_then_rfh_format_error(data):
    with pytest.raises(PropertyError) as err:
        read_folders([data], PropertySet())
    assert err.value.reason == T.MQRC_RFH_FORMAT_ERROR


def test_given_a_null_property_folder_then_the_rfh2_accepts_it():
    """IBM's NULL form has an undeclared xsi prefix; the MQRFH2 refused it as not well formed
    (checked to fail before reading folders without namespaces)."""
    header = RFH2()
    header.add_folder(b"<usr><n xsi:nil='true'></n></usr>")
    again = RFH2()
    again.unpack(header.pack())
    assert again.folders()[0].rstrip() == b"<usr><n xsi:nil='true'></n></usr>"
    with pytest.raises(PYIFError):
        RFH2().add_folder(b"<usr><n></usr>")


_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: n.upper() not in {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE",
                                "IN", "IS", "ESCAPE"} and not n.startswith("JMS")
    and not n[:2].lower() == "mq")
_values = st.one_of(
    st.tuples(st.just(T.MQTYPE_STRING), st.text(st.characters(
        blacklist_categories=("Cs", "Cc")), max_size=20)),
    st.tuples(st.just(T.MQTYPE_BYTE_STRING), st.binary(max_size=10)),
    st.tuples(st.just(T.MQTYPE_BOOLEAN), st.booleans()),
    st.tuples(st.just(T.MQTYPE_INT8), st.integers(-128, 127)),
    st.tuples(st.just(T.MQTYPE_INT64), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just(T.MQTYPE_FLOAT32), st.floats(width=32, allow_nan=False).map(float32)),
    st.tuples(st.just(T.MQTYPE_FLOAT64), st.floats(allow_nan=False)),
    st.tuples(st.just(T.MQTYPE_NULL), st.none()))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_names, _values, max_size=8), st.sampled_from(["", "app."]))
def test_given_any_property_set_then_it_round_trips_through_mqrfh2(entries, folder):
    s = PropertySet()
    for name, (ptype, value) in entries.items():
        s.set(folder + name, value, ptype)
    header = RFH2()
    for data in folders_of(s):
        header.add_folder(data)
    again = RFH2()
    again.unpack(header.pack(T.MQENC_NATIVE), T.MQENC_NATIVE)
    out = PropertySet()
    read_folders(again.folders(), out)
    assert [(p.name, p.type, p.value) for p in out] == [(p.name, p.type, p.value) for p in s]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_given_random_bytes_then_a_reason_code_never_a_traceback(data):
    try:
        read_folders([data], PropertySet())
    except PropertyError as err:
        assert err.reason == T.MQRC_RFH_FORMAT_ERROR


def test_given_descriptor_fields_then_ibms_element_attributes_and_back():
    s = PropertySet()
    s.set("u", 1, T.MQTYPE_INT32, context=T.MQPD_USER_CONTEXT)
    s.set("r", 1, T.MQTYPE_INT32, copy_options=T.MQCOPY_REPLY | T.MQCOPY_REPORT)
    s.set("a", 1, T.MQTYPE_INT32, copy_options=T.MQCOPY_ALL)
    s.set("n", 1, T.MQTYPE_INT32, copy_options=T.MQCOPY_NONE)
    s.set("mq.x", 1, T.MQTYPE_INT32, support=T.MQPD_SUPPORT_REQUIRED)
    s.set("mq.y", 1, T.MQTYPE_INT32, support=T.MQPD_SUPPORT_REQUIRED_IF_LOCAL)
    text = b"".join(folders_of(s)).decode()
    for attr in ("context='user'", "copy='reply,report'", "copy='all'", "copy='none'",
                 "sr='required'", "sx='local'"):
        assert attr in text
    out = PropertySet()
    read_folders(folders_of(s), out)
    assert sorted((p.name, p.support, p.context, p.copy_options) for p in out) == \
        sorted((p.name, p.support, p.context, p.copy_options) for p in s)


def test_given_support_attributes_outside_the_mq_folder_then_ignored():
    _, props = read_folder(b"<usr><a sr='required' context='user' copy='publish'>1</a></usr>")
    assert (props[0].support, props[0].context, props[0].copy_options) == (
        T.MQPD_SUPPORT_OPTIONAL, T.MQPD_USER_CONTEXT, T.MQCOPY_PUBLISH)


def test_given_an_unknown_copy_or_context_value_then_rfh_format_error():
    for data in (b"<usr><a copy='sideways'>1</a></usr>", b"<usr><a context='boss'>1</a></usr>"):
        with pytest.raises(PropertyError) as err:
            read_folder(data)
        assert err.value.reason == T.MQRC_RFH_FORMAT_ERROR


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12),
                max_size=6, unique=True))
def test_given_unvalidated_names_then_they_still_round_trip(raw_names):
    """MQCMHO_NO_VALIDATION accepts any name; its MQRFH2 must still be well formed."""
    s = PropertySet(validate=False)
    for name in raw_names:
        try:
            s.set(name, 1, T.MQTYPE_INT32)
        except PropertyError:
            pass  # a name that clashes as mixed content with another
    out = PropertySet()
    read_folders(folders_of(s), out)
    assert sorted(p.name for p in out) == sorted(p.name for p in s
                                                 if not p.name.startswith("Root.MQMD."))
