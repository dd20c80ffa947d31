"""Functions for tests/architecture/test_system_marker.py to classify: they are never run."""

from __future__ import annotations

import subprocess
import sys

from tests.support.installation import Installation


def runs_a_subprocess() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def _starts_a_daemon(root: str) -> None:
    Installation(root).start()


def calls_a_helper_that_starts_a_daemon(root: str) -> None:
    _starts_a_daemon(root)


async def listens_on_a_port(chinit) -> None:
    await chinit.run([("127.0.0.1", 0)])


def adds(a: int, b: int) -> int:
    return a + b
