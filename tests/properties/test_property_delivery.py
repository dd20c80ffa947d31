"""Given MQGMO_PROPERTIES_* options and a queue's PROPCTL, when MQGET delivers a message,
then its properties go where IBM says."""

import pytest

from mqpy import CMQC
from mqpy.properties.delivery import Delivery, delivery
from mqpy.properties.errors import PropertyError

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
    (T.MQGMO_PROPERTIES_AS_Q_DEF, T.MQPROP_NONE, True, JMS, Delivery.NONE),
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
