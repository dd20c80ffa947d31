"""STATUS_DATA codes and the protocol error that carries one.

A partner that breaks the channel protocol is answered with a STATUS segment naming the fault
(``MQ_STATUS_ERR_*`` in packet-mq.h); every decoder of ``mqpy.fap`` raises
:class:`ProtocolError` with that code, and nothing else, for bytes it cannot accept.
"""

from __future__ import annotations

import enum

__all__ = ["ProtocolError", "StatusCode"]


class StatusCode(enum.IntEnum):
    """STATUS_DATA codes (``MQ_STATUS_ERR_*`` in packet-mq.h)."""

    NO_CHANNEL = 0x01
    CHANNEL_WRONG_TYPE = 0x02
    QM_UNAVAILABLE = 0x03
    MSG_SEQUENCE_ERROR = 0x04
    QM_TERMINATING = 0x05
    CAN_NOT_STORE = 0x06
    USER_CLOSED = 0x07
    TIMEOUT_EXPIRED = 0x08
    TARGET_Q_UNKNOWN = 0x09
    PROTOCOL_SEGMENT_TYPE = 0x0A
    PROTOCOL_LENGTH_ERROR = 0x0B
    PROTOCOL_INVALID_DATA = 0x0C
    PROTOCOL_SEGMENT_ERROR = 0x0D
    PROTOCOL_ID_ERROR = 0x0E
    PROTOCOL_MSH_ERROR = 0x0F
    PROTOCOL_GENERAL = 0x10
    BATCH_FAILURE = 0x11
    MESSAGE_LENGTH_ERROR = 0x12
    SEGMENT_NUMBER_ERROR = 0x13
    SECURITY_FAILURE = 0x14
    WRAP_VALUE_ERROR = 0x15
    CHANNEL_UNAVAILABLE = 0x16
    CLOSED_BY_EXIT = 0x17
    CIPHER_SPEC = 0x18
    PEER_NAME = 0x19
    SSL_CLIENT_CERTIFICATE = 0x1A
    RMT_RSRCS_IN_RECOVERY = 0x1B
    SSL_REFRESHING = 0x1C
    INVALID_HOBJ = 0x1D
    CONV_ID_ERROR = 0x1E
    SOCKET_ACTION_TYPE = 0x1F
    STANDBY_Q_MGR = 0x20
    CCSID_NOT_SUPPORTED = 0xF0
    ENCODING_INVALID = 0xF1
    FAP_LEVEL = 0xF2
    NEGOTIATION_FAILED = 0xF3


class ProtocolError(Exception):
    """The partner broke the wire protocol; the channel sends STATUS ``status_code`` and ends.

    ``status_code`` is the ``MQ_STATUS_ERR_*`` value that names the fault on the wire, so the
    channel code can answer with a STATUS segment without translating anything.
    """

    def __init__(self, status_code: StatusCode, text: str) -> None:
        super().__init__(status_code, text)
        self.status_code = StatusCode(status_code)
        self.text = text

    def __str__(self) -> str:
        return f"{self.status_code.name}: {self.text}"

