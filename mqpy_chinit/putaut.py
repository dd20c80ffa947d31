"""Whose authority a receiving MCA puts with: the PUTAUT channel attribute (pure rules).

A receiving channel puts each arrival with MQPMO_SET_ALL_CONTEXT and names, in the MQOD's
AlternateUserId with MQPMO_ALTERNATE_USER_AUTHORITY, the user whose authority the put uses:
DEF and ONLYMCA the MCA user (MCAUSER, or the user CHLAUTH mapped the channel to; blank: the
channel initiator's own authority), CTX the MQMD's UserIdentifier, ALTMCA both (two checks).
A put refused for authority is undeliverable like any other (MQDLH Reason 2035); dead letters
are put with the MCA user's authority.
"""

from __future__ import annotations

import attrs

__all__ = ["PUTAUT_VALUES", "PutAuthority"]

PUTAUT_VALUES = ("DEF", "CTX", "ONLYMCA", "ALTMCA")


def _user(raw: bytes | str) -> str:
    if isinstance(raw, bytes):
        raw = raw.decode("latin-1")
    return raw.rstrip(" \x00")


@attrs.frozen
class PutAuthority:
    """A receiving channel's PUTAUT and its MCA user ("" = the channel initiator itself)."""

    mode: str = "DEF"
    mca_user: str = ""

    @classmethod
    def of(cls, definition: dict[str, object], mca_user: str | None) -> PutAuthority:
        mode = str(definition.get("PUTAUT") or "DEF").strip().upper()
        if mode not in PUTAUT_VALUES:
            mode = "DEF"
        user = mca_user if mca_user is not None else str(definition.get("MCAUSER") or "")
        return cls(mode, user.strip())

    def put_user(self, context_user: bytes | str) -> str | None:
        """The AlternateUserId of an arrival's MQPUT1 (None: the MCA's own authority)."""
        if self.mode in ("CTX", "ALTMCA"):
            return _user(context_user)
        return self.mca_user or None

    def also_checked(self) -> str | None:
        """A second user who must be able to put to the destination (ALTMCA's MCA user)."""
        return (self.mca_user or None) if self.mode == "ALTMCA" else None

    def dead_letter_user(self) -> str | None:
        """The AlternateUserId of a dead letter's put: the MCA user, whatever the mode."""
        return self.mca_user or None
