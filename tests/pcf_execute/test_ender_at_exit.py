"""The ender at the process's exit: what it was handed is still ended (MQCLOSE, MQDISC), as
pymqi's objects disconnect at exit, and a fault ending one connection does not stop it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import sys, time
    from mqpy import collected

    out = open(sys.argv[1], "a")

    class Conn:
        def __init__(self, name, slow=0.0, fault=False):
            self.name, self.slow, self.fault = name, slow, fault
        def close(self, hobj):
            out.write(f"{self.name} MQCLOSE {hobj}\\n"); out.flush()
        def disconnect(self):
            time.sleep(self.slow)
            if self.fault:
                raise RuntimeError("not an MQI error")
            out.write(f"{self.name} MQDISC\\n"); out.flush()

    collected.start_ender()
    collected.ended_later(Conn("faulty", fault=True))
    collected.ended_later(Conn("slow", slow=0.3), (7,))
    collected.ended_later(Conn("last"), (8,))
    # the program ends at once: the ender is inside the slow one's MQDISC
""")


def test_connections_handed_to_the_ender_are_ended_when_the_program_exits(tmp_path):
    """Given three connections handed to the ender, the first one's end failing with a
    non-MQI error and the second one's MQDISC slow, when the program ends at once, then
    every one is ended by exit and the failure is written to stderr."""
    out = tmp_path / "calls"
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(out)], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    calls = out.read_text().splitlines()
    assert calls == ["slow MQCLOSE 7", "slow MQDISC", "last MQCLOSE 8",
                     "last MQDISC"]
    assert "RuntimeError: not an MQI error" in done.stderr
