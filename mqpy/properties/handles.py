"""``MessageHandleTable``: a connection's message handles, and the MQI calls on them.

MQCRTMH makes a handle (a 64-bit number, never MQHM_NONE nor MQHM_UNUSABLE_HMSG) holding an
empty ``PropertySet``; MQDLTMH deletes it and returns MQHM_NONE; MQSETMP / MQINQMP / MQDLTMP
act on its set; MQMHBUF writes its properties as an MQRFH2 and MQBUFMH reads an MQRFH2 at the
front of a buffer into it. Each call checks its structure as IBM does (StrucId, Version,
Options: MQRC_CMHO_ERROR, _DMHO_, _SMPO_, _IMPO_, _DMPO_, _PD_, _MHBO_, _BMHO_ERROR), and an
unknown handle is MQRC_HMSG_ERROR. A handle an asynchronous put still uses cannot be deleted
(MQRC_MSG_HANDLE_IN_USE). Nothing here does I/O.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

from mqpy import CMQC
from mqpy.properties import names
from mqpy.properties.carriage import give_properties, take_properties
from mqpy.properties.errors import fail
from mqpy.properties.propset import Inquired, PropertySet
from mqpy.structs.propstructs import BMHO, CMHO, DMHO, DMPO, IMPO, MHBO, PD, SMPO
from mqpy.structs.tables import MD

__all__ = ["MessageHandleTable"]

C = CMQC
_CMHO_OPTIONS = (C.MQCMHO_DEFAULT_VALIDATION, C.MQCMHO_VALIDATE, C.MQCMHO_NO_VALIDATION)
_MHBO_KNOWN = C.MQMHBO_PROPERTIES_IN_MQRFH2 | C.MQMHBO_DELETE_PROPERTIES
_FIRST_HANDLE = 0x0000_0001_0000_0001  # nothing a program could mistake for a small number


def _check_struct(struct: Any, cls: type, reason: int) -> None:
    # (by its StrucId, not its class: mqpy.DMHO / DMPO are the MQI tables' own classes)
    if getattr(struct, "StrucId", None) != cls._layout_.struc_id \
            or getattr(struct, "Version", None) != 1:
        raise fail(reason)


class MessageHandleTable:
    """The message handles of one connection."""

    def __init__(self) -> None:
        self._sets: dict[int, PropertySet] = {}
        self._numbers = itertools.count(_FIRST_HANDLE)
        self.in_use: set[int] = set()  #: handles an unfinished asynchronous put holds

    def __len__(self) -> int:
        return len(self._sets)

    def properties(self, hmsg: int) -> PropertySet:
        """The property set of ``hmsg``, or MQRC_HMSG_ERROR."""
        try:
            return self._sets[hmsg]
        except (KeyError, TypeError):
            raise fail(C.MQRC_HMSG_ERROR) from None

    def crtmh(self, cmho: CMHO | None = None) -> int:
        """MQCRTMH: a new handle, validating names unless MQCMHO_NO_VALIDATION."""
        cmho = CMHO() if cmho is None else cmho
        _check_struct(cmho, CMHO, C.MQRC_CMHO_ERROR)
        if cmho.Options not in _CMHO_OPTIONS:
            raise fail(C.MQRC_CMHO_ERROR)
        hmsg = next(self._numbers)
        self._sets[hmsg] = PropertySet(validate=cmho.Options != C.MQCMHO_NO_VALIDATION)
        return hmsg

    def dltmh(self, hmsg: int, dmho: DMHO | None = None) -> int:
        """MQDLTMH: delete ``hmsg``; returns MQHM_NONE, the value IBM leaves in Hmsg."""
        dmho = DMHO() if dmho is None else dmho
        _check_struct(dmho, DMHO, C.MQRC_DMHO_ERROR)
        if dmho.Options != C.MQDMHO_NONE:
            raise fail(C.MQRC_DMHO_ERROR)
        self.properties(hmsg)
        if hmsg in self.in_use:
            raise fail(C.MQRC_MSG_HANDLE_IN_USE)
        del self._sets[hmsg]
        return C.MQHM_NONE

    def close_all(self) -> None:
        """MQDISC: every handle of the connection goes."""
        self._sets.clear()
        self.in_use.clear()

    # -- property calls ---------------------------------------------------------------------
    def setmp(self, hmsg: int, name: str, value: Any, ptype: int, *,
              smpo: SMPO | None = None, pd: PD | None = None,
              value_length: int | None = None) -> None:
        """MQSETMP."""
        pset = self.properties(hmsg)
        smpo = SMPO() if smpo is None else smpo
        pd = PD() if pd is None else pd
        _check_struct(smpo, SMPO, C.MQRC_SMPO_ERROR)
        _check_struct(pd, PD, C.MQRC_PD_ERROR)
        pset.set(name, value, ptype, value_length=value_length, options=smpo.Options,
                 support=pd.Support, context=pd.Context, copy_options=pd.CopyOptions,
                 pd_options=pd.Options, value_ccsid=smpo.ValueCCSID)

    def inqmp(self, hmsg: int, name: str, *, impo: IMPO | None = None, pd: PD | None = None,
              ptype: int = C.MQTYPE_AS_SET, max_length: int | None = None) -> Inquired:
        """MQINQMP; fills ``impo``'s Returned* fields and ``pd`` as IBM does."""
        pset = self.properties(hmsg)
        impo = IMPO() if impo is None else impo
        _check_struct(impo, IMPO, C.MQRC_IMPO_ERROR)
        if pd is not None:
            _check_struct(pd, PD, C.MQRC_PD_ERROR)
        got = pset.inquire(name, options=impo.Options, ptype=ptype, max_length=max_length,
                           requested_ccsid=impo.RequestedCCSID)
        impo.ReturnedCCSID = got.ccsid
        impo.ReturnedEncoding = impo.RequestedEncoding
        impo.ReturnedNameVSLength = len(got.name.encode("utf-8"))
        if pd is not None:
            pd.Support, pd.Context, pd.CopyOptions = got.support, got.context, got.copy_options
        return got

    def dltmp(self, hmsg: int, name: str, dmpo: DMPO | None = None) -> None:
        """MQDLTMP."""
        pset = self.properties(hmsg)
        dmpo = DMPO() if dmpo is None else dmpo
        _check_struct(dmpo, DMPO, C.MQRC_DMPO_ERROR)
        pset.delete(name, options=dmpo.Options)

    # -- buffers ----------------------------------------------------------------------------
    def mhbuf(self, hmsg: int, name: str = "%", mhbo: MHBO | None = None,
              md: Any = None) -> bytes:
        """MQMHBUF: the properties matching ``name`` as one MQRFH2 (empty bytes when none).
        The MQRFH2 takes ``md``'s Format, Encoding and CodedCharSetId for what follows it,
        and ``md`` then describes the MQRFH2 (Format MQFMT_RF_HEADER_2)."""
        pset = self.properties(hmsg)
        mhbo = MHBO() if mhbo is None else mhbo
        _check_struct(mhbo, MHBO, C.MQRC_MHBO_ERROR)
        if mhbo.Options & ~_MHBO_KNOWN or not mhbo.Options & C.MQMHBO_PROPERTIES_IN_MQRFH2:
            raise fail(C.MQRC_MHBO_ERROR)
        pattern = names.check_name(name, validate=pset.validate, for_set=False,
                                   wildcard=True)
        chosen = PropertySet(validate=pset.validate)
        for prop in pset:
            if names.matches(pattern, prop.name):
                chosen.add(prop)
        header = give_properties(chosen, b"", md if md is not None else MD())
        if mhbo.Options & C.MQMHBO_DELETE_PROPERTIES:
            for prop in chosen:
                pset.remove(prop)
        pset.reset_cursor()
        return header

    def bufmh(self, hmsg: int, buffer: bytes, md: Any, bmho: BMHO | None = None) -> bytes:
        """MQBUFMH: read the MQRFH2 headers at the front of ``buffer`` (``md`` Format
        MQFMT_RF_HEADER_2) into the handle; returns the buffer, without the headers' property
        folders when MQBMHO_DELETE_PROPERTIES (``md`` then describes what follows)."""
        pset = self.properties(hmsg)
        bmho = BMHO() if bmho is None else bmho
        _check_struct(bmho, BMHO, C.MQRC_BMHO_ERROR)
        if bmho.Options not in (C.MQBMHO_NONE, C.MQBMHO_DELETE_PROPERTIES):
            raise fail(C.MQRC_BMHO_ERROR)
        if bmho.Options & C.MQBMHO_DELETE_PROPERTIES:
            return take_properties(buffer, md, pset)
        scratch = SimpleNamespace(Format=md.Format, Encoding=md.Encoding,
                                  CodedCharSetId=md.CodedCharSetId)
        take_properties(buffer, scratch, pset)
        return bytes(buffer)
