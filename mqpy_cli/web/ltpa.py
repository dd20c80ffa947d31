"""Token login as IBM's mqweb has it (POST/GET/DELETE /login): an ``LtpaToken2`` cookie
holding a token the server signed, with the user and an expiry, in place of the basic
credentials on every request.

The token is ``base64url(payload) "." base64url(HMAC-SHA256(key, payload))``, the payload
``{"u": user, "x": expiry (epoch seconds), "i": token id}``. The key is 32 random bytes in
``<data path>/web/ltpa.key``, made once with mode 0600, so that tokens outlive a restart of
the server (as IBM's LTPA keys do). A logged-in MQWebUser's password stays in this server's
memory only, by token id, for the MQCSP its MQI connections carry; after a restart such a
token still authenticates, but a request that must connect as the user is refused until
the user logs in again. DELETE /login revokes the token (until its expiry) and asks the
browser to drop the cookie."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
import threading
import time

import attrs

from mqpy_cli.web.config import web_dir

COOKIE_PREFIX = "LtpaToken2"
#: IBM: the LTPA token expires after 120 minutes unless ltpaExpiration says otherwise
DEFAULT_EXPIRY_MINUTES = 120
KEY_FILE = "ltpa.key"
KEY_BYTES = 32


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def load_key(data_path: str) -> bytes:
    """The signing key, made once (mode 0600, written whole under another name, then linked
    into place so that no reader sees part of it; never rewritten)."""
    path = os.path.join(web_dir(data_path), KEY_FILE)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fresh = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(fresh, path)  # another server made it first: theirs is kept
        except FileExistsError:
            pass
        finally:
            os.unlink(fresh)
    with open(path, "rb") as f:
        key = f.read()
    if len(key) < KEY_BYTES:
        raise ValueError(f"{path} holds no usable key: remove it and restart the server")
    return key


@attrs.frozen
class Token:
    """A token that checked out: whose, until when, which."""

    user: str
    expires: float
    id: str


class TokenKeeper:
    """Issues and checks the server's tokens; remembers MQWebUser passwords and revoked
    tokens in memory until the tokens expire."""

    def __init__(self, data_path: str, expiry_minutes: int = DEFAULT_EXPIRY_MINUTES) -> None:
        self._key = load_key(data_path)
        self.expiry = expiry_minutes * 60
        #: the cookie's name: the prefix and a suffix of this installation's own (two
        #: installations' servers on one host do not overwrite each other's cookies)
        self.cookie = f"{COOKIE_PREFIX}_{hashlib.sha256(self._key).hexdigest()[:10]}"
        self._lock = threading.Lock()
        self._passwords: dict[str, tuple[float, str]] = {}
        self._revoked: dict[str, float] = {}

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()

    def issue(self, user: str, password: str) -> str:
        """A new token for ``user`` (whose ``password`` is kept for MQCSP)."""
        now = time.time()
        token = Token(user, now + self.expiry, secrets.token_hex(12))
        payload = json.dumps({"u": token.user, "x": int(token.expires), "i": token.id},
                             separators=(",", ":")).encode()
        with self._lock:
            self._forget_expired(now)
            self._passwords[token.id] = (token.expires, password)
        return f"{_b64(payload)}.{_b64(self._sign(payload))}"

    def check(self, text: str | None) -> Token | None:
        """The token ``text`` is, when this server signed it, it has not expired and was not
        revoked; None otherwise."""
        if not text or text.count(".") != 1:
            return None
        body, _, signature = text.partition(".")
        try:
            payload, mac = _unb64(body), _unb64(signature)
            if not hmac.compare_digest(mac, self._sign(payload)):
                return None
            fields = json.loads(payload)
            token = Token(str(fields["u"]), float(fields["x"]), str(fields["i"]))
        except (binascii.Error, ValueError, KeyError, TypeError):
            return None
        if token.expires <= time.time():
            return None
        with self._lock:
            if token.id in self._revoked:
                return None
        return token

    def password(self, token: Token) -> str | None:
        """The password the user logged in with, while this server remembers it."""
        with self._lock:
            kept = self._passwords.get(token.id)
        return kept[1] if kept is not None else None

    def revoke(self, token: Token) -> None:
        with self._lock:
            self._passwords.pop(token.id, None)
            self._revoked[token.id] = token.expires

    def _forget_expired(self, now: float) -> None:
        for table in (self._passwords, self._revoked):
            for key in [k for k, v in table.items() if (v[0] if isinstance(v, tuple)
                                                       else v) <= now]:
                del table[key]
