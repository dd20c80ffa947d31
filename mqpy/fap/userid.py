"""The user-id flows of a client channel: USERID_DATA (UID) and CONAUTH_INFO (CAUT). Sans-IO.

After the INITIAL_DATA exchange an MQ client tells the SVRCONN who it is, per conversation and
before that conversation's MQCONN:

- **USERID_DATA** (segment 0x08) carries a *UID* structure: the client's operating-system
  user id (what CHLAUTH calls CLNTUSER, matched by TYPE(USERMAP) records and used as the
  channel's user when MCAUSER is blank). 132 bytes, as Wireshark's dissector reads it
  (packet-mq.c, ``MQ_TEXT_UID``): StructId ``UID ``, UserId (12), Password (12, blank: MQ
  stopped sending passwords here), LongUserId (64), SecurityId (40).
- **CONAUTH_INFO** (segment 0x0A) carries a *CAUT* structure: the MQCSP user id and password
  an application gave to MQCONNX (pymqi's ``user`` / ``password``), checked by the queue
  manager's CONNAUTH. Its header is 24 bytes, as the dissector reads it (``mq.caut.*``):
  StructId ``CAUT``, AuthType (MQCSP_AUTH_USER_ID_AND_PWD = 1), UserId and Password maximum
  lengths, their actual lengths; then the user id and the password bytes.

Neither flow has a reply: the MQCONN that follows answers for them (2035 when refused). The
same CAUT layout is reused by the bindings socket's MQCONN (``mqpy.fap.mqiflows``). This module
only builds and parses; the events travel as ``segments.OtherSegment``.
"""

from __future__ import annotations

import attrs
import construct as cs

from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import OtherSegment, SegmentType
from mqpy.security.users import mq_user_id

__all__ = ["CAUT", "CAUT_HEADER_LENGTH", "UID", "UID_LENGTH", "Credentials", "build_caut",
           "conauth_event", "parse_caut", "parse_uid", "userid_event"]

STRUCTID_UID = b"UID "
STRUCTID_CAUT = b"CAUT"
MQCSP_AUTH_USER_ID_AND_PWD = 1  # CMQC.MQCSP_AUTH_USER_ID_AND_PWD
#: the longest user id and password the queue manager accepts (MQ's limits on Unix).
MAX_USER_LENGTH = 1024
MAX_PASSWORD_LENGTH = 256

_U32 = cs.BytesInteger(4, signed=False, swapped=lambda ctx: bool(ctx._params.little))

#: UID: 132 bytes (packet-mq.c reads 28 or 132).
UID = cs.Struct(
    "StructId" / cs.Const(STRUCTID_UID),  # 0
    "UserId" / cs.Bytes(12),  # 4
    "Password" / cs.Bytes(12),  # 16  always blank from mqpy
    "LongUserId" / cs.Bytes(64),  # 28
    "SecurityId" / cs.Bytes(40),  # 92
)  # 132
UID_LENGTH = UID.sizeof()

#: CAUT: a 24-byte header, then the user id and password themselves.
CAUT = cs.Struct(
    "StructId" / cs.Const(STRUCTID_CAUT),  # 0
    "AuthType" / _U32,  # 4
    "UserIdMaxLength" / _U32,  # 8
    "PasswordMaxLength" / _U32,  # 12
    "UserIdLength" / _U32,  # 16
    "PasswordLength" / _U32,  # 20
    "UserId" / cs.Bytes(cs.this.UserIdLength),  # 24
    "Password" / cs.Bytes(cs.this.PasswordLength),
)
CAUT_HEADER_LENGTH = 24


@attrs.frozen
class Credentials:
    """An MQCSP: user id and password (text; UTF-8 on the wire)."""

    user: str
    password: str


def _blank(text: str, size: int) -> bytes:
    return text.encode("utf-8")[:size].ljust(size, b" ")


def _text(raw: bytes) -> str:
    return raw.rstrip(b" \x00").decode("utf-8", "replace")


def build_uid(user: str, *, little: bool = True) -> bytes:
    return UID.build(dict(UserId=_blank(user, 12), Password=b" " * 12,
                          LongUserId=_blank(user, 64), SecurityId=bytes(40)), little=little)


def _user_id(raw: str) -> str:
    """The 12-character MQ user id ``raw`` stands for (``users.mq_user_id``), cut once here
    so that CHLAUTH, CONNAUTH and the OAM all judge the same string.

    A name that is no MQ user id at all (embedded blanks, characters a user id cannot hold,
    empty) comes back as it was sent, trailing blanks dropped and never cut: it is not a
    protocol error (the flow itself is well formed), and the queue manager refuses it at
    MQCONN with 2035 and AMQ9557E (``mqpy.security.policy.channel_decision``), as IBM's does. Not
    cutting it is what keeps ``'mqm' + 9 blanks + 'x'`` from ever reading as mqm."""
    uid = mq_user_id(raw)
    return raw.rstrip(" \x00") if uid is None else uid


def parse_uid(body: bytes, *, little: bool = True) -> str:
    """The client's user id (LongUserId, else UserId), as a 12-character MQ user id (as
    sent if it is none: ``_user_id``); ProtocolError if the structure is malformed."""
    if len(body) not in (28, UID_LENGTH) or body[:4] != STRUCTID_UID:
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA,
                            f"USERID_DATA of {len(body)} bytes is not a UID structure")
    long_id = _text(body[28:92]) if len(body) == UID_LENGTH else ""
    return _user_id(long_id or _text(body[4:16]))


def build_caut(creds: Credentials, *, little: bool = True) -> bytes:
    user, password = creds.user.encode("utf-8"), creds.password.encode("utf-8")
    return CAUT.build(dict(AuthType=MQCSP_AUTH_USER_ID_AND_PWD,
                           UserIdMaxLength=MAX_USER_LENGTH,
                           PasswordMaxLength=MAX_PASSWORD_LENGTH,
                           UserIdLength=len(user), PasswordLength=len(password),
                           UserId=user, Password=password), little=little)


def parse_caut(body: bytes, offset: int = 0, *, little: bool = True
               ) -> tuple[Credentials, int]:
    """A CAUT at ``offset``: its credentials and the offset after it; ProtocolError if bad."""
    head = body[offset:offset + CAUT_HEADER_LENGTH]
    if len(head) < CAUT_HEADER_LENGTH or head[:4] != STRUCTID_CAUT:
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA, "CONAUTH_INFO is not a CAUT")
    try:
        parsed = CAUT.parse(bytes(body[offset:]), little=little)
    except cs.ConstructError:
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA,
                            "CAUT lengths run past the segment") from None
    if parsed.AuthType != MQCSP_AUTH_USER_ID_AND_PWD or \
            parsed.UserIdLength > MAX_USER_LENGTH or \
            parsed.PasswordLength > MAX_PASSWORD_LENGTH:
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA,
                            f"CAUT AuthType {parsed.AuthType} or lengths not accepted")
    try:
        user, password = parsed.UserId.decode("utf-8"), parsed.Password.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError(StatusCode.PROTOCOL_INVALID_DATA,
                            "CAUT user id or password is not UTF-8") from None
    creds = Credentials(_user_id(user), password)
    end = offset + CAUT_HEADER_LENGTH + parsed.UserIdLength + parsed.PasswordLength
    return creds, end


def userid_event(user: str, **tshm: int) -> OtherSegment:
    """The USERID_DATA flow naming ``user`` (``conv_id`` / ``request_id`` for a TSHM)."""
    return OtherSegment(segment_type=SegmentType.USERID_DATA, body=build_uid(user), **tshm)


def conauth_event(creds: Credentials, **tshm: int) -> OtherSegment:
    """The CONAUTH_INFO flow carrying an MQCSP."""
    return OtherSegment(segment_type=SegmentType.CONAUTH_INFO, body=build_caut(creds),
                        **tshm)
