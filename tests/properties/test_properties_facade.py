"""Given pymqi's and ibmmq's ``MessageHandle.properties`` calls, when made on a message
handle, then the results pymqi's test_message_property.py expects (the put and get between
them done as the queue manager will: an MQRFH2 in the message)."""

import pytest

from mqpy import CMQC
from mqpy.properties.carriage import give_properties, take_properties
from mqpy.properties.errors import PropertyError
from mqpy.properties.facade import Properties
from mqpy.properties.handles import MessageHandleTable
from mqpy.structs.tables import MD

T = CMQC
NAME = b"test_name"
VALUE_LENGTH = {T.MQTYPE_BOOLEAN: 4, T.MQTYPE_INT8: 1, T.MQTYPE_INT16: 2, T.MQTYPE_INT32: 4,
                T.MQTYPE_INT64: 8, T.MQTYPE_FLOAT32: 4, T.MQTYPE_FLOAT64: 8, T.MQTYPE_NULL: 0}
CASES = [
    ("test_value" * 5, T.MQTYPE_STRING), (b"test_value" * 5, T.MQTYPE_BYTE_STRING),
    (True, T.MQTYPE_BOOLEAN), (-127, T.MQTYPE_INT8), (-32768, T.MQTYPE_INT16),
    (-2147483647, T.MQTYPE_INT32), (-9223372036854775808, T.MQTYPE_INT64),
    (1.1754943508222875e-38, T.MQTYPE_FLOAT32), (2.2250738585072014e-308, T.MQTYPE_FLOAT64),
    (None, T.MQTYPE_NULL)]


def put_and_get(value, ptype):
    """pymqi's work_with_property: set on one handle, carried, read into another."""
    table = MessageHandleTable()
    put = Properties(table, table.crtmh())
    length = VALUE_LENGTH[ptype] if ptype in VALUE_LENGTH else len(value)
    put.set(NAME, value, value_length=length, property_type=ptype)
    md = MD(Format=T.MQFMT_NONE)
    data = give_properties(table.properties(put.msg_handle), b"", md)
    got = Properties(table, table.crtmh())
    take_properties(data, md, table.properties(got.msg_handle))
    return got


@pytest.mark.parametrize("value,ptype", CASES)
def test_given_pymqis_values_then_the_same_value_back(value, ptype):
    got = put_and_get(value, ptype)
    assert got.get(NAME, max_value_length=max(VALUE_LENGTH.get(ptype, 0), 50)) == value


def test_given_a_short_buffer_then_property_value_too_big():
    got = put_and_get(b"test_value" * 5, T.MQTYPE_BYTE_STRING)
    with pytest.raises(PropertyError) as err:
        got.get(NAME, max_value_length=25)
    assert err.value.reason == T.MQRC_PROPERTY_VALUE_TOO_BIG and err.value.data_length == 50


def test_given_a_missing_name_then_property_not_available_and_key_error():
    got = put_and_get(None, T.MQTYPE_NULL)
    with pytest.raises(PropertyError) as err:
        got.get(NAME * 2, default="d")
    assert err.value.reason == T.MQRC_PROPERTY_NOT_AVAILABLE and err.value.value == "d"
    with pytest.raises(KeyError):
        got[b"nope"]


def test_given_ibmmq_defaults_then_string_and_fixed_types_set():
    table = MessageHandleTable()
    props = Properties(table, table.crtmh())
    props["colour"] = "red"
    props.set("n", 5, property_type=T.MQTYPE_INT32)
    assert props["colour"] == "red" and props.get("n") == 5
    assert props.get("%") == ("red", b"colour")
    props.dlt("colour")
    assert props.get("%") == (5, b"n")
