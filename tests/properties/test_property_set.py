"""Given a message's property set, when MQSETMP / MQINQMP / MQDLTMP act on it, then values,
the property cursor and the reason codes are IBM's."""

import pytest

from mqpy import CMQC
from mqpy.properties.errors import PropertyError
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import MD

T = CMQC


def reason(call, *args, **kw):
    with pytest.raises(PropertyError) as err:
        call(*args, **kw)
    return err.value.reason


@pytest.fixture
def props():
    s = PropertySet()
    s.set("colour", "red", T.MQTYPE_STRING)
    s.set("size", 3, T.MQTYPE_INT32)
    s.set("shop.city", "Paris", T.MQTYPE_STRING)
    s.set("cost", 1.5, T.MQTYPE_FLOAT64)
    return s


def test_given_a_property_when_inquired_then_its_value_type_and_length(props):
    got = props.inquire("colour")
    assert (got.name, got.type, got.value, got.data_length) == ("colour", T.MQTYPE_STRING, "red", 3)


def test_given_usr_prefix_when_inquired_then_the_same_property(props):
    assert props.inquire("usr.colour").value == "red"


def test_given_a_missing_property_when_inquired_then_property_not_available(props):
    assert reason(props.inquire, "nope") == T.MQRC_PROPERTY_NOT_AVAILABLE


def test_given_a_set_again_then_the_value_is_replaced_in_place(props):
    props.set("colour", "blue", T.MQTYPE_STRING)
    assert [p.name for p in props][0] == "colour"
    assert props.inquire("colour").value == "blue" and len(props) == 4


def test_given_a_small_buffer_then_property_value_too_big_with_the_length(props):
    with pytest.raises(PropertyError) as err:
        props.inquire("shop.city", max_length=2)
    assert err.value.reason == T.MQRC_PROPERTY_VALUE_TOO_BIG and err.value.data_length == 5


def test_given_too_big_then_under_cursor_fetches_it_with_a_larger_buffer(props):
    reason(props.inquire, "shop.city", max_length=2)
    got = props.inquire("", options=T.MQIMPO_INQ_PROP_UNDER_CURSOR, max_length=10)
    assert got.value == "Paris"


def test_given_wildcard_then_inq_first_and_next_walk_every_match(props):
    seen = [props.inquire("%").name]
    while True:
        try:
            seen.append(props.inquire("%", options=T.MQIMPO_INQ_NEXT).name)
        except PropertyError as err:
            assert err.reason == T.MQRC_PROPERTY_NOT_AVAILABLE
            break
    assert seen == ["colour", "size", "shop.city", "cost"]


def test_given_usr_wildcard_then_only_usr_folder_properties(props):
    seen = [props.inquire("usr.%").name, props.inquire("usr.%", options=T.MQIMPO_INQ_NEXT).name,
            props.inquire("usr.%", options=T.MQIMPO_INQ_NEXT).name]
    assert seen == ["colour", "size", "cost"]


def test_given_inq_next_with_another_name_then_it_starts_from_the_first(props):
    props.inquire("%")
    props.inquire("%", options=T.MQIMPO_INQ_NEXT)
    assert props.inquire("s%", options=T.MQIMPO_INQ_NEXT).name == "size"


def test_given_no_cursor_then_under_cursor_is_property_not_available(props):
    assert reason(props.inquire, "x", options=T.MQIMPO_INQ_PROP_UNDER_CURSOR) == \
        T.MQRC_PROPERTY_NOT_AVAILABLE


def test_given_next_and_under_cursor_together_then_impo_error(props):
    assert reason(props.inquire, "%", options=T.MQIMPO_INQ_NEXT
                  | T.MQIMPO_INQ_PROP_UNDER_CURSOR) == T.MQRC_IMPO_ERROR
    assert reason(props.inquire, "%", options=1) == T.MQRC_IMPO_ERROR


def test_given_the_cursor_property_deleted_then_next_continues_after_it(props):
    props.inquire("%")
    props.inquire("%", options=T.MQIMPO_INQ_NEXT)  # size
    props.delete("", options=T.MQDMPO_DEL_PROP_UNDER_CURSOR)
    assert reason(props.inquire, "", options=T.MQIMPO_INQ_PROP_UNDER_CURSOR) == \
        T.MQRC_PROPERTY_NOT_AVAILABLE
    assert props.inquire("%", options=T.MQIMPO_INQ_NEXT).name == "shop.city"


def test_given_query_length_then_no_value_but_the_length(props):
    got = props.inquire("shop.city", options=T.MQIMPO_QUERY_LENGTH)
    assert got.value is None and got.data_length == 5


def test_given_convert_type_then_the_requested_type(props):
    got = props.inquire("size", options=T.MQIMPO_CONVERT_TYPE, ptype=T.MQTYPE_STRING)
    assert (got.type, got.value) == (T.MQTYPE_STRING, "3")


def test_given_no_convert_type_then_the_requested_type_is_ignored(props):
    assert props.inquire("size", ptype=T.MQTYPE_STRING).value == 3


def test_given_convert_value_to_an_unknown_ccsid_then_a_warning_and_the_value(props):
    got = props.inquire("colour", options=T.MQIMPO_CONVERT_VALUE, requested_ccsid=99999)
    assert got.value == "red" and got.reason == T.MQRC_PROP_VALUE_NOT_CONVERTED


def test_given_convert_value_to_utf16_then_the_length_is_in_its_bytes(props):
    got = props.inquire("colour", options=T.MQIMPO_CONVERT_VALUE, requested_ccsid=1200)
    assert (got.ccsid, got.data_length) == (1200, 6)


def test_given_delete_then_gone_and_delete_again_is_a_warning(props):
    props.delete("colour")
    with pytest.raises(PropertyError) as err:
        props.delete("colour")
    assert (err.value.comp, err.value.reason) == (T.MQCC_WARNING, T.MQRC_PROPERTY_NOT_AVAILABLE)


def test_given_bad_smpo_or_dmpo_options_then_their_errors(props):
    assert reason(props.set, "a", 1, T.MQTYPE_INT32, options=3) == T.MQRC_SMPO_ERROR
    assert reason(props.delete, "a", options=7) == T.MQRC_DMPO_ERROR


def test_given_append_then_two_properties_of_one_name(props):
    props.set("colour", "blue", T.MQTYPE_STRING, options=T.MQSMPO_APPEND_PROPERTY)
    assert props.inquire("colour").value == "red"
    assert props.inquire("colour", options=T.MQIMPO_INQ_NEXT).value == "blue"


def test_given_set_before_and_after_the_cursor_then_inserted_there(props):
    props.inquire("size")
    props.set("b4", 1, T.MQTYPE_INT8, options=T.MQSMPO_SET_PROP_BEFORE_CURSOR)
    props.set("af", 2, T.MQTYPE_INT8, options=T.MQSMPO_SET_PROP_AFTER_CURSOR)
    assert [p.name for p in props][:4] == ["colour", "b4", "size", "af"]


def test_given_set_under_cursor_then_that_property_changes(props):
    props.inquire("size")
    props.set("size", 9, T.MQTYPE_INT64, options=T.MQSMPO_SET_PROP_UNDER_CURSOR)
    assert props.inquire("size").type == T.MQTYPE_INT64


def test_given_mixed_content_then_property_name_error(props):
    assert reason(props.set, "shop.city.zip", "75001", T.MQTYPE_STRING) == \
        T.MQRC_PROPERTY_NAME_ERROR


def test_given_a_jms_name_with_the_wrong_type_then_property_type_error(props):
    assert reason(props.set, "JMSXGroupSeq", "1", T.MQTYPE_STRING) == T.MQRC_PROPERTY_TYPE_ERROR
    props.set("JMSType", "order", T.MQTYPE_STRING)
    assert props.inquire("mcd.Type").value == "order"
    assert props.inquire("JMSType").value == "order"


def test_given_mqmd_names_then_their_types_are_the_fields(props):
    assert reason(props.set, "Root.MQMD.Priority", "1", T.MQTYPE_STRING) == \
        T.MQRC_PROPERTY_TYPE_ERROR
    props.set("Root.MQMD.Priority", 7, T.MQTYPE_INT32)
    assert props.inquire("Root.MQMD.Priority").value == 7


def test_given_an_attached_md_then_mqmd_names_read_it():
    s = PropertySet(md=MD(Priority=4, PutApplName=b"app"))
    assert s.inquire("Root.MQMD.Priority").value == 4
    assert s.inquire("JMSXAppID").value == "app"


def test_given_pd_values_then_bad_ones_are_pd_error(props):
    assert reason(props.set, "a", 1, T.MQTYPE_INT32, support=99) == T.MQRC_PD_ERROR
    assert reason(props.set, "a", 1, T.MQTYPE_INT32, context=5) == T.MQRC_PD_ERROR
    assert reason(props.set, "a", 1, T.MQTYPE_INT32, copy_options=1 << 10) == T.MQRC_PD_ERROR


def test_given_copy_options_then_copied_for_each_operation():
    s = PropertySet()
    s.set("fwd", 1, T.MQTYPE_INT32, copy_options=T.MQCOPY_FORWARD)
    s.set("reply", 1, T.MQTYPE_INT32, copy_options=T.MQCOPY_REPLY)
    s.set("all", 1, T.MQTYPE_INT32, copy_options=T.MQCOPY_ALL)
    assert [p.name for p in s.copied_for(T.MQCOPY_REPLY)] == ["reply", "all"]
    assert [p.name for p in s.copied_for(T.MQCOPY_PUBLISH)] == ["all"]


def test_given_user_context_then_listed_as_the_user_context():
    s = PropertySet()
    s.set("u", 1, T.MQTYPE_INT32, context=T.MQPD_USER_CONTEXT)
    s.set("n", 1, T.MQTYPE_INT32)
    assert [p.name for p in s.user_context()] == ["u"]


def test_given_a_user_property_then_its_support_is_optional_whatever_was_asked():
    """IBM: a property MQ does not define gets MQPD_SUPPORT_OPTIONAL."""
    s = PropertySet()
    s.set("colour", "red", T.MQTYPE_STRING, support=T.MQPD_SUPPORT_REQUIRED)
    s.set("mq.x", 1, T.MQTYPE_INT32, support=T.MQPD_SUPPORT_REQUIRED)
    assert s.inquire("colour").support == T.MQPD_SUPPORT_OPTIONAL
    assert s.inquire("mq.x").support == T.MQPD_SUPPORT_REQUIRED


def test_given_a_value_that_grows_in_conversion_then_too_big_and_the_cursor_unchanged(props):
    props.inquire("colour")
    with pytest.raises(PropertyError) as err:
        props.inquire("shop.city", options=T.MQIMPO_CONVERT_VALUE, requested_ccsid=1200,
                      max_length=6)
    assert err.value.reason == T.MQRC_PROPERTY_VALUE_TOO_BIG and err.value.data_length == 10
    assert props.inquire("", options=T.MQIMPO_INQ_PROP_UNDER_CURSOR).name == "colour"


def test_given_text_the_requested_ccsid_cannot_hold_then_not_converted_warning(props):
    props.set("word", "€uro", T.MQTYPE_STRING)
    got = props.inquire("word", options=T.MQIMPO_CONVERT_VALUE, requested_ccsid=819)
    assert (got.value, got.reason, got.ccsid) == ("€uro", T.MQRC_PROP_VALUE_NOT_CONVERTED, 1208)


def test_given_an_attached_md_then_its_identifiers_are_full_length():
    s = PropertySet(md=MD(MsgId=b"\x01\x02"))
    got = s.inquire("Root.MQMD.MsgId")
    assert got.value == b"\x01\x02" + bytes(22) and got.data_length == 24
