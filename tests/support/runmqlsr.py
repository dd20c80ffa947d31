"""A runmqlsr process of a queue manager, on a port of its own, its output in a file (never
a full pipe), ended by its pid; a traceback in its output fails the test."""

from __future__ import annotations

import subprocess

from tests.support.installation import Installation, chinit_command
from tests.support.waiting import wait_for


class Runmqlsr:
    """runmqlsr -m ``qmgr`` on 127.0.0.1 (``port`` 0: a free one, read from its AMQ8021I)."""

    def __init__(self, site: Installation, out: str, port: int = 0, qmgr: str = "QM2") -> None:
        self.out = out
        with open(out, "w") as f:
            self.proc = subprocess.Popen(
                chinit_command(site, "runmqlsr", "-m", qmgr, "-t", "tcp", "-i", "127.0.0.1",
                               "-p", str(port)), env=site.env, stdout=f,
                stderr=subprocess.STDOUT, text=True)
        line = wait_for(self._listening, 60, "runmqlsr listening")  # (a loaded machine)
        self.port = int(str(line).rsplit("port ", 1)[1].rstrip(").\n"))

    def _listening(self) -> str | None:
        assert self.proc.poll() is None, self.output()
        for line in self.output().splitlines():
            if "AMQ8021I" in line:
                return line
        return None

    def output(self) -> str:
        with open(self.out) as f:
            return f.read()

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        assert "Traceback" not in self.output(), self.output()
