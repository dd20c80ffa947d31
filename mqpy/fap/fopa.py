"""MQFOPA: the object's defaults an MQOPEN reply carries to the application's side of the
connection, laid out as IBM's client and Wireshark's packet-mq.c (``mq.fopa.*``) read it.

From FAP level 9 an MQOPEN request and its reply carry, after the MQOD and the open
options, an FOPA: StrucId ``FOPA``, Version, Length, then the opened object's
DefPersistence (MQPER_*), DefPutResponseType (MQPRT_*), DefReadAhead (MQREADA_*) and
PropertyControl (MQPROP_*). The request's carries -1 for the defaults (nothing asked of the
queue manager); the reply's the object's own (an alias's, not its target's). With them the
application's side knows at open whether a put with MQPMO_RESPONSE_AS_Q_DEF is asynchronous
and whether MQOO_READ_AHEAD_AS_Q_DEF reads ahead, without asking again. Version 1 is 28
bytes; a longer one (version 2 adds AMS's policy, 84 bytes) is read for its first fields.

Sans-IO: :func:`tail` builds what follows the MQOD, :func:`split` reads it back.
"""

from __future__ import annotations

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ByteOrder

__all__ = ["FAP_LEVEL", "FOPA", "OpenDefaults", "request_tail", "split", "tail"]

#: The lowest negotiated FAP level whose MQOPEN flows carry an FOPA.
FAP_LEVEL = 9
STRUC_ID = b"FOPA"
VERSION_1 = 1


def _layout(int32: cs.Construct) -> cs.Struct:
    return cs.Struct(
        "StrucId" / cs.Const(STRUC_ID),  # 0
        "Version" / int32,  # 4
        "Length" / int32,  # 8
        "DefPersistence" / int32,  # 12  MQPER_*
        "DefPutResponseType" / int32,  # 16  MQPRT_*
        "DefReadAhead" / int32,  # 20  MQREADA_*
        "PropertyControl" / int32,  # 24  MQPROP_*
    )


#: the FOPA by byte order (version 1)
FOPA = {ByteOrder.LITTLE: _layout(cs.Int32sl), ByteOrder.BIG: _layout(cs.Int32sb)}
LENGTH_1 = FOPA[ByteOrder.LITTLE].sizeof()
_OPTIONS = {ByteOrder.LITTLE: cs.Int32sl, ByteOrder.BIG: cs.Int32sb}
_UNKNOWN = -1


@attrs.frozen
class OpenDefaults:
    """An opened object's defaults, as the MQOPEN reply's FOPA gives them."""

    persistence: int = CMQC.MQPER_NOT_PERSISTENT
    put_response: int = CMQC.MQPRT_SYNC_RESPONSE
    read_ahead: int = CMQC.MQREADA_NO
    property_control: int = CMQC.MQPROP_COMPATIBILITY

    @property
    def asynchronous_put(self) -> bool:
        """Is a put with MQPMO_RESPONSE_AS_Q_DEF asynchronous (DEFPRESP(ASYNC))?"""
        return self.put_response == CMQC.MQPRT_ASYNC_RESPONSE

    def reads_ahead(self, options: int) -> bool:
        """Does a handle opened with ``options`` read ahead (IBM's rules, as the queue
        manager's ``engine.readahead.in_effect`` keeps them)?"""
        if not options & (CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED
                          | CMQC.MQOO_INPUT_EXCLUSIVE) or options & CMQC.MQOO_BROWSE:
            return False
        if self.read_ahead == CMQC.MQREADA_DISABLED or options & CMQC.MQOO_NO_READ_AHEAD:
            return False
        return bool(options & CMQC.MQOO_READ_AHEAD) or self.read_ahead == CMQC.MQREADA_YES


def _fopa(values: tuple[int, int, int, int], order: ByteOrder) -> bytes:
    persistence, put_response, read_ahead, property_control = values
    return FOPA[order].build({"Version": VERSION_1, "Length": LENGTH_1,
                              "DefPersistence": persistence,
                              "DefPutResponseType": put_response,
                              "DefReadAhead": read_ahead,
                              "PropertyControl": property_control})


def tail(options: int, defaults: OpenDefaults | None, fap_level: int,
         order: ByteOrder = ByteOrder.LITTLE) -> bytes:
    """What an MQOPEN reply carries after its MQOD: the open options, then (FAP level 9 and
    later, the defaults known) the FOPA."""
    out = _OPTIONS[order].build(options)
    if defaults is None or fap_level < FAP_LEVEL:
        return out
    return out + _fopa((defaults.persistence, defaults.put_response, defaults.read_ahead,
                        defaults.property_control), order)


#: An MQOPEN request's FOPA: no default asked of the queue manager.
def request_tail(order: ByteOrder = ByteOrder.LITTLE) -> bytes:
    """The FOPA an MQOPEN request carries after its options (FAP level 9 and later)."""
    return _fopa((_UNKNOWN, _UNKNOWN, 0, 0), order)


def split(data: bytes, pos: int, order: ByteOrder = ByteOrder.LITTLE
          ) -> tuple[int | None, OpenDefaults | None]:
    """The open options and the FOPA's defaults at ``data[pos:]`` (what follows an MQOPEN
    body's MQOD): None for what is not there. ProtocolError when the bytes are neither
    nothing, the options, nor the options and a whole FOPA."""
    rest = len(data) - pos
    if rest == 0:
        return None, None
    if rest < 4:
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA, "MQOPEN: bytes after the MQOD")
    options = _OPTIONS[order].parse(data[pos:pos + 4])
    if rest == 4:
        return options, None
    at = pos + 4
    try:
        fopa = FOPA[order].parse(data[at:at + LENGTH_1])
    except cs.ConstructError:
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA,
                            "MQOPEN: not an FOPA after the options") from None
    if fopa.Version < VERSION_1 or fopa.Length < LENGTH_1 or at + fopa.Length > len(data):
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA,
                            "MQOPEN: the FOPA's Version or Length is wrong")
    if fopa.DefPutResponseType == _UNKNOWN:  # a request's: nothing known
        return options, None
    return options, OpenDefaults(fopa.DefPersistence, fopa.DefPutResponseType,
                                 fopa.DefReadAhead, fopa.PropertyControl)
