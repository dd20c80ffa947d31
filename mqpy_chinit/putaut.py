"""Whose authority a receiving MCA puts with (the PUTAUT channel attribute). Pure rules.

A receiving channel (RCVR, RQSTR, CLUSRCVR) runs in the channel initiator, whose own
connection to the queue manager is privileged; it puts each arriving message with
MQPMO_SET_ALL_CONTEXT (the sender's context travels with the message) and, as IBM's MCA
does, names the user whose authority the put uses in the MQOD's AlternateUserId with
MQPMO_ALTERNATE_USER_AUTHORITY. The queue manager's OAM then wants ``altusr`` on the queue
manager from the channel initiator's user and ``put`` on the destination from that
alternate user (2035 otherwise; ``mqpy.security.authority.open_checks``).

Who that is, per IBM's "PUT authority (PUTAUT)" and "User IDs used by the channel initiator"
([C] DEF and CTX, and ONLYMCA being z/OS-only, in IBM MQ 8.0 "PUT authority (PUTAUT)": DEF
checks the user running the MCA, CTX moves the MQMD UserIdentifier into AlternateUserId and
opens with MQOO_ALTERNATE_USER_AUTHORITY; [M] ALTMCA's two checks):

- **DEF** (default): the MCA user: the channel's MCAUSER, or the user CHLAUTH mapped the
  channel to (USERSRC(MAP)), as decided when the channel was admitted. Blank (a requester
  with no MCAUSER, say): the channel initiator's own authority, no alternate user.
- **CTX**: the UserIdentifier of the message's MQMD, moved into AlternateUserId. A blank
  UserIdentifier is nobody, so such a put is refused (IBM: with a blank AlternateUserId the
  open succeeds only if it needs no authority).
- **ONLYMCA**: the MCA user only. IBM documents it for z/OS, where DEF also checks the
  "channel user id" received from the network; mqpy receives none on TCP, so ONLYMCA and
  DEF check the same user.
- **ALTMCA**: as ONLYMCA, and the context user as well: both the MCA user and the MQMD's
  UserIdentifier need ``put`` (z/OS's default two checks, RESLEVEL NONE).

A put refused for authority is undeliverable like any other: it goes to the dead-letter
queue with an MQDLH whose Reason is 2035 (the dead letter is put with the MCA user's
authority, so that user needs ``put`` on the dead-letter queue), or, with no usable
dead-letter queue, the batch is backed out and the channel ends.
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
