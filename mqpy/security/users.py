"""The queue manager's user repository: user ids, salted password hashes, groups.

This stands in for the operating-system user registry IBM MQ checks with AUTHTYPE(IDPWOS):
a text file ``<qmgr dir>/mqusers`` (mode 0600) that the queue manager owns, one user a line::

    alice:scrypt$16384$8$1$<salt>$<hash>:apps,payments

Passwords are hashed with ``hashlib.scrypt`` (standard library; N=2**14, r=8, p=1, a fresh
16-byte random salt per password, 32-byte key, base64 without padding), and the parameters
travel with each hash so they can be raised later without breaking old entries. A password
field of ``!`` means the user has no password: it can be an identity (the owner, an
MCAUSER) but cannot authenticate. Group ``mqm`` is the privileged group (IBM's mqm): its
members have every authority and are the ``*MQADMIN`` users of CHLAUTH.

Writers (mqpyuser while the queue manager runs, say) take an ``fcntl`` lock on
``mqusers.lck`` and replace the file atomically; readers re-read it when it changes. This
module does file I/O and nothing else: no engine, no sockets.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import functools
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Iterable, Iterator

import attrs

__all__ = [
    "ADMIN_GROUP",
    "USERS_FILE",
    "UserEntry",
    "UserError",
    "UserFile",
    "hash_password",
    "mq_user_id",
    "users_path",
    "verify_password",
]

USERS_FILE = "mqusers"
ADMIN_GROUP = "mqm"
NO_PASSWORD = "!"
#: scrypt cost: about 16 MB and a few tens of milliseconds per hash.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 14, 8, 1
SALT_BYTES, KEY_BYTES = 16, 32
#: MQ user ids are 12 characters in the MQMD (UserIdentifier).
MAX_USER_LENGTH = 12
_NAME = re.compile(r"[A-Za-z0-9_.@$#-]+")


class UserError(ValueError):
    """A user name, group name or repository operation was refused."""


def mq_user_id(raw: str) -> str | None:
    """The MQ user id a flowed or MQCSP user id stands for: trailing blanks and NULs dropped,
    cut to 12 characters once, here; None if it is no user id at all (empty, embedded
    blanks, characters a user name cannot hold), which the caller refuses. Every check
    (CHLAUTH, CONNAUTH, the OAM) then judges the same string the connection runs as."""
    name = raw.rstrip(" \x00")
    if not name or not _NAME.fullmatch(name):
        return None
    return name[:MAX_USER_LENGTH]


def users_path(qmdir: str) -> str:
    return os.path.join(qmdir, USERS_FILE)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def hash_password(password: str, *, salt: bytes | None = None, n: int = SCRYPT_N,
                  r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    """``scrypt$N$r$p$salt$key`` for ``password`` with a fresh random salt."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    key = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=KEY_BYTES,
                         maxmem=n * r * 256)
    return f"scrypt${n}${r}${p}${_b64(salt)}${_b64(key)}"


@functools.cache
def _dummy_hash() -> str:
    """The hash an unknown user's password is checked against, made on first need (an
    scrypt costs tens of milliseconds: not every process importing this module pays it)."""
    return hash_password("mqpy-no-such-user", salt=b"\0" * SALT_BYTES)


def verify_password(password: str, stored: str) -> bool:
    """Constant-time check of ``password`` against a stored hash; False for ``!``."""
    try:
        algo, n, r, p, salt, key = stored.split("$")
        if algo != "scrypt":
            return False
        expect = _unb64(key)
        got = hashlib.scrypt(password.encode("utf-8"), salt=_unb64(salt), n=int(n), r=int(r),
                             p=int(p), dklen=len(expect), maxmem=int(n) * int(r) * 256)
    except ValueError:
        return False
    return hmac.compare_digest(got, expect)


@attrs.frozen(slots=True)
class UserEntry:
    name: str
    password: str  #: a hash, or "!" for no password
    groups: tuple[str, ...] = ()

    @property
    def has_password(self) -> bool:
        return self.password != NO_PASSWORD

    def line(self) -> str:
        return f"{self.name}:{self.password}:{','.join(self.groups)}"


def _check_name(name: str, what: str = "user") -> None:
    limit = MAX_USER_LENGTH if what == "user" else 64
    if not name or len(name) > limit or not _NAME.fullmatch(name):
        raise UserError(f"{what} name '{name}' is not valid (1-{limit} characters of "
                        f"letters, digits and _ . @ $ # -)")


class UserFile:
    """One queue manager's user repository (see the module docstring)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._cache: tuple[tuple[int, int, int], dict[str, UserEntry]] | None = None

    # -------------------------------------------------------------- reading

    def _stamp(self) -> tuple[int, int, int] | None:
        """What says the file changed: modification time, size and inode (a writer replaces
        the file, so even a rewrite of the same size within the clock's resolution shows);
        None when there is no file."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def stamp(self) -> tuple[int, int, int] | None:
        """The file's current stamp (one ``stat``): a cache of anything decided from the
        file is good while the stamp is the same."""
        return self._stamp()

    def exists(self) -> bool:
        return self._stamp() is not None

    def load(self) -> dict[str, UserEntry]:
        """Every user, re-read only when the file changed."""
        stamp = self._stamp()
        if stamp is None:
            return {}
        if self._cache is not None and self._cache[0] == stamp:
            return self._cache[1]
        users: dict[str, UserEntry] = {}
        with open(self.path, encoding="utf-8") as f:
            for raw in f:
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                name, pw, groups = (line.split(":") + ["", ""])[:3]
                users[name] = UserEntry(name, pw or NO_PASSWORD,
                                        tuple(g for g in groups.split(",") if g))
        self._cache = (stamp, users)
        return users

    def get(self, name: str) -> UserEntry | None:
        return self.load().get(name)

    def groups(self, name: str) -> tuple[str, ...]:
        entry = self.get(name)
        return entry.groups if entry is not None else ()

    def is_admin(self, name: str) -> bool:
        """A member of group mqm: all authority, and a ``*MQADMIN`` user for CHLAUTH."""
        return ADMIN_GROUP in self.groups(name)

    def all_groups(self) -> set[str]:
        return {g for e in self.load().values() for g in e.groups} | {ADMIN_GROUP}

    def verify(self, name: str, password: str) -> bool:
        """True if ``name`` exists, has a password, and ``password`` is it."""
        entry = self.get(name)
        if entry is None or not entry.has_password:
            verify_password(password, _dummy_hash())  # the same work whether or not the user exists
            return False
        return verify_password(password, entry.password)

    # -------------------------------------------------------------- writing

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, UserEntry]]:
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        fd = os.open(self.path + ".lck", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._cache = None
            users = dict(self.load())
            yield users
            self._write(users.values())
        finally:
            os.close(fd)

    def _write(self, entries: Iterable[UserEntry]) -> None:
        tmp = f"{self.path}.tmp.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("# mqpy queue manager users: name:scrypt-hash:groups\n")
            for e in sorted(entries, key=lambda e: e.name):
                f.write(e.line() + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self._cache = None

    def add(self, name: str, password: str | None, groups: Iterable[str] = ()) -> UserEntry:
        """A new user; ``password`` None makes an identity that cannot authenticate."""
        _check_name(name)
        groups = tuple(dict.fromkeys(groups))
        for g in groups:
            _check_name(g, "group")
        with self._locked() as users:
            if name in users:
                raise UserError(f"user '{name}' already exists")
            entry = UserEntry(name, hash_password(password) if password else NO_PASSWORD,
                              groups)
            users[name] = entry
        return entry

    def set_password(self, name: str, password: str | None) -> None:
        with self._locked() as users:
            if name not in users:
                raise UserError(f"user '{name}' does not exist")
            users[name] = attrs.evolve(users[name], password=hash_password(password)
                                       if password else NO_PASSWORD)

    def set_groups(self, name: str, groups: Iterable[str]) -> None:
        groups = tuple(dict.fromkeys(groups))
        for g in groups:
            _check_name(g, "group")
        with self._locked() as users:
            if name not in users:
                raise UserError(f"user '{name}' does not exist")
            users[name] = attrs.evolve(users[name], groups=groups)

    def delete(self, name: str) -> None:
        with self._locked() as users:
            if users.pop(name, None) is None:
                raise UserError(f"user '{name}' does not exist")

    def ensure_owner(self, owner: str) -> None:
        """Create the repository with ``owner`` in group mqm, as crtmqm's user is."""
        if self.exists():
            return
        owner = owner[:MAX_USER_LENGTH]  # the engine knows users by their 12-character id
        with self._locked() as users:
            if owner not in users:
                users[owner] = UserEntry(owner, NO_PASSWORD, (ADMIN_GROUP,))
