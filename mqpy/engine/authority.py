"""The engine's security seam: who may connect, and who may open what.

The engine asks its ``authority`` at MQCONN, MQOPEN, MQSUB (its topic and its destination
queue) and the MQCLOSE that deletes a permanent dynamic queue, and refuses with
MQRC_NOT_AUTHORIZED (2035) when told to. The default lets everything through, as a queue manager with no security
configured does; ``mqpy.security.policy`` installs the real policy (connection authentication, object
authorities). Keeping the seam here means the engine never learns how users are stored.
"""

from __future__ import annotations

from typing import Any, Protocol

from mqpy.errors import MQMIError


class Authority(Protocol):
    def check_connect(self, user: str, password: str | None, appl_name: str,
                      channel: str | None, *, asserted: str, adopted: bool = False) -> str:
        """The user the connection runs as; raise MQMIError(2, 2035) to refuse it.

        ``password`` None: ``user`` is an asserted identity. Otherwise ``user`` and
        ``password`` are an MQCSP and ``asserted`` is who connects (the bindings peer, the
        user a SVRCONN decided on): the MQCSP user replaces it only once authenticated.
        ``adopted``: ``asserted`` was derived from the MQCSP, so it must be authenticated."""

    def check_topic(self, user: str, names: list[str], needed: str) -> None:
        """Raise MQMIError(2, 2035) unless ``user`` holds ``needed`` ("pub" or "sub") on one
        of the topic objects ``names``: a topic's closest administrative node, then its
        parents, then SYSTEM.BASE.TOPIC (IBM checks up the tree until one grants it)."""

    def check_open(self, user: str, objtype: str, name: str, options: int, *,
                   alternate_user: str | None = None) -> None:
        """Raise MQMIError(2, 2035) to refuse the open.

        ``alternate_user``: the MQOD's AlternateUserId when the open asked for
        MQOO_ALTERNATE_USER_AUTHORITY (MQPMO_ALTERNATE_USER_AUTHORITY on MQPUT1), else None:
        ``user`` then needs ``altusr``, and the access the options ask for is judged for
        the alternate user (blank: nobody), the context options still for ``user``."""


    def check_delete(self, user: str, objtype: str, name: str) -> None:
        """Raise MQMIError(2, 2035) unless ``user`` may delete object ``name`` (``dlt``): an
        MQCLOSE with MQCO_DELETE(_PURGE) of a permanent dynamic queue by a handle other than
        the one whose MQOPEN created it."""


def may_delete(authority: Any, user: str, objtype: str, name: str) -> bool:
    """Whether ``authority`` lets ``user`` delete ``name`` (its ``check_delete``; an
    authority without one lets everything through)."""
    check = getattr(authority, "check_delete", None)
    if check is None:
        return True
    try:
        check(user, objtype, name)
    except MQMIError:
        return False
    return True


class AllowAll:
    def check_connect(self, user: str, password: str | None, appl_name: str,
                      channel: str | None, *, asserted: str, adopted: bool = False) -> str:
        # no CONNAUTH: an MQCSP is not authenticated, so its user is never adopted
        return asserted if password is not None else user

    def check_open(self, user: str, objtype: str, name: str, options: int, *,
                   alternate_user: str | None = None) -> None:
        return None

    def check_topic(self, user: str, names: list[str], needed: str) -> None:
        return None

    def check_delete(self, user: str, objtype: str, name: str) -> None:
        return None
