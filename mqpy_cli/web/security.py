"""Who is calling and what they may do, as IBM's mqweb decides it: HTTP basic authentication
checked against the installation's users (the queue managers' user files, what ``mqpyuser``
writes), the roles MQWebAdmin, MQWebAdminRO and MQWebUser (mqweb.ini), the
``ibm-mq-rest-csrf-token`` header on POST, PATCH and DELETE, and the identity each MQI
connection is made with: the server's own for the two admin roles, the user's (an MQCSP, so
that the queue manager's object authorities apply) for MQWebUser."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import threading

import attrs

from mqpy import config as mqconfig
from mqpy.security.users import UserFile, users_path
from mqpy_cli.web.config import WebConfig
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.ltpa import Token, TokenKeeper

CSRF_HEADER = "ibm-mq-rest-csrf-token"
CHANGING_METHODS = ("POST", "PATCH", "PUT", "DELETE")
#: IBM: "the highest privilege role is used" when a user has several
ADMIN, ADMIN_RO, USER = "MQWebAdmin", "MQWebAdminRO", "MQWebUser"


@attrs.frozen
class Principal:
    """An authenticated caller."""

    user: str
    #: None: logged in with a token this server no longer holds the password of
    password: str | None = attrs.field(repr=False)
    roles: frozenset[str] = frozenset()
    token: Token | None = None

    def admin_role(self, method: str) -> str:
        """The role an administrative request of ``method`` runs under (MQWebAdmin first,
        then MQWebUser, then MQWebAdminRO for reads); RestError 403 when none allows it."""
        changing = method in CHANGING_METHODS
        for role in (ADMIN, USER) if changing else (ADMIN, USER, ADMIN_RO):
            if role in self.roles:
                return role
        raise RestError(403, "MQWB0103E")

    def messaging_role(self) -> str:
        """IBM: the messaging REST API needs MQWebUser, whatever other role the user has."""
        if USER not in self.roles:
            raise RestError(403, "MQWB0103E")
        return USER

    def identity(self, role: str) -> tuple[str | None, str | None]:
        """The MQCSP an MQI connection for ``role`` carries: none (the server's own user)
        for the admin roles, the caller's for MQWebUser (401 when a token's password is no
        longer held: the user logs in again)."""
        if role != USER:
            return None, None
        if self.password is None:
            raise RestError(401, "MQWB0103E")
        return self.user, self.password


class Authenticator:
    """Basic credentials checked against the installation's user files; a check that
    succeeded is remembered (keyed by a hash, never the password) until a file changes."""

    def __init__(self, cfg: WebConfig) -> None:
        self.cfg = cfg
        self._salt = os.urandom(16)
        self._lock = threading.Lock()
        self._known: dict[tuple[str, bytes], tuple] = {}
        self._listed: tuple[tuple | None, list[UserFile]] = (None, [])
        self._tokens: TokenKeeper | None = None

    @property
    def tokens(self) -> TokenKeeper:
        """The login tokens' keeper (its key read or made at the first use)."""
        if self._tokens is None:
            self._tokens = TokenKeeper(self.cfg.data_path, self.cfg.ltpa_expiration)
        return self._tokens

    def _files(self) -> list[UserFile]:
        """The queue managers' user files, mqs.ini read again only when it changed."""
        root = self.cfg.data_path
        try:
            st = os.stat(mqconfig.mqs_ini(root))
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        if stamp is None or stamp != self._listed[0]:
            self._listed = (stamp, [UserFile(users_path(mqconfig.qmgr_dir(name, root)))
                                    for name in mqconfig.list_qmgrs(root)])
        return self._listed[1]

    def _key(self, user: str, password: str) -> tuple[str, bytes]:
        return (user, hashlib.sha256(self._salt + password.encode("utf-8", "replace")).digest())

    def _remembered(self, user: str, password: str, files: list[UserFile]
                    ) -> tuple[tuple, tuple[str, ...] | None]:
        """The user files' stamps, and the groups of a check that succeeded with these
        credentials since they last changed (None: none did)."""
        stamps = tuple(f.stamp() for f in files)
        with self._lock:
            known = self._known.get(self._key(user, password))
        return stamps, (known[1] if known is not None and known[0] == stamps else None)

    def _check(self, user: str, password: str) -> tuple[str, ...] | None:
        """The user's groups when some queue manager's file has the user with this
        password; None otherwise."""
        files = self._files()
        stamps, groups = self._remembered(user, password, files)
        if groups is not None:
            return groups
        key = self._key(user, password)
        holders = [f for f in files if f.get(user) is not None]
        for f in holders:
            if f.verify(user, password):
                groups = f.groups(user)
                with self._lock:
                    self._known[key] = (stamps, groups)
                return groups
        if not holders:  # the same password work for a user nobody has: no timing tells
            UserFile(os.path.join(self.cfg.data_path, "no-such-user-file")).verify(user,
                                                                                  password)
        return None

    @staticmethod
    def _credentials(authorization: str | None) -> tuple[str, str] | None:
        """User and password of a Basic Authorization header; None when it has none."""
        if not authorization or not authorization.lower().startswith("basic "):
            return None
        try:
            raw = base64.b64decode(authorization[6:].strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        user, sep, password = raw.partition(":")
        return (user, password) if sep and user else None

    def known(self, authorization: str | None) -> Principal | None:
        """The caller, when these credentials checked out before and no user file changed
        since: a few ``stat`` calls and no password work, cheap enough for the event loop;
        None when :meth:`authenticate` must decide."""
        credentials = self._credentials(authorization)
        if credentials is None:
            return None
        _, groups = self._remembered(*credentials, self._files())
        if groups is None:
            return None
        return Principal(credentials[0], credentials[1],
                         self.cfg.roles_of(credentials[0], groups))

    def from_token(self, text: str | None) -> Principal | None:
        """The caller a login token names, while it is good and the user is still in some
        queue manager's user file; None otherwise."""
        token = self.tokens.check(text) if text else None
        if token is None:
            return None
        for f in self._files():
            if f.get(token.user) is not None:
                return Principal(token.user, self.tokens.password(token),
                                 self.cfg.roles_of(token.user, f.groups(token.user)), token)
        return None

    def login(self, user: str, password: str) -> tuple[Principal, str]:
        """POST /login: the caller and a new token; RestError 401 (no challenge: a browser
        shows no password dialog) when the credentials do not check out, 403 when the user
        has no role."""
        groups = self._check(user, password)
        if groups is None:
            raise RestError(401, "MQWB0103E")
        who = Principal(user, password, self.cfg.roles_of(user, groups))
        if not who.roles:
            raise RestError(403, "MQWB0103E")
        return who, self.tokens.issue(user, password)

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller of a request with this Authorization header; RestError 401 (with
        the Basic challenge) when there is none or it does not check out."""
        challenge = {"WWW-Authenticate": 'Basic realm="IBM MQ"'}
        refused = RestError(401, "MQWB0103E", headers=challenge)
        credentials = self._credentials(authorization)
        if credentials is None:
            raise refused
        groups = self._check(*credentials)
        if groups is None:
            raise refused
        return Principal(credentials[0], credentials[1],
                         self.cfg.roles_of(credentials[0], groups))


def check_csrf(method: str, headers) -> None:  # noqa: ANN001 - any mapping of headers
    """IBM: POST, PATCH and DELETE need the ``ibm-mq-rest-csrf-token`` header (any value)."""
    if method in CHANGING_METHODS and CSRF_HEADER not in headers:
        raise RestError(403, "MQWB0100E", CSRF_HEADER)
