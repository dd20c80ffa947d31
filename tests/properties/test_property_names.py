"""Given a property name, when MQSETMP / MQINQMP check it, then IBM's name rules hold."""

import pytest

from mqpy import CMQC
from mqpy.properties.errors import PropertyError
from mqpy.properties.names import canonical, check_name, folder_of, matches


@pytest.mark.parametrize("name", ["colour", "usr.colour", "a.b", "$x", "_y", "été", "mq_usr.a.b.c",
                                  "mq.x", "Root.MQMD.Priority", "JMSCorrelationID", "JMSType",
                                  "JMSXGroupID", "JMSXGroupSeq", "JMSReplyTo", "a1.b2"])
def test_given_a_valid_name_when_set_then_it_is_accepted(name):
    check_name(name)


@pytest.mark.parametrize("name", [
    "a..b", "a.", ".a", "1a", "a b", "a-b", "a=b", "a%", "x\U0001F600", "\U0001D49Cx",
    "NULL", "true", "And", "usr.IS", "escape", "usr.between",  # selector keywords
    "JMSFoo", "usr.JMSType", "JMSMessageID", "JMSPriority",  # JMS names
    "mq.a.b", "MQ.a.b", "mQx.a.b",  # mq prefix with two dots
    "Root.x", "Body.x", "Root.MQMD.NoSuchField", "Root.MQMD.StrucId", "Root.MQMD.Version"])
def test_given_an_invalid_name_when_set_then_property_name_error(name):
    with pytest.raises(PropertyError) as err:
        check_name(name)
    assert err.value.reason == CMQC.MQRC_PROPERTY_NAME_ERROR
    assert err.value.comp == CMQC.MQCC_FAILED


@pytest.mark.parametrize("name", ["", "a" * 4096])
def test_given_an_empty_or_too_long_name_then_property_name_length_err(name):
    with pytest.raises(PropertyError) as err:
        check_name(name)
    assert err.value.reason == CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR


def test_given_the_longest_name_then_it_is_accepted():
    assert check_name("a" * 4095) == "a" * 4095


def test_given_a_read_only_jms_name_when_inquired_then_it_is_accepted():
    assert check_name("JMSMessageID", for_set=False) == "Root.MQMD.MsgId"


def test_given_no_validation_then_only_the_length_is_checked():
    assert check_name("a b c", validate=False) == "a b c"


def test_given_usr_prefix_then_the_same_property_as_without():
    assert canonical("usr.colour") == canonical("colour") == "colour"
    assert canonical("JMSType") == "mcd.Type"


def test_given_names_then_their_folders():
    assert folder_of("colour") == "usr"
    assert folder_of("mq_usr.a.b") == "mq_usr"


@pytest.mark.parametrize("pattern,name,expected", [
    ("%", "colour", True), ("%", "a.b", True), ("col%", "colour", True), ("col%", "size", False),
    ("usr.%", "colour", True), ("usr.%", "a.b", False), ("a.%", "a.b", True),
    ("usr.co%", "colour", True), ("usr.co%", "com.x", False), ("colour", "colour", True)])
def test_given_a_wildcard_then_it_matches_the_rest(pattern, name, expected):
    assert matches(check_name(pattern, for_set=False, wildcard=True), name) is expected


@pytest.mark.parametrize("pattern", ["a%b", "%%", "a%.b"])
def test_given_a_wildcard_not_at_the_end_then_property_name_error(pattern):
    with pytest.raises(PropertyError) as err:
        check_name(pattern, for_set=False, wildcard=True)
    assert err.value.reason == CMQC.MQRC_PROPERTY_NAME_ERROR
