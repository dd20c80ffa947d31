"""Given property values of each MQTYPE, when set and inquired with conversions, then IBM's
type rules hold."""

import pytest

from mqpy import CMQC
from mqpy.properties.errors import PropertyError
from mqpy.properties.types import check_value, convert_type, float32, length_of

T = CMQC

PYMQI_VALUES = [  # pymqi's test_message_property.py values
    (T.MQTYPE_STRING, "test_value" * 5), (T.MQTYPE_BYTE_STRING, b"test_value" * 5),
    (T.MQTYPE_BOOLEAN, True), (T.MQTYPE_INT8, -127), (T.MQTYPE_INT16, -32768),
    (T.MQTYPE_INT32, -2147483647), (T.MQTYPE_INT64, -9223372036854775808),
    (T.MQTYPE_FLOAT32, 1.1754943508222875e-38), (T.MQTYPE_FLOAT64, 2.2250738585072014e-308),
    (T.MQTYPE_NULL, None)]


@pytest.mark.parametrize("ptype,value", PYMQI_VALUES)
def test_given_pymqi_values_when_checked_then_kept_unchanged(ptype, value):
    assert check_value(ptype, value) == value


@pytest.mark.parametrize("ptype,size", [(T.MQTYPE_BOOLEAN, 4), (T.MQTYPE_INT8, 1),
                                        (T.MQTYPE_INT16, 2), (T.MQTYPE_INT32, 4),
                                        (T.MQTYPE_INT64, 8), (T.MQTYPE_FLOAT32, 4),
                                        (T.MQTYPE_FLOAT64, 8), (T.MQTYPE_NULL, 0)])
def test_given_fixed_types_then_lengths_are_ibms(ptype, size):
    value = None if ptype == T.MQTYPE_NULL else (True if ptype == T.MQTYPE_BOOLEAN else 1)
    assert length_of(ptype, value) == size
    check_value(ptype, value, size)
    with pytest.raises(PropertyError) as err:
        check_value(ptype, value, size + 1)
    assert err.value.reason == T.MQRC_BUFFER_LENGTH_ERROR


def test_given_an_unknown_type_then_property_type_error():
    with pytest.raises(PropertyError) as err:
        check_value(3, 1)
    assert err.value.reason == T.MQRC_PROPERTY_TYPE_ERROR


@pytest.mark.parametrize("ptype,value", [(T.MQTYPE_INT32, "1"), (T.MQTYPE_BOOLEAN, "x"),
                                         (T.MQTYPE_NULL, 0), (T.MQTYPE_FLOAT64, True),
                                         (T.MQTYPE_BYTE_STRING, 5)])
def test_given_a_value_of_another_kind_then_property_type_error(ptype, value):
    with pytest.raises(PropertyError) as err:
        check_value(ptype, value)
    assert err.value.reason == T.MQRC_PROPERTY_TYPE_ERROR


@pytest.mark.parametrize("ptype,value", [(T.MQTYPE_INT8, 128), (T.MQTYPE_INT16, -32769),
                                         (T.MQTYPE_INT32, 2**31), (T.MQTYPE_INT64, 2**63)])
def test_given_an_integer_out_of_range_then_property_value_too_big(ptype, value):
    with pytest.raises(PropertyError) as err:
        check_value(ptype, value)
    assert err.value.reason == T.MQRC_PROPERTY_VALUE_TOO_BIG


def test_given_a_shorter_value_length_then_the_first_bytes_are_kept():
    assert check_value(T.MQTYPE_STRING, "abcdef", 3) == "abc"
    assert check_value(T.MQTYPE_BYTE_STRING, b"abcdef", 2) == b"ab"
    assert check_value(T.MQTYPE_STRING, "ab\0cd", T.MQVL_NULL_TERMINATED) == "ab"


def test_given_a_float32_then_it_holds_single_precision():
    assert check_value(T.MQTYPE_FLOAT32, 0.1) == float32(0.1) != 0.1


@pytest.mark.parametrize("value,from_type,to_type,expected", [
    (5, T.MQTYPE_INT8, T.MQTYPE_INT64, 5), (5, T.MQTYPE_INT32, T.MQTYPE_STRING, "5"),
    (True, T.MQTYPE_BOOLEAN, T.MQTYPE_STRING, "TRUE"),
    (False, T.MQTYPE_BOOLEAN, T.MQTYPE_STRING, "FALSE"),
    ("42", T.MQTYPE_STRING, T.MQTYPE_INT16, 42), ("-1.5", T.MQTYPE_STRING, T.MQTYPE_FLOAT64, -1.5),
    ("true", T.MQTYPE_STRING, T.MQTYPE_BOOLEAN, True), ("0", T.MQTYPE_STRING, T.MQTYPE_BOOLEAN, False),
    (float32(0.1), T.MQTYPE_FLOAT32, T.MQTYPE_STRING, "0.1"),
    (None, T.MQTYPE_NULL, T.MQTYPE_INT32, None)])
def test_given_convert_type_then_ibms_conversions(value, from_type, to_type, expected):
    assert convert_type(value, from_type, to_type)[0] == expected


@pytest.mark.parametrize("from_type,to_type", [
    (T.MQTYPE_INT64, T.MQTYPE_INT32), (T.MQTYPE_FLOAT64, T.MQTYPE_FLOAT32),
    (T.MQTYPE_BYTE_STRING, T.MQTYPE_STRING), (T.MQTYPE_BOOLEAN, T.MQTYPE_INT32),
    (T.MQTYPE_INT32, T.MQTYPE_BOOLEAN), (T.MQTYPE_STRING, T.MQTYPE_BYTE_STRING)])
def test_given_an_unsupported_conversion_then_prop_conv_not_supported(from_type, to_type):
    value = {T.MQTYPE_BYTE_STRING: b"x", T.MQTYPE_BOOLEAN: True, T.MQTYPE_STRING: "1"}.get(from_type, 1)
    with pytest.raises(PropertyError) as err:
        convert_type(value, from_type, to_type)
    assert err.value.reason == T.MQRC_PROP_CONV_NOT_SUPPORTED


@pytest.mark.parametrize("text,to_type", [("abc", T.MQTYPE_INT32), ("300", T.MQTYPE_INT8),
                                          ("yes", T.MQTYPE_BOOLEAN), ("1e", T.MQTYPE_FLOAT64)])
def test_given_a_string_that_is_no_number_then_prop_number_format_error(text, to_type):
    with pytest.raises(PropertyError) as err:
        convert_type(text, T.MQTYPE_STRING, to_type)
    assert err.value.reason == T.MQRC_PROP_NUMBER_FORMAT_ERROR


def test_given_a_str_then_value_length_counts_its_characters():
    assert check_value(T.MQTYPE_STRING, "éte", 3) == "éte"
    assert check_value(T.MQTYPE_STRING, "éte", 1) == "é"
    with pytest.raises(PropertyError) as err:
        check_value(T.MQTYPE_STRING, "éte", 4)
    assert err.value.reason == T.MQRC_BUFFER_LENGTH_ERROR


def test_given_string_bytes_then_decoded_in_the_value_ccsid():
    assert check_value(T.MQTYPE_STRING, "é".encode("latin-1"), ccsid=819) == "é"
    assert check_value(T.MQTYPE_STRING, "é".encode("utf-8")) == "é"
    assert check_value(T.MQTYPE_STRING, b"ab\0cd", T.MQVL_NULL_TERMINATED) == "ab"
    assert check_value(T.MQTYPE_STRING, "é".encode("utf-8") + b"x", 2) == "é"


def test_given_string_bytes_in_an_unknown_ccsid_then_source_ccsid_error():
    with pytest.raises(PropertyError) as err:
        check_value(T.MQTYPE_STRING, b"abc", ccsid=424242)
    assert err.value.reason == T.MQRC_SOURCE_CCSID_ERROR
