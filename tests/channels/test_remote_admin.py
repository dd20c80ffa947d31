"""runmqsc -w: administering a remote queue manager through channels both ways."""

from __future__ import annotations

import trio

from mqpy.cmdserver import start_command_server
from mqpy_cli.runmqsc import run_client


async def test_runmqsc_w_administers_the_remote_queue_manager(two_qmgrs):
    """Given channels QM1->QM2 and QM2->QM1 and QM2's command server, when runmqsc -w 30 on
    QM1 sends DEFINE and DISPLAY to QM2, then QM2 runs them and the replies come back across
    the channel (the commands go to QM2's SYSTEM.ADMIN.COMMAND.QUEUE through xmitq QM2)."""
    qm1, qm2 = two_qmgrs
    server = start_command_server("QM2", qm2.root)
    try:
        async with trio.open_nursery() as nursery:
            c1, c2 = qm1.make_chinit(), qm2.make_chinit()
            await nursery.start(c1.run, [("127.0.0.1", 0)])
            await nursery.start(c2.run, [("127.0.0.1", 0)])
            for a, b, ca in ((qm1, qm2, c2), (qm2, qm1, c1)):
                a.define("QLOCAL", b.name, USAGE="XMITQ", TRIGGER="YES", TRIGTYPE="FIRST",
                         INITQ="SYSTEM.CHANNEL.INITQ", TRIGDATA=f"{a.name}.TO.{b.name}")
                a.define("CHANNEL", f"{a.name}.TO.{b.name}", CHLTYPE="SDR", XMITQ=b.name,
                         CONNAME=f"127.0.0.1({ca.ports[0]})")
                b.define("CHANNEL", f"{a.name}.TO.{b.name}", CHLTYPE="RCVR")
            lines, code = await trio.to_thread.run_sync(lambda: run_client(
                "QM2", "DEFINE QLOCAL(MADE.REMOTELY)\nDISPLAY QMGR QMNAME\n", wait=30,
                local_qmgr="QM1", data_path=qm1.root))
            nursery.cancel_scope.cancel()
    finally:
        server.stop()
    text = "\n".join(lines)
    assert code == 0, text
    assert "AMQ8006I" in text and "QMNAME(QM2)" in text
    assert qm2.engine.lookup("QLOCAL", "MADE.REMOTELY") is not None
