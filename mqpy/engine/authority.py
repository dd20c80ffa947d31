"""The engine's security seam: who may connect, and who may open what.

The engine asks its ``authority`` at MQCONN and MQOPEN and refuses with MQRC_NOT_AUTHORIZED
(2035) when told to. The default lets everything through, as a queue manager with no security
configured does; ``mqpy.security`` installs the real policy (connection authentication, object
authorities). Keeping the seam here means the engine never learns how users are stored.
"""

from __future__ import annotations

from typing import Protocol


class Authority(Protocol):
    def check_connect(self, user: str, password: str | None, appl_name: str,
                      channel: str | None) -> None:
        """Raise MQMIError(2, 2035) to refuse the connection."""

    def check_open(self, user: str, objtype: str, name: str, options: int) -> None:
        """Raise MQMIError(2, 2035) to refuse the open."""


class AllowAll:
    def check_connect(self, user: str, password: str | None, appl_name: str,
                      channel: str | None) -> None:
        return None

    def check_open(self, user: str, objtype: str, name: str, options: int) -> None:
        return None
