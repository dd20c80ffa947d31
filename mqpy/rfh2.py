"""MQRFH2, the rules-and-formatting header version 2, shaped like pymqi's ``RFH2``.

An MQRFH2 is a 36-byte fixed part followed by name/value folders: each an MQLONG length (a
multiple of 4) and that many bytes of XML whose root element names the folder (``<mcd>``,
``<jms>``, ``<usr>`` ...). Messages carrying one have MQMD.Format MQFMT_RF_HEADER_2; the
header's own Format names what follows it (another MQRFH2, or the body).

As in pymqi, every folder appears as two attributes named after its root element:
``rfh2['usr']`` is the folder's bytes (blank-padded to a multiple of 4) and
``rfh2['usrLength']`` its length. The integers of an MQRFH2 are in the byte order of the
*preceding* structure's Encoding (the MQMD's, or the previous header's), which is why
``pack`` and ``unpack`` take an ``encoding``. Malformed headers raise PYIFError, pymqi's
exception for them.
"""

from __future__ import annotations

import struct
import xml.parsers.expat
from typing import Any, ClassVar

from mqpy import CMQC
from mqpy.errors import PYIFError
from mqpy.structs.fields import BIG, LITTLE, StructError, byte_order, long, text
from mqpy.structs.layout import Layout
from mqpy.structs.mqopts import MQOpts, ensure_not_unicode
from mqpy.structs.mqstruct import MQStruct

__all__ = ["RFH2"]

_FIXED = CMQC.MQRFH_STRUC_LENGTH_FIXED_2  # 36


class _Fixed(MQStruct):
    """The fixed part of an MQRFH2 (cmqc.h MQRFH2, 36 bytes). Defaults are pymqi's."""

    _layout_ = Layout(
        "MQRFH2",
        [
            text("StrucId", 4, CMQC.MQRFH_STRUC_ID),  # 0
            long("Version", CMQC.MQRFH_VERSION_2),  # 4
            long("StrucLength", 0),  # 8
            long("Encoding", CMQC.MQENC_NATIVE),  # 12
            long("CodedCharSetId", CMQC.MQCCSI_Q_MGR),  # 16
            text("Format", 8, CMQC.MQFMT_NONE),  # 20
            long("Flags", 0),  # 28
            long("NameValueCCSID", CMQC.MQCCSI_Q_MGR),  # 32
        ],
        reason=CMQC.MQRC_RFH_ERROR,
        struc_id=CMQC.MQRFH_STRUC_ID,
        highest_version=CMQC.MQRFH_VERSION_2,
    )


_HEADER_FIELDS = tuple(f.name for f in _Fixed._layout_.fields)
#: the MQENC_* that writes integers in each byte order
_INTEGERS = {BIG: CMQC.MQENC_INTEGER_NORMAL, LITTLE: CMQC.MQENC_INTEGER_REVERSED}


def header_order(encoding: int) -> str:
    """The byte order of a header's integers for the ``encoding`` of what precedes it: its
    integer part; where that is undefined, big-endian when its decimals or floats are
    (normal, or S/390), as pymqi reads MQENC_DECIMAL_NORMAL or MQENC_FLOAT_S390 alone."""
    if encoding & CMQC.MQENC_INTEGER_MASK:
        return byte_order(encoding)
    if encoding & CMQC.MQENC_DECIMAL_MASK == CMQC.MQENC_DECIMAL_NORMAL or \
            encoding & CMQC.MQENC_FLOAT_MASK in (CMQC.MQENC_FLOAT_IEEE_NORMAL,
                                                 CMQC.MQENC_FLOAT_S390):
        return BIG
    return LITTLE


#: how much of a folder expat checks at one call (the process's other threads run between)
_PARSE_PIECE = 64 * 1024


def _folder_name(data: bytes) -> str:
    """The root element of a folder, which must be well-formed XML (as pymqi checks). Read
    without namespaces: IBM writes a NULL property as ``xsi:nil='true'`` and declares no
    ``xsi`` prefix."""
    parser = xml.parsers.expat.ParserCreate()
    tags: list[str] = []

    def root(tag: str, _attrs: dict) -> None:
        tags.append(tag)
        # the rest is only checked to be well formed, at expat's own speed: a Python call
        # per element made a folder of 200,000 elements cost a second at each MQPUT
        parser.StartElementHandler = None

    parser.StartElementHandler = root
    try:  # a piece at a time: one C call over megabytes would hold the GIL for all of it
        for at in range(0, len(data), _PARSE_PIECE):
            parser.Parse(data[at:at + _PARSE_PIECE], False)
        parser.Parse(b"", True)
    except (xml.parsers.expat.ExpatError, ValueError) as exc:
        raise PYIFError(f"RFH2 - XML Folder not well formed. Exception: {exc}") from None
    return tags[0]


class RFH2:
    """pymqi.RFH2: ``RFH2(Format=CMQC.MQFMT_STRING)``, ``add_folder(b'<usr>..</usr>')``,
    ``pack(encoding)``, ``unpack(buffer, encoding)``, ``get()``, ``set(**kw)``, ``rfh2[name]``.

    ``StrucLength`` is kept equal to 36 plus the folders (each 4 + its length), as IBM
    requires; pymqi computes it in ``add_folder`` the same way.
    """

    #: pymqi's class attributes: the fixed header's fields as [name, default, struct
    #: format], and the MQENC values whose headers pymqi packs big-endian
    initial_opts: ClassVar[list[list[Any]]] = [
        [f.name, _Fixed().get()[f.name], "4s" if f.name == "StrucId"
         else "8s" if f.name == "Format" else "i"] for f in _Fixed._layout_.fields]
    big_endian_encodings: ClassVar[list[int]] = [
        CMQC.MQENC_INTEGER_NORMAL, CMQC.MQENC_DECIMAL_NORMAL, CMQC.MQENC_FLOAT_IEEE_NORMAL,
        CMQC.MQENC_FLOAT_S390, CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL,
        CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL,
        CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL,
        CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL]

    def __init__(self, **kw: Any) -> None:
        object.__setattr__(self, "_header", _Fixed())
        object.__setattr__(self, "_folders", [])  # [name, data] in order
        object.__setattr__(self, "_order", LITTLE)  # as last read, until packed otherwise
        self._header.StrucLength = _FIXED
        self.set(**kw)

    # -- folders ------------------------------------------------------------------------
    def add_folder(self, folder_data: bytes) -> None:
        """Append a folder: well-formed XML, blank-padded to a multiple of 4 bytes."""
        ensure_not_unicode(folder_data)
        folder_data = bytes(folder_data)
        name = _folder_name(folder_data)
        folder_data += b" " * (-len(folder_data) % 4)
        self._folders.append([name, folder_data])
        self._restate_length()

    def get_folders(self) -> list[str]:
        """ibmmq's: the folders' names, in order."""
        return [name for name, _ in self._folders]

    @staticmethod
    def get_folder_name(folder_data: bytes) -> str:
        """ibmmq's: the name of a folder (its XML root element)."""
        return _folder_name(bytes(folder_data))

    def to_string(self, encoding: str = "utf8") -> RFH2:
        """ibmmq's: the header's character fields as str (``MQOpts.to_string``); it
        changes this header, which is returned."""
        self._header.to_string(encoding)
        return self

    def _restate_length(self) -> None:
        self._header.StrucLength = _FIXED + sum(4 + len(d) for _, d in self._folders)

    def _folder(self, name: str) -> list | None:
        for folder in reversed(self._folders):  # the last of a name wins, as in pymqi
            if folder[0] == name:
                return folder
        return None

    def folders(self) -> list[bytes]:
        """Every folder's bytes, in order (several may share a name)."""
        return [data for _, data in self._folders]

    # -- pymqi's MQOpts face ----------------------------------------------------------------
    def get(self) -> dict[str, Any]:
        """All fields: the fixed part, then ``<folder>Length`` and ``<folder>`` per folder."""
        d = self._header.get()
        for name, data in self._folders:
            d[name + "Length"] = len(data)
            d[name] = data
        return d

    def set(self, **kw: Any) -> None:
        for key, value in kw.items():
            self[key] = value

    def __getitem__(self, key: str) -> Any:
        if key in _HEADER_FIELDS:
            return self._header[key]
        folder = self._folder(key)
        if folder is not None:
            return folder[1]
        if key.endswith("Length"):
            folder = self._folder(key[: -len("Length")])
            if folder is not None:
                return len(folder[1])
        raise AttributeError(f"RFH2 has no field {key!r}")

    def __setitem__(self, key: str, value: Any) -> None:
        ensure_not_unicode(value)
        if key in _HEADER_FIELDS:
            setattr(self._header, key, value)
            return
        folder = self._folder(key)
        if folder is not None:
            folder[1] = bytes(value) + b" " * (-len(value) % 4)
            self._restate_length()
            return
        if key.endswith("Length") and self._folder(key[: -len("Length")]) is not None:
            return  # derived from the folder's bytes; pymqi's get()/set(**) round trip
        raise AttributeError(f"RFH2 has no field {key!r}")

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        return self[key]

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def get_length(self) -> int:
        """Bytes ``pack`` produces (the StrucLength)."""
        return _FIXED + sum(4 + len(d) for _, d in self._folders)

    def __str__(self) -> str:
        return "\n".join(f"{k}: {v}" for k, v in self.get().items())

    def __repr__(self) -> str:
        return f"RFH2({', '.join(f'{k}={v!r}' for k, v in self.get().items())})"

    # -- bytes -----------------------------------------------------------------------------
    def pack(self, encoding: int | None = None) -> bytes:
        """The header and its folders, integers in ``encoding``'s byte order (the Encoding
        of whatever precedes this header, :func:`header_order`; None: the order it was read
        in, native for a new one)."""
        order = self._order if encoding is None else header_order(encoding)
        self._restate_length()
        parts = [self._header.pack(_INTEGERS[order])]
        for _, data in self._folders:
            parts.append(struct.pack(order + "i", len(data)))
            parts.append(data)
        return b"".join(parts)

    def unpack(self, buff: bytes, encoding: int | str | None = None) -> None:
        """Read a header and its folders from the start of ``buff`` (message data may follow;
        the 36-byte fixed part alone is read without folders, as pymqi reads it).

        Without ``encoding`` the byte order is told from the Version field, as pymqi does.
        """
        ensure_not_unicode(buff)
        buff = bytes(buff)
        if buff[0:4] != CMQC.MQRFH_STRUC_ID:
            raise PYIFError(f"RFH2 - StrucId not MQRFH_STRUC_ID. Value: {buff[0:4]!r}")
        if len(buff) < _FIXED:
            raise PYIFError(f"RFH2 - Buffer too short. Should be 36+ bytes instead of "
                            f"{len(buff)}")
        if isinstance(encoding, int):
            order = header_order(encoding)
        elif encoding is not None:  # not an MQENC_* (ibmmq's hdr_browse passes 'utf8'): as
            order = LITTLE          # ibmmq, not one of the big-endian encodings
        else:
            order = BIG if buff[4:5] == b"\x00" else LITTLE
        try:
            header = _Fixed().unpack(buff, _INTEGERS[order], version=1)
        except StructError as exc:
            raise PYIFError(f"RFH2 - {exc}") from None
        length = header.StrucLength
        if length < _FIXED:
            raise PYIFError(f"RFH2 - \"StrucLength\" {length} is less than 36. "
                            "Check numeric encoding.")
        if length > len(buff) > _FIXED:
            raise PYIFError(f"RFH2 - Buffer too short. Expected: {length} Buffer Length: "
                            f"{len(buff)}")
        folders = []
        pos = _FIXED
        while pos < min(length, len(buff)):
            if pos + 4 > length:
                raise PYIFError(f"RFH2 - a folder length at offset {pos} runs past "
                                f"StrucLength {length}")
            (size,) = struct.unpack_from(order + "i", buff, pos)
            pos += 4
            if size < 0 or pos + size > length:
                raise PYIFError(f"RFH2 - folder length {size} at offset {pos - 4} does not "
                                f"fit in StrucLength {length}")
            data = buff[pos : pos + size]
            folders.append([_folder_name(data), data])
            pos += size
        object.__setattr__(self, "_header", header)
        object.__setattr__(self, "_folders", folders)
        object.__setattr__(self, "_order", order)


MQOpts.register(RFH2)
