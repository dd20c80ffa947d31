"""``import mqpy as ibmmq``: the public names IBM's ibmmq 2.x package exports, with their
behaviour: the structure classes (CNO, CSP, BNO, MDE, IIH, CIH, DMHO, DMPO besides pymqi's),
strings accepted as str or bytes in their fields, CMQSTRC's constant-to-name tables, the
helpers and exceptions. Left out on purpose: what loads IBM's C library, and ibmmq's
OpenTelemetry hooks."""

from __future__ import annotations

import pytest

import mqpy as ibmmq
from mqpy import CMQC, CMQCFC

#: ibmmq 2.x's public names mqpy provides (ibmmq/__init__.py and the modules it star-imports)
IBMMQ_NAMES = (
    "CMQC", "CMQCFC", "CMQXC", "CMQSTRC",
    "MD", "MDE", "GMO", "PMO", "CNO", "BNO", "CSP", "CD", "OD", "SCO", "TM", "TMC2", "XQH",
    "CFH", "CFGR", "CFIL", "CFIL64", "CFIN", "CFIN64", "CFSF", "CFBF", "CFIF", "CFSL", "CFST",
    "CFBS", "RFH2", "DLH", "IIH", "CIH", "DMHO", "DMPO",
    "SD", "SRO", "STS", "CBD", "CTLO", "CBC", "CMHO", "IMPO", "SMPO", "PD",
    "QueueManager", "Queue", "PCFExecute", "MQObject", "MQOpts",
    "Topic", "Subscription", "MessageHandle",
    "Error", "MQMIError", "PYIFError",
    "ByteString", "Filter", "FilterOperator", "StringFilter", "IntegerFilter",
    "ByteStringFilter",
    "connect", "get_versions", "to_string", "ensure_strings_are_bytes", "ensure_bytes",
    "ensure_not_unicode", "is_unicode", "padded_count", "common_q_args", "commonQArgs",
    "MQLONG_TYPE", "INTEGER64_TYPE", "EncodingDefault", "default",
    "__version__", "__cmdlevel__", "__mqbuild__",
)


def test_every_ibmmq_name_is_there():
    """Given ibmmq 2.x's public names (less those left out), then mqpy has each one."""
    assert [n for n in IBMMQ_NAMES if not hasattr(ibmmq, n)] == []


@pytest.mark.parametrize(("cls", "lengths"), [
    ("CNO", {1: CMQC.MQCNO_LENGTH_1, 4: CMQC.MQCNO_LENGTH_4, 5: CMQC.MQCNO_LENGTH_5,
             8: CMQC.MQCNO_LENGTH_8}),
    ("CSP", {1: CMQC.MQCSP_LENGTH_1, 2: CMQC.MQCSP_LENGTH_2, 3: CMQC.MQCSP_LENGTH_3}),
    ("BNO", {1: 20}),
    ("MDE", {2: CMQC.MQMDE_LENGTH_2}),
    ("IIH", {1: CMQC.MQIIH_LENGTH_1}),
    ("CIH", {1: CMQC.MQCIH_LENGTH_1, 2: CMQC.MQCIH_LENGTH_2}),
    ("DMHO", {1: 12}),
    ("DMPO", {1: 12}),
])
def test_structures_pack_to_ibms_lengths_and_back(cls, lengths):
    """Given each new structure class at each version, when packed, then it takes IBM's
    length and starts with its StrucId; unpacked, it gives the same values back."""
    struct_cls = getattr(ibmmq, cls)
    for version, length in lengths.items():
        s = struct_cls(Version=version)
        data = s.pack()
        assert len(data) == length
        assert data[:4] == getattr(CMQC, f"MQ{cls}_STRUC_ID")
        assert struct_cls().unpack(data) == s


def test_strings_are_accepted_as_str_or_bytes():
    """Given a structure field that holds characters, when a program sets it as str or as
    bytes, then both pack alike; the CSP's user and password, which C reaches through
    pointers, are kept as given and their lengths set."""
    assert ibmmq.CIH(TransactionId="TRN1").pack() == ibmmq.CIH(TransactionId=b"TRN1").pack()
    assert ibmmq.MDE(Format="MQSTR").pack() == ibmmq.MDE(Format=b"MQSTR").pack()
    csp = ibmmq.CSP(CSPUserId="app", CSPPassword=b"secret")
    csp.AuthenticationType = CMQC.MQCSP_AUTH_USER_ID_AND_PWD
    assert (csp.CSPUserId, csp.CSPPassword) == ("app", b"secret")
    assert (csp.CSPUserIdLength, csp.CSPPasswordLength) == (3, 6)
    assert len(csp.pack()) == CMQC.MQCSP_LENGTH_1
    cd = ibmmq.CD(SSLPeerNamePtr="CN=qm")
    assert cd.SSLPeerName == b"CN=qm"
    assert ibmmq.CNO(ApplName="app", CCDTUrl="file:///tmp/ccdt.json").ApplName == b"app"


def test_structure_to_string_decodes_text_fields_not_binary_ones():
    """Given an MD with a Format and a MsgId, when to_string() runs, then the Format is a
    str without its padding and the MsgId stays bytes, as ibmmq's MQOpts.to_string."""
    md = ibmmq.MD(Format=CMQC.MQFMT_STRING, MsgId=b"A" * 24)
    assert md.to_string() is md
    assert md.Format == "MQSTR"
    assert md.MsgId == b"A" * 24


def test_cmqstrc_maps_values_to_names():
    """Given CMQSTRC, then its <prefix>_DICT tables name each value as IBM's do, and
    MQMIError's text uses them."""
    assert ibmmq.CMQSTRC.MQRC_DICT[2033] == "MQRC_NO_MSG_AVAILABLE"
    assert ibmmq.CMQSTRC.MQRCCF_DICT[3007] == "MQRCCF_CFH_COMMAND_ERROR"
    assert ibmmq.CMQSTRC.MQCC_DICT[2] == "MQCC_FAILED"
    assert ibmmq.CMQSTRC.MQOT_DICT[CMQC.MQOT_Q] == "MQOT_Q"
    assert ibmmq.CMQSTRC.MQCMD_DICT[CMQCFC.MQCMD_INQUIRE_Q] == "MQCMD_INQUIRE_Q"
    assert ibmmq.CMQSTRC.MQBNO_TIMEOUT_DICT[-1] == "MQBNO_TIMEOUT_AS_DEFAULT"
    with pytest.raises(AttributeError):
        ibmmq.CMQSTRC.NOT_A_DICT  # noqa: B018
    err = ibmmq.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert "MQRC_NO_MSG_AVAILABLE" in str(err)
    assert err.error_as_string() == "FAILED: MQRC_NO_MSG_AVAILABLE"


def test_byte_string_filter_and_helpers():
    """Given a selector in the MQBA range, then Filter makes a ByteStringFilter (an MQCFBF);
    to_string, EncodingDefault and MQObject behave as ibmmq's."""
    f = ibmmq.Filter(CMQCFC.MQBACF_EXTERNAL_UOW_ID).equal(b"\x01\x02")
    assert isinstance(f, ibmmq.ByteStringFilter)
    assert f.structure().pack()[:4] == CMQCFC.MQCFT_BYTE_STRING_FILTER.to_bytes(4, "little")
    assert ibmmq.to_string(b"QM1 \x00") == "QM1"
    assert ibmmq.EncodingDefault.bytes_encoding == "utf8"
    assert ibmmq.MQObject("X").to_string(b"Q1\x00garbage") == "Q1"


def test_xqh_header_and_embedded_md_from_a_message():
    """Given a message of a transmission queue (an MQXQH with its MQMD v1, then the data),
    when XQH().get_header and get_embedded_md read it, then they answer the header's remote
    names and the embedded MD's fields, as ibmmq's XQH does."""
    xqh = ibmmq.XQH(RemoteQName=b"RQ", RemoteQMgrName=b"QM2")
    xqh.MsgDesc.Format = CMQC.MQFMT_STRING
    xqh.MsgDesc.Persistence = CMQC.MQPER_PERSISTENT
    message = xqh.pack() + b"body"
    header = ibmmq.XQH().get_header(message)
    assert (header.RemoteQName.strip(), header.RemoteQMgrName.strip()) == (b"RQ", b"QM2")
    md = ibmmq.XQH().get_embedded_md(message)
    assert isinstance(md, ibmmq.MD)
    assert (md.Format, md.Persistence) == (CMQC.MQFMT_STRING, CMQC.MQPER_PERSISTENT)
    assert message[CMQC.MQXQH_CURRENT_LENGTH:] == b"body"


def test_rfh2_folders_by_name_and_to_string():
    """Given an RFH2 with two folders, then get_folders() names them in order and
    get_folder_name() reads a folder's name; to_string() makes its Format a str."""
    rfh2 = ibmmq.RFH2(Format=CMQC.MQFMT_STRING)
    rfh2.add_folder(b"<mcd><Msd>jms_text</Msd></mcd>")
    rfh2.add_folder(b"<usr><colour>blue</colour></usr>")
    assert rfh2.get_folders() == ["mcd", "usr"]
    assert ibmmq.RFH2.get_folder_name(b"<jms><Dst>queue:///Q1</Dst></jms>") == "jms"
    assert rfh2.to_string() is rfh2
    assert rfh2["Format"] == "MQSTR"


def test_sco_takes_ibmmqs_key_repository_password_and_https_key_store():
    """Given ibmmq's SCO fields of MQSCO versions 6 and 7, when a program sets the key
    repository's password and the HTTPS key store as strings, then they are kept, their
    lengths set, and the structure packs to IBM's 648 and 672 bytes."""
    sco = ibmmq.SCO(Version=CMQC.MQSCO_VERSION_6, KeyRepoPassword="s3cret")
    assert (sco.KeyRepoPassword, sco.KeyRepoPasswordLength) == ("s3cret", 6)
    assert len(sco.pack()) == CMQC.MQSCO_LENGTH_6
    sco.Version = CMQC.MQSCO_VERSION_7
    sco.HTTPSKeyStore = b"/var/mqm/https.p12"
    assert sco.HTTPSKeyStoreLength == len(b"/var/mqm/https.p12")
    assert len(sco.pack()) == CMQC.MQSCO_LENGTH_7
    assert ibmmq.SCO().Version == CMQC.MQSCO_VERSION_5
