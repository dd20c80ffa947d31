"""amqscnxc: connect as a client with the channel given on the command line, and show the
name of the queue manager connected to (IBM's sample AMQSCNXC).

    amqscnxc [-x CONNAME [-c SVRCONN_CHANNEL]] [-u USER] [QMGR]

With ``-x`` the MQCONNX carries an MQCD (ClientConnPtr) with that connection name and the
channel (SYSTEM.DEF.SVRCONN when ``-c`` is not given); without it the client finds its
channel as any client does (MQSERVER, a CCDT). ``-u`` adds an MQCSP with the password read
from standard input. The flags are read as IBM's sample reads them: ``-x`` or ``/x``, the
value in the same argument or the next, any order, the queue manager last; anything else
(``-c`` without ``-x``, an unknown flag, an argument left over, ``?``) prints the usage and
exits 99.
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import RC_MISSING_PARAMETER, ask_password, close, connect, entry_point

DEFAULT_CHANNEL = "SYSTEM.DEF.SVRCONN"
_FLAGS = {"x": "conname", "c": "channel", "u": "user"}


def parse(argv: list[str]) -> dict[str, str] | None:
    """The flags and the queue manager (key ``qmgr``) of ``argv``; None when IBM's sample
    prints its usage."""
    if argv[:1] == ["?"]:
        return None
    given: dict[str, str] = {}
    i = 0
    while i < len(argv) and argv[i][:1] in ("-", "/"):
        key = _FLAGS.get(argv[i][1:2].lower())
        if key is None:
            return None
        value = argv[i][2:]
        if not value:
            if i + 1 >= len(argv) or argv[i + 1][:1] in ("-", "/"):
                return None
            i += 1
            value = argv[i]
        given[key] = value
        i += 1
    if "channel" in given and "conname" not in given:
        return None
    if i == len(argv) - 1:
        given["qmgr"] = argv[i]
    elif i != len(argv):
        return None
    return given


def main(argv: list[str]) -> int:
    """Connect with the client channel given and show the queue manager's name."""
    print("Sample AMQSCNXC start", flush=True)
    given = parse(argv)
    if given is None:
        print("Usage:")
        print("\tamqscnxc [-x ConnName [-c SvrconnChannelName]] [-u User] [QMgrName]")
        return RC_MISSING_PARAMETER
    qmgr = given.get("qmgr", "")
    print(f"Connecting to queue manager {qmgr:<48.48}" if qmgr
          else "Connecting to the default queue manager")
    cd = None
    if "conname" in given:
        channel = given.get("channel", DEFAULT_CHANNEL)
        cd = mqpy.CD(ChannelName=channel.encode(), ConnectionName=given["conname"].encode())
        print(f"using the server connection channel {channel}")
        print(f"on connection name {given['conname']}.")
    else:
        print("with no client connection information specified.")
    user = given.get("user")
    password = ask_password() if user is not None else None
    qm = connect(qmgr, client=True, cd=cd, user=user, password=password)
    if isinstance(qm, int):
        return qm
    try:
        name = qm.inquire(CMQC.MQCA_Q_MGR_NAME)
    except mqpy.MQMIError as e:
        print(f"MQINQ ended with reason code {e.reason}")
    else:
        text = name.decode("latin-1") if isinstance(name, bytes) else str(name)
        print(f"Connection established to queue manager {text:<48.48}")
    close(qm)
    print("Sample AMQSCNXC end")
    return 0


amqscnxc = entry_point(main)
