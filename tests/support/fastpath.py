"""A queue manager whose channel initiator hands client sockets over to the daemon (qm.ini
Channels MQIBindType=FASTPATH), and which process holds a client's socket."""

from __future__ import annotations

import os

from tests.support.site import ADMIT_OWNER, QM, Site
from tests.support.waiting import came_true

QUEUE = "FP.Q"


class FastpathSite(Site):
    """Site, with qm.ini's Channels stanza saying MQIBindType=FASTPATH before strmqm, the
    owner admitted as a client and this module's queue."""

    def __init__(self, root: str) -> None:
        super().__init__(root, {"MQIBindType": "FASTPATH"})

    def start(self) -> FastpathSite:
        super().start()
        self.mqsc(ADMIT_OWNER + f"DEFINE QLOCAL({QUEUE}) MAXDEPTH(1000)\n")
        return self


def _holders(site: Site) -> set[str]:
    """Which processes ("daemon", "chinit") hold a connected socket on the listener's port:
    the server side of the clients' connections (/proc/net/tcp, then each process's fds)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == site.port:
                inodes.add(fields[9])
    roles = {site.inst.pid(QM): "daemon", site.inst.chinit_pid(QM): "chinit"}
    found = set()
    for pid, role in roles.items():
        if pid is None:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in inodes:
                found.add(role)
    return found


def daemon_alone_holds(site: Site) -> bool:
    """Whether the daemon alone holds the clients' sockets, within a few seconds: the channel
    initiator closes its copy of a socket just after the daemon took it, and a client may be
    served by the daemon before that."""
    return came_true(lambda: _holders(site) == {"daemon"})


FASTPATH = {"MQIBindType": "FASTPATH"}

#: qm.ini Channels values that keep the channel initiator relaying client calls (IBM's default;
#: crtmqm writes FASTPATH)
STANDARD = {"MQIBindType": "STANDARD"}
