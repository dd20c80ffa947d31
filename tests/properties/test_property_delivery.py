"""Given MQGMO_PROPERTIES_* options and a queue's PROPCTL, when MQGET delivers a message,
then its properties go where IBM says."""

import pytest

from mqpy import CMQC
from mqpy.properties.delivery import ChannelAction, Delivery, channel_delivery, delivery
from mqpy.properties.errors import PropertyError
from mqpy.properties.propset import Property

T = CMQC
JMS = ["usr.colour"]
OWN = ["shop.city"]


@pytest.mark.parametrize("gmo,propctl,handle,names,expected", [
    (T.MQGMO_NO_PROPERTIES, T.MQPROP_ALL, True, JMS, Delivery.NONE),
    (T.MQGMO_PROPERTIES_FORCE_MQRFH2, T.MQPROP_ALL, True, JMS, Delivery.RFH2),
    (T.MQGMO_PROPERTIES_IN_HANDLE, T.MQPROP_NONE, True, JMS, Delivery.HANDLE),
    (T.MQGMO_PROPERTIES_COMPATIBILITY, T.MQPROP_ALL, False, JMS, Delivery.RFH2),
    (T.MQGMO_PROPERTIES_COMPATIBILITY, T.MQPROP_ALL, False, OWN, Delivery.NONE),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_ALL, True, OWN, Delivery.HANDLE),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_ALL, False, OWN, Delivery.RFH2),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_COMPATIBILITY, False, JMS, Delivery.RFH2),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_COMPATIBILITY, False, OWN, Delivery.NONE),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_COMPATIBILITY, True, OWN, Delivery.HANDLE),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_FORCE_MQRFH2, True, OWN, Delivery.RFH2),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_NONE, True, JMS, Delivery.HANDLE),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_NONE, False, JMS, Delivery.NONE),
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_V6COMPAT, False, JMS, Delivery.AS_PUT),
])
def test_given_options_and_propctl_then_ibms_delivery(gmo, propctl, handle, names, expected):
    assert delivery(gmo, propctl, handle, [n.removeprefix("usr.") for n in names]) is expected


def test_given_two_property_options_then_options_error():
    with pytest.raises(PropertyError) as err:
        delivery(T.MQGMO_NO_PROPERTIES | T.MQGMO_PROPERTIES_IN_HANDLE, T.MQPROP_ALL, True)
    assert err.value.reason == T.MQRC_OPTIONS_ERROR


def test_given_in_handle_without_a_handle_then_hmsg_error():
    with pytest.raises(PropertyError) as err:
        delivery(T.MQGMO_PROPERTIES_IN_HANDLE, T.MQPROP_ALL, False)
    assert err.value.reason == T.MQRC_HMSG_ERROR


def _props(*specs):
    return [Property(name, T.MQTYPE_INT32, 1, support) for name, support in specs]


OPT, REQ = T.MQPD_SUPPORT_OPTIONAL, T.MQPD_SUPPORT_REQUIRED


@pytest.mark.parametrize("propctl,props,expected", [
    (T.MQPROP_ALL, [("shop.x", OPT)], ChannelAction.SEND_RFH2),
    (T.MQPROP_ALL, [("mq.x", REQ)], ChannelAction.SEND_RFH2),
    (T.MQPROP_COMPATIBILITY, [("colour", OPT), ("shop.x", OPT)], ChannelAction.SEND_RFH2),
    (T.MQPROP_COMPATIBILITY, [("shop.x", OPT)], ChannelAction.DROP),
    (T.MQPROP_COMPATIBILITY, [("colour", OPT), ("mq.x", REQ)], ChannelAction.REJECT),
    (T.MQPROP_NONE, [("colour", OPT)], ChannelAction.DROP),
    (T.MQPROP_NONE, [("mq.x", REQ)], ChannelAction.REJECT),
    (T.MQPROP_COMPATIBILITY, [], ChannelAction.DROP),
])
def test_given_a_channel_propctl_then_what_the_partner_gets(propctl, props, expected):
    assert channel_delivery(propctl, _props(*props)) is expected
