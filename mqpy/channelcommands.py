"""Channel commands: how the queue manager's command server asks a running channel initiator
to start, stop or show a channel, through SYSTEM.CHANNEL.INITQ.

The command server (runmqsc, PCF) cannot start a channel itself: distributed queuing is the
channel initiator's. It puts a small request on the initiation queue (Format
:data:`COMMAND_FORMAT`, a JSON body, an expiry so that a request nobody serves does not linger)
and waits for the reply on a temporary dynamic queue (:func:`send`). The channel initiator
serves the queue and answers with a reply of the same Format. No reply in time means no
channel initiator is running.

Any application allowed to put to the initiation queue could write such a request, and a
channel partner's message may be put there by a receiver. So each request carries a MAC
(HMAC-SHA256) made with the queue manager's channel-command key, a file in its directory
that only its owner reads (:func:`command_key`); the channel initiator carries out only a
request whose MAC is right (:func:`verified`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager
from mqpy.structs.tables import GMO, MD, OD, PMO

__all__ = ["COMMAND_FORMAT", "INITQ", "KEY_FILE", "REPLY_MODEL", "command_key", "send",
           "signed", "verified"]

#: the channel initiator's initiation queue: trigger messages naming a channel, and commands
INITQ = "SYSTEM.CHANNEL.INITQ"
#: the Format of mqpy's channel command messages (requests and replies) on :data:`INITQ`
COMMAND_FORMAT = b"MQPYCHCM"
#: the model queue of the command server's temporary reply queue
REPLY_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"
#: the file, in the queue manager's directory, of the key that signs channel commands
KEY_FILE = "channel.key"
#: the field of a request that carries its MAC
MAC_FIELD = "mac"


def command_key(qmdir: str) -> bytes:
    """The channel-command key of the queue manager whose directory is ``qmdir``: made at
    its first need by whichever process needs it first (the command server or the channel
    initiator), written whole before it is seen (a link of a finished file), mode 0600."""
    path = os.path.join(qmdir, KEY_FILE)
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        pass
    draft = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, secrets.token_bytes(32))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(draft, path)
    except FileExistsError:
        pass  # another process made it first: its key is the key
    finally:
        os.unlink(draft)
    with open(path, "rb") as f:
        return f.read()


def _mac(key: bytes, request: dict) -> str:
    text = json.dumps(request, sort_keys=True).encode()
    return hmac.new(key, text, hashlib.sha256).hexdigest()


def signed(request: dict, key: bytes) -> bytes:
    """The message body of ``request``, with its MAC."""
    return json.dumps({**request, MAC_FIELD: _mac(key, request)}).encode()


def verified(request: dict, key: bytes | None) -> bool:
    """Whether ``request`` (a message body read as JSON) carries the MAC that ``key`` makes
    of the rest of it. Its MAC field is taken out."""
    mac = request.pop(MAC_FIELD, None)
    return key is not None and type(mac) is str and \
        hmac.compare_digest(mac, _mac(key, request))


def notify(qm: QueueManager, request: dict, key: bytes, expiry: float = 15.0) -> None:
    """Send one channel command that wants no reply (a datagram, signed with ``key``): the
    channel initiator carries it out when it comes to it; one that is not running never
    sees it (it expires after ``expiry`` seconds)."""
    md = MD(Format=COMMAND_FORMAT, MsgType=CMQC.MQMT_DATAGRAM,
            Persistence=CMQC.MQPER_NOT_PERSISTENT, Expiry=int(expiry * 10) + 1)
    qm.put1(INITQ, signed(request, key), md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))


def send(qm: QueueManager, request: dict, key: bytes, timeout: float = 15.0) -> dict | None:
    """Send one channel command, signed with ``key``; the channel initiator's reply, or None
    if none answered."""
    od = OD(ObjectName=REPLY_MODEL.encode(), DynamicQName=b"AMQ.CHLCMD.*")
    reply_q = Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    try:
        md = MD(Format=COMMAND_FORMAT, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=od.ObjectName,
                Persistence=CMQC.MQPER_NOT_PERSISTENT, Expiry=int(timeout * 10) + 1)
        qm.put1(INITQ, signed(request, key), md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                  WaitInterval=int(timeout * 1000), MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        try:
            data = reply_q.get(None, MD(CorrelId=md.MsgId), gmo)
        except MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return json.loads(data)
    finally:
        reply_q.close()
