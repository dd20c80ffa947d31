"""pymqi 1.12.11's public surface, as a program meets it without connecting: signatures,
class attributes and the exceptions pymqi raises for a bad argument.

The signatures written here are pymqi's own (its ``code/pymqi/__init__.py``); mqpy may take
more (ibmmq's keywords), never fewer or in another order.
"""

from __future__ import annotations

import inspect

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC


def _parameters(function) -> list[tuple[str, object]]:
    """(name, default) of each parameter pymqi's callers can pass by position or name."""
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


_EMPTY = inspect.Parameter.empty


# -- signatures: pymqi's positional parameters, by name, in order, with their defaults --------
@pytest.mark.parametrize(("function", "expected"), [
    (lambda: pymqi.QueueManager.__init__,
     [("self", _EMPTY), ("name", ""), ("disconnect_on_exit", True),
      ("bytes_encoding", "utf8"), ("default_ccsid", 1208)]),
    (lambda: pymqi.Queue.get_no_jms, [("self", _EMPTY), ("max_length", None)]),
    (lambda: pymqi.Queue.get_no_rfh2, [("self", _EMPTY), ("max_length", None)]),
    (lambda: pymqi.Queue.set, [("self", _EMPTY), ("attribute", _EMPTY), ("arg", _EMPTY)]),
    (lambda: pymqi.PCFExecute.stringify_keys, [("rawDict", _EMPTY)]),
    (lambda: pymqi.MessageHandle._Properties.get,
     [("self", _EMPTY), ("name", _EMPTY), ("default", None), ("max_value_length", None),
      ("impo_options", CMQC.MQIMPO_INQ_FIRST), ("pd", CMQC.MQPD_NONE),
      ("property_type", CMQC.MQTYPE_AS_SET)]),
])
def test_a_method_takes_pymqis_parameters_in_pymqis_order(function, expected):
    """Given a pymqi method whose parameters a program passes by position or by name, when
    its signature is read, then it begins with pymqi's parameters, in pymqi's order, with
    pymqi's defaults (an ``arg`` without one may default to a marker in mqpy: ibmmq's
    dict form of ``Queue.set``)."""
    got = _parameters(function())[:len(expected)]
    assert [name for name, _ in got] == [name for name, _ in expected]
    wanted = [(got_default, want) for (_, got_default), (_, want)
              in zip(got, expected, strict=True) if want is not _EMPTY]
    assert [got_default for got_default, _ in wanted] == [want for _, want in wanted]


def test_queue_manager_takes_encoding_and_ccsid_by_position():
    """Given pymqi's ``QueueManager(name, disconnect_on_exit, bytes_encoding,
    default_ccsid)``, when a program passes all four by position (no connection: name None),
    then the encoding and CCSID are the ones given."""
    qm = pymqi.QueueManager(None, True, "iso-8859-1", 819)
    assert (qm.bytes_encoding, qm.default_ccsid) == ("iso-8859-1", 819)


def test_module_command_levels_are_pymqis():
    """Given a program that checks ``'7.0' in pymqi.__mqlevels__`` before using MQ 7
    structures, then the tuple has the levels pymqi's extension lists (5.0 to 8.0.1)."""
    assert pymqi.__mqlevels__ == ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5",
                                  "8.0.0", "8.0.1")


# -- class attributes ---------------------------------------------------------------------
def test_mqmierror_class_has_ok_codes_and_the_reason_dictionaries():
    """Given pymqi's MQMIError, then its class attributes comp and reason are MQCC_OK and
    MQRC_NONE, and errStringDicts map a reason to its name (MQRC_ then MQRCCF_)."""
    assert (pymqi.MQMIError.comp, pymqi.MQMIError.reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
    rc, rccf = pymqi.MQMIError.errStringDicts
    assert rc[CMQC.MQRC_NO_MSG_AVAILABLE] == "MQRC_NO_MSG_AVAILABLE"
    assert CMQCFC.MQRCCF_CFH_TYPE_ERROR in rccf and 2033 not in rccf
    assert rccf[CMQCFC.MQRCCF_CFH_TYPE_ERROR] == "MQRCCF_CFH_TYPE_ERROR"
    assert rc.has_key(2033)  # noqa: W601 - pymqi's deprecated spelling


def test_rfh2_class_has_pymqis_header_layout_and_big_endian_encodings():
    """Given pymqi's RFH2, then ``initial_opts`` lists the fixed header's fields (name,
    default, struct format) and ``big_endian_encodings`` the MQENC values it packs
    big-endian."""
    assert [row[0] for row in pymqi.RFH2.initial_opts] == [
        "StrucId", "Version", "StrucLength", "Encoding", "CodedCharSetId", "Format", "Flags",
        "NameValueCCSID"]
    assert pymqi.RFH2.initial_opts[0][1] == CMQC.MQRFH_STRUC_ID
    assert sorted(pymqi.RFH2.big_endian_encodings) == [1, 16, 17, 256, 257, 272, 273, 768]


def test_message_handle_default_value_length_is_a_class_attribute():
    """Given pymqi's MessageHandle, then ``default_value_length`` (the buffer MQINQMP gets
    when none is asked for) is 64 on the class, and ``_Properties`` is its properties'
    class."""
    assert pymqi.MessageHandle.default_value_length == 64
    assert inspect.isclass(pymqi.MessageHandle._Properties)


# -- bad arguments: pymqi's exception, before any MQI call ----------------------------------
def test_connect_without_a_queue_manager_or_channel_is_a_type_error():
    """Given ``pymqi.connect(None)`` (no queue manager, no channel), then TypeError, as
    pymqi's ``Invalid arguments``, and nothing is connected."""
    with pytest.raises(TypeError, match="Invalid arguments"):
        pymqi.connect(None)


def test_a_queue_given_too_many_arguments_is_a_type_error():
    """Given ``Queue(qmgr, name, opts, extra)``, then TypeError('Too many args'), before
    any open."""
    with pytest.raises(TypeError, match="Too many args"):
        pymqi.Queue(pymqi.QueueManager(None), "Q", CMQC.MQOO_OUTPUT, 0)


@pytest.mark.parametrize("message", [5, 1.5, None, ["a"]])
def test_putting_a_message_that_is_neither_bytes_nor_str_is_a_type_error(message):
    """Given a message that is not bytes or str, when it is put (or put1), then TypeError
    naming its type, as pymqi: ``Message type is <class 'int'>. Convert to bytes.``"""
    qm = pymqi.QueueManager(None)
    q = pymqi.Queue(qm, "Q")
    q.set_handle(1)  # an open handle: no open is tried
    with pytest.raises(TypeError, match=r"Message type is <class '\w+'>\. Convert to bytes"):
        q.put(message)
    with pytest.raises(TypeError, match="Convert to bytes"):
        qm.put1("Q", message)


def test_a_topic_descriptor_that_is_not_a_topics_is_refused():
    """Given ``Topic(qmgr, topic_desc=od)`` with an OD whose ObjectType is not MQOT_TOPIC,
    or whose Version is not 4, then PYIFError, as pymqi says it."""
    qm = pymqi.QueueManager(None)
    with pytest.raises(pymqi.PYIFError, match="ObjectType is not MQOT_TOPIC"):
        pymqi.Topic(qm, topic_desc=pymqi.OD())
    with pytest.raises(pymqi.PYIFError, match="Version is not MQOD_VERSION_4"):
        pymqi.Topic(qm, topic_desc=pymqi.OD(ObjectType=CMQC.MQOT_TOPIC))
    od = pymqi.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    assert pymqi.Topic(qm, topic_desc=od).get_handle() is None


def test_subscribing_with_a_descriptor_that_is_not_an_sd_is_a_type_error():
    """Given ``Subscription.sub(sub_desc=...)`` with something not an SD, then TypeError,
    as pymqi: ``sub_desc must be a SD(sub descriptor) object.``"""
    with pytest.raises(TypeError, match="sub_desc must be a SD"):
        pymqi.Subscription(pymqi.QueueManager(None)).sub(sub_desc=pymqi.OD())


def test_topic_and_subscription_keep_names_as_bytes():
    """Given a Topic or Subscription made with str names, when the program reads
    ``topic_name``, ``topic_string`` or ``sub_name``, then they are bytes, as pymqi keeps
    them (``ensure_bytes``)."""
    qm = pymqi.QueueManager(None)
    topic = pymqi.Topic(qm, topic_name="SPORTS", topic_string="sports/football")
    assert (topic.topic_name, topic.topic_string) == (b"SPORTS", b"sports/football")
    sub = pymqi.Subscription(qm, sub_name="S1", topic_string="a/b")
    assert (sub.sub_name, sub.topic_string, sub.topic_name) == (b"S1", b"a/b", None)


# -- structures: pymqi's MQOpts face ----------------------------------------------------------
STRUCTURES = ["MD", "GMO", "PMO", "OD", "CD", "SCO", "SD", "SRO", "CMHO", "PD", "SMPO",
              "IMPO", "XQH", "TM", "TMC2", "CFH", "RFH2", "CFIN", "CFIN64", "CFIL", "CFIL64",
              "CFST", "CFSL", "CFBS", "CFIF", "CFSF", "CFBF", "CFGR"]


@pytest.mark.parametrize("name", STRUCTURES)
def test_every_structure_is_an_mqopts(name):
    """Given any of pymqi's structure classes, when a program asks ``isinstance(s,
    pymqi.MQOpts)`` (pymqi's structures are its subclasses), then the answer is True."""
    assert isinstance(getattr(pymqi, name)(), pymqi.MQOpts)


@pytest.mark.parametrize("name", [n for n in STRUCTURES if not n.startswith("CF")]
                         + ["CFH"])
def test_an_unknown_member_name_is_an_attribute_error(name):
    """Given a structure, when a program sets or reads a member it does not have, by
    ``set``, by item or in the constructor, then AttributeError, as pymqi documents
    (``MQOpts.set``: an AttributeError exception is raised for invalid member names)."""
    cls = getattr(pymqi, name)
    with pytest.raises(AttributeError):
        cls().set(NoSuchMember=1)
    with pytest.raises(AttributeError):
        cls()["NoSuchMember"] = 1
    if name != "RFH2":  # pymqi's RFH2 reads an unknown item as an attribute: also refused
        with pytest.raises(AttributeError):
            cls()["NoSuchMember"]
    with pytest.raises(AttributeError):
        cls(NoSuchMember=1)


@pytest.mark.parametrize(("structure", "fields"), [
    (lambda: pymqi.CFIN(Parameter=CMQC.MQIA_CURRENT_Q_DEPTH, Value=5),
     {"Type": CMQCFC.MQCFT_INTEGER, "StrucLength": 16, "Parameter": 3, "Value": 5}),
    (lambda: pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"APP.Q"),
     {"Type": CMQCFC.MQCFT_STRING, "StrucLength": 28, "Parameter": 2016,
      "CodedCharSetId": 0, "StringLength": 5, "String": b"APP.Q"}),
    (lambda: pymqi.CFIL(Parameter=CMQCFC.MQIACF_Q_ATTRS, Values=[1, 2]),
     {"Type": CMQCFC.MQCFT_INTEGER_LIST, "StrucLength": 24, "Parameter": 1002, "Count": 2,
      "Values": [1, 2]}),
    (lambda: pymqi.CFIF(Parameter=CMQC.MQIA_CURRENT_Q_DEPTH, Operator=CMQCFC.MQCFOP_GREATER,
                        FilterValue=0),
     {"Type": CMQCFC.MQCFT_INTEGER_FILTER, "StrucLength": 20, "Parameter": 3,
      "Operator": CMQCFC.MQCFOP_GREATER, "FilterValue": 0}),
])
def test_a_pcf_parameter_structure_has_pymqis_members(structure, fields):
    """Given a PCF parameter structure, when a program reads it as a pymqi MQOpts (``get()``,
    items, ``StrucLength``, ``get_length()``, ``str()``) or sets a member by ``set`` or
    item, then it sees pymqi's members, in pymqi's order, and the lengths packing gives."""
    s = structure()
    assert list(s.get().items())[:len(fields)] == list(fields.items())
    assert s["StrucLength"] == s.StrucLength == s.get_length() == len(s.pack())
    assert str(s).splitlines()[:len(fields)] == [f"{k}: {v}" for k, v in fields.items()]
    s.set(Parameter=7)
    s["Parameter"] = 8
    assert s.Parameter == s["Parameter"] == 8
    with pytest.raises(AttributeError):
        s.set(NoSuchMember=1)


def test_a_user_without_a_password_is_a_value_error_before_connecting():
    """Given ``connect_with_options`` (or ``connect_tcp_client``) with ``user=`` and no
    password, or a user or password that is not str or bytes, then ValueError, as pymqi
    raises it, before any connection is tried."""
    qm = pymqi.QueueManager(None)
    with pytest.raises(ValueError, match="Password must not be None"):
        qm.connect_with_options("QM1", user="app")
    with pytest.raises(ValueError, match="Password must not be None"):
        qm.connect_tcp_client("QM1", pymqi.CD(), "APP.SVRCONN", "127.0.0.1(1)", user="app")
    with pytest.raises(ValueError, match="must be instances of str or bytes"):
        qm.connect_with_options("QM1", user="app", password=5)
    assert not qm.is_connected


def test_a_transmission_header_unpacks_from_its_104_bytes():
    """Given a transmission-queue message (MQXQH, its MQMD, the data), when a program reads
    it as pymqi's XQH allows, ``XQH().unpack(msg[:104])`` then ``MD().unpack(msg[104:])``,
    then the header's names and the embedded MQMD's fields are the ones written."""
    xqh = pymqi.XQH(RemoteQName=b"TARGET.Q", RemoteQMgrName=b"QM2")
    xqh.MsgDesc.Priority = 7
    msg = xqh.pack() + b"data"
    header = pymqi.XQH()
    header.unpack(msg[:104])
    assert (header.RemoteQName.rstrip(), header.RemoteQMgrName.rstrip()) == (b"TARGET.Q", b"QM2")
    md = pymqi.MD()
    md.unpack(msg[104:])
    assert md.Priority == 7


def test_pcf_structures_take_pymqis_derived_fields():
    """Given pymqi's PCF constructors with the lengths and counts pymqi takes beside the
    values (StringLength, Count, FilterValueLength, StrucLength, Type), then a structure
    made with the values' own is the one made without them; a longer StringLength pads the
    string with NULs, as pymqi packs it; a count the values do not make is a ValueError."""
    plain = pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"APP.Q")
    assert pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"APP.Q", StringLength=5,
                      StrucLength=28, Type=CMQCFC.MQCFT_STRING).pack() == plain.pack()
    assert pymqi.CFIL(Parameter=1002, Values=[1, 2], Count=2).pack() \
        == pymqi.CFIL(Parameter=1002, Values=[1, 2]).pack()
    assert pymqi.CFSF(Parameter=2016, FilterValue=b"A*", FilterValueLength=2).get()[
        "FilterValueLength"] == 2
    padded = pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"ab", StringLength=4)
    assert (padded.String, padded.StrucLength) == (b"ab\0\0", 24)
    with pytest.raises(ValueError):
        pymqi.CFIL(Parameter=1002, Values=[1, 2], Count=3)
