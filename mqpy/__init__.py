"""mqpy: an MQSeries-style queue manager in pure Python, with a pymqi-shaped MQI.

``import mqpy as pymqi`` gives a pymqi program the names it uses: connect, QueueManager, Queue,
MD, OD, PMO, GMO, CD, SCO, RFH2, CMQC, CMQCFC, CMQXC, MQMIError, and PCFExecute (with the PCF
structures, Filter and ByteString) for the command server. ``mqpy.embedded(name)`` runs a
queue manager inside the calling process.
"""

import importlib

from mqpy import CMQC, CMQCFC, CMQSTRC, CMQXC, CMQZC
from mqpy.asyncconsume import CBC, CBD, CTLO
from mqpy.errors import Error, MQMIError, PYIFError
from mqpy.mqi import (
    Queue,
    QueueManager,
    common_q_args,
    commonQArgs,
    connect,
    default,
    ensure_bytes,
    is_unicode,
    make_q_desc,
    makeQDesc,
)
from mqpy.mqobject import MQObject
from mqpy.pcf import CFBF, CFBS, CFGR, CFIF, CFIL, CFIL64, CFIN, CFIN64, CFSF, CFSL, CFST
from mqpy.pcfexec import (
    ByteString,
    ByteStringFilter,
    Filter,
    FilterOperator,
    IntegerFilter,
    PCFExecute,
    StringFilter,
)
from mqpy.properties.calls import MessageHandle as MessageHandle  # MQCRTMH (pymqi, ibmmq)
from mqpy.rfh2 import RFH2
from mqpy.structs.mqopts import (
    INTEGER64_TYPE,
    MQLONG_TYPE,
    MQOpts,
    ensure_not_unicode,
    padded_count,
    py23long,
)
from mqpy.structs.propstructs import BMHO as BMHO  # the message-property structures
from mqpy.structs.propstructs import CMHO as CMHO
from mqpy.structs.propstructs import IMPO as IMPO
from mqpy.structs.propstructs import MHBO as MHBO
from mqpy.structs.propstructs import PD as PD
from mqpy.structs.propstructs import SMPO as SMPO
from mqpy.structs.pubsubstructs import SD, SRO
from mqpy.structs.tables import (
    BNO,
    CD,
    CFH,
    CIH,
    CNO,
    CSP,
    DH,
    DLH,
    DMHO,
    DMPO,
    GMO,
    IIH,
    MD,
    MDE,
    OD,
    OR,
    PMO,
    PMR,
    RR,
    SCO,
    TM,
    TMC2,
    XQH,
)
from mqpy.structs.tables import STS as STS  # MQSTS, for ibmmq's QueueManager.stat()
from mqpy.topic import Subscription, Topic
from mqpy.version import __version__ as __version__

#: the embedded mode's entry points, loaded (with the engine) on first use
_EMBEDDED = {"embedded", "stop_embedded"}


def __getattr__(name: str) -> object:
    """``mqpy.embedded`` and ``mqpy.stop_embedded``: :mod:`mqpy.embedding`, imported when
    first asked for, so that a bindings or client application never loads the engine."""
    if name in _EMBEDDED:
        return getattr(importlib.import_module("mqpy.embedding"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: pymqi's and ibmmq's build flag: "common", as ibmmq 2.x says, since one mqpy makes both
#: bindings and client connections
__mqbuild__ = "common"
#: the command level of the MQI this package implements (ibmmq's ``__cmdlevel__``)
__cmdlevel__ = CMQC.MQCMDL_CURRENT_LEVEL


#: ibmmq's name of pymqi's ``default`` (the encodings of text given as str)
EncodingDefault = default

#: ibmmq's name of ensure_bytes (a str for an MQCHAR field encoded as default.mqi_encoding)
ensure_strings_are_bytes = ensure_bytes


def get_versions() -> dict[str, object]:
    """ibmmq's: this library's version and the MQ command level it implements."""
    return {"module": __version__, "MQ": __cmdlevel__}


def to_string(v: object, encoding: str = default.bytes_encoding) -> object:
    """ibmmq's: an MQCHAR field as str, blanks and NULs stripped; a value that is not
    bytes, or does not decode, unchanged."""
    if isinstance(v, bytes):
        try:
            return v.decode(encoding).strip(" \x00")
        except UnicodeError:
            pass
    return v

# pymqi's lower-case aliases of the structure classes ("Backward compatibility" in pymqi)
cd = CD
gmo = GMO
md = MD
od = OD
pmo = PMO
sco = SCO
sts = STS
sd = SD
sro = SRO

__all__ = [
    "CMQC", "CMQCFC", "CMQXC", "CMQZC",
    "CBC", "CBD", "CTLO",
    "CD", "DH", "DLH", "GMO", "MD", "OD", "OR", "PMO", "PMR", "RR", "SCO", "TM", "TMC2", "XQH",
    "MQOpts", "MQLONG_TYPE", "INTEGER64_TYPE", "padded_count", "py23long", "RFH2",
    "cd", "gmo", "md", "od", "pmo", "sco",
    "Error", "MQMIError", "PYIFError",
    "Queue", "QueueManager", "connect", "embedded", "stop_embedded",
    "common_q_args", "commonQArgs", "make_q_desc", "makeQDesc",
    "default", "ensure_bytes", "ensure_not_unicode", "is_unicode",
    "CFBF", "CFBS", "CFGR", "CFH", "CFIF", "CFIL", "CFIL64", "CFIN", "CFIN64", "CFSF", "CFSL",
    "CFST", "ByteString", "Filter", "FilterOperator", "IntegerFilter", "PCFExecute",
    "StringFilter", "get_versions", "to_string", "ensure_strings_are_bytes",
    "STS", "sts",
    "CMQSTRC", "BNO", "CIH", "CNO", "CSP", "DMHO", "DMPO", "IIH", "MDE", "MQObject",
    "ByteStringFilter", "EncodingDefault",
    "SD", "SRO", "Subscription", "Topic", "sd", "sro",
]
