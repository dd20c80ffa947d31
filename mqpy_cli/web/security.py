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

CSRF_HEADER = "ibm-mq-rest-csrf-token"
CHANGING_METHODS = ("POST", "PATCH", "PUT", "DELETE")
#: IBM: "the highest privilege role is used" when a user has several
ADMIN, ADMIN_RO, USER = "MQWebAdmin", "MQWebAdminRO", "MQWebUser"


@attrs.frozen
class Principal:
    """An authenticated caller."""

    user: str
    password: str = attrs.field(repr=False)
    roles: frozenset[str] = frozenset()

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
        for the admin roles, the caller's for MQWebUser."""
        return (self.user, self.password) if role == USER else (None, None)


class Authenticator:
    """Basic credentials checked against the installation's user files; a check that
    succeeded is remembered (keyed by a hash, never the password) until a file changes."""

    def __init__(self, cfg: WebConfig) -> None:
        self.cfg = cfg
        self._salt = os.urandom(16)
        self._lock = threading.Lock()
        self._known: dict[tuple[str, bytes], tuple] = {}

    def _files(self) -> list[UserFile]:
        root = self.cfg.data_path
        return [UserFile(users_path(mqconfig.qmgr_dir(name, root)))
                for name in mqconfig.list_qmgrs(root)]

    def _check(self, user: str, password: str) -> tuple[str, ...] | None:
        """The user's groups when some queue manager's file has the user with this
        password; None otherwise."""
        files = self._files()
        stamps = tuple(f.stamp() for f in files)
        key = (user, hashlib.sha256(self._salt + password.encode("utf-8", "replace")).digest())
        with self._lock:
            known = self._known.get(key)
        if known is not None and known[0] == stamps:
            return known[1]
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

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller of a request with this Authorization header; RestError 401 (with
        the Basic challenge) when there is none or it does not check out."""
        challenge = {"WWW-Authenticate": 'Basic realm="IBM MQ"'}
        refused = RestError(401, "MQWB0103E", headers=challenge)
        if not authorization or not authorization.lower().startswith("basic "):
            raise refused
        try:
            raw = base64.b64decode(authorization[6:].strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise refused from None
        user, sep, password = raw.partition(":")
        if not sep or not user:
            raise refused
        groups = self._check(user, password)
        if groups is None:
            raise refused
        return Principal(user, password, self.cfg.roles_of(user, groups))


def check_csrf(method: str, headers) -> None:  # noqa: ANN001 - any mapping of headers
    """IBM: POST, PATCH and DELETE need the ``ibm-mq-rest-csrf-token`` header (any value)."""
    if method in CHANGING_METHODS and CSRF_HEADER not in headers:
        raise RestError(403, "MQWB0100E", CSRF_HEADER)
