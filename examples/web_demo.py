"""The demo's last part: the mqweb server in front of its queue managers (strmqweb), the
console's address, one REST call, and /metrics; then endmqweb, unless MQPY_DEMO_KEEP=1 asks
for everything to be left running."""

from __future__ import annotations

import base64
import json
import os
import socket
import urllib.request
from collections.abc import Callable

KEEP = os.environ.get("MQPY_DEMO_KEEP") == "1"
USER, PASSWORD = "admin", "demo-admin"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(run: Callable[..., str], say: Callable[[str], None], data: str,
          qmgrs: tuple[str, ...] = ("QM1", "QM2")) -> str:
    """strmqweb with a demo user in MQWebAdmin and MQWebUser: the console's address."""
    say("the web console, the REST API and Prometheus metrics (strmqweb)")
    port = _free_port()
    os.makedirs(os.path.join(data, "web"), exist_ok=True)
    with open(os.path.join(data, "web", "mqweb.ini"), "w", encoding="utf-8") as f:
        f.write(f"[server]\nhost = 127.0.0.1\nport = {port}\n\n[roles]\n"
                f"MQWebAdmin = {USER}\nMQWebUser = {USER}\n")
    for qm in qmgrs:
        run("mqpyuser", "add", "-m", qm, "-g", "mqm", "--password", PASSWORD, USER,
            show=False)
    run("strmqweb")
    run("dspmqweb")
    base = f"http://127.0.0.1:{port}"
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(f"{base}/ibmmq/rest/v2/admin/qmgr",
                                     headers={"Authorization": f"Basic {token}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        print(f"$ curl -u {USER}:{PASSWORD} {base}/ibmmq/rest/v2/admin/qmgr")
        print("  " + json.dumps(json.load(answer)))
    return f"{base}/ibmmq/console/"


def finish(run: Callable[..., str], url: str) -> None:
    """The console's address last; the server ended unless asked to keep it."""
    if KEEP:
        print(f"\nLeft running (MQPY_DEMO_KEEP=1): the console at {url} "
              f"(user {USER}, password {PASSWORD}); stop with endmqweb and endmqm -i QM1 QM2, "
              f"with MQPY_DATA_PATH={os.environ.get('MQPY_DATA_PATH')}")
        return
    run("endmqweb")
    print(f"\nThe console was at {url} (user {USER}, password {PASSWORD}); "
          "`MQPY_DEMO_KEEP=1 make demo` leaves it running")
