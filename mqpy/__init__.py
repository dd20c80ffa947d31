"""mqpy: an MQSeries-style queue manager in pure Python, with a pymqi-shaped MQI.

``import mqpy as pymqi`` gives a pymqi program the names it uses: connect, QueueManager, Queue,
MD, OD, PMO, GMO, CD, SCO, RFH2, CMQC, CMQCFC, CMQXC, MQMIError, and PCFExecute (with the PCF
structures, Filter and ByteString) for the command server. ``mqpy.embedded(name)`` runs a
queue manager inside the calling process.
"""

import importlib
import sys
import types

from mqpy import CMQC
from mqpy.version import __version__ as __version__

#: where each name of the package's pymqi-shaped interface is defined, imported when first
#: asked for (``__getattr__``): a control command, the daemon or the channel initiator
#: imports ``mqpy.config`` or the engine without paying for the whole MQI, its structures
#: and PCF (a third of a control command's start). The name is then kept in the package,
#: so later uses are plain attribute look-ups.
_DEFINED_IN = {
    "mqpy.asyncconsume": "CBC CBD CTLO",
    "mqpy.errors": "Error MQMIError PYIFError",
    "mqpy.mqi": "Queue QueueManager common_q_args commonQArgs connect default ensure_bytes "
                "is_unicode make_q_desc makeQDesc",
    "mqpy.mqobject": "MQObject",
    "mqpy.pcf": "CFBF CFBS CFGR CFIF CFIL CFIL64 CFIN CFIN64 CFSF CFSL CFST",
    "mqpy.pcfexec": "ByteString ByteStringFilter Filter FilterOperator IntegerFilter "
                    "PCFExecute StringFilter _MQConst2String",  # (pymqi's, which programs use)
    "mqpy.properties.calls": "MessageHandle",  # MQCRTMH (pymqi, ibmmq)
    "mqpy.rfh2": "RFH2",
    "mqpy.structs.mqopts": "INTEGER64_TYPE MQLONG_TYPE MQOpts ensure_not_unicode "
                           "padded_count py23long",
    "mqpy.structs.propstructs": "BMHO CMHO IMPO MHBO PD SMPO",  # message-property structures
    "mqpy.structs.pubsubstructs": "SD SRO",
    "mqpy.structs.tables": "BNO CD CFH CIH CNO CSP DH DLH DMHO DMPO GMO IIH MD MDE OD OR PMO "
                           "PMR RR SCO TM TMC2 XQH STS",  # STS: ibmmq's QueueManager.stat()
    "mqpy.topic": "Subscription Topic",
    #: the embedded mode's entry points: with them the engine, which a bindings or client
    #: application never loads
    "mqpy.embedding": "embedded stop_embedded",
}
#: the other names a pymqi or ibmmq program uses for some of those: alias -> name
_ALIASES = {
    # pymqi's lower-case aliases of the structure classes ("Backward compatibility" in pymqi)
    "cd": "CD", "gmo": "GMO", "md": "MD", "od": "OD", "pmo": "PMO", "sco": "SCO",
    "sts": "STS", "sd": "SD", "sro": "SRO",
    "EncodingDefault": "default",  # ibmmq's name of pymqi's ``default``
    # ibmmq's name of ensure_bytes (a str for an MQCHAR field encoded as default.mqi_encoding)
    "ensure_strings_are_bytes": "ensure_bytes",
}
_MODULE_OF = {name: module for module, names in _DEFINED_IN.items() for name in names.split()}
#: the constant modules, as attributes of the package
_SUBMODULES = {"CMQCFC", "CMQSTRC", "CMQXC", "CMQZC"}


def _pymqe() -> types.ModuleType:
    """pymqi's C extension's name (``from pymqi import pymqe``, which programs import beside
    pymqi, falling back to ``import pymqe``): a module with its build facts, ``__mqlevels__``
    and ``__mqbuild__``, and none of its MQI functions -- an MQI call is the package's."""
    module = types.ModuleType(f"{__name__}.pymqe", _pymqe.__doc__)
    module.__mqlevels__ = __mqlevels__  # type: ignore[attr-defined]
    module.__mqbuild__ = __mqbuild__  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    return module


def __getattr__(name: str) -> object:
    """A name of the pymqi-shaped interface, from the module that defines it (imported now if
    it is not yet), kept in the package for the next look-up."""
    if name == "pymqe":
        value: object = _pymqe()
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    elif name in _ALIASES:
        value = __getattr__(_ALIASES[name])
    elif name in _MODULE_OF:
        value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF, *_ALIASES, *_SUBMODULES, "pymqe"})


#: pymqi's and ibmmq's build flag: "common", as ibmmq 2.x says, since one mqpy makes both
#: bindings and client connections
__mqbuild__ = "common"
#: pymqi's: the MQ command levels the MQI has (programs test ``'7.0' in __mqlevels__``
#: before using a structure's MQ 7 fields): every level pymqi's extension lists
__mqlevels__ = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0.0", "8.0.1")
#: the command level of the MQI this package implements (ibmmq's ``__cmdlevel__``)
__cmdlevel__ = CMQC.MQCMDL_CURRENT_LEVEL


def get_versions() -> dict[str, object]:
    """ibmmq's: this library's version and the MQ command level it implements."""
    return {"module": __version__, "MQ": __cmdlevel__}


#: mqpy.mqi.default's bytes_encoding, which to_string's default encoding has always been
_BYTES_ENCODING = "utf8"


def to_string(v: object, encoding: str = _BYTES_ENCODING) -> object:
    """ibmmq's: an MQCHAR field as str, blanks and NULs stripped; a value that is not
    bytes, or does not decode, unchanged."""
    if isinstance(v, bytes):
        try:
            return v.decode(encoding).strip(" \x00")
        except UnicodeError:
            pass
    return v


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
