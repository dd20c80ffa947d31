"""The installation's own programs started as processes (the daemon by strmqm, the channel
initiator by the daemon): their command lines."""

from __future__ import annotations

import sys


def program(module: str, *args: str) -> list[str]:
    """The command line of one of the installation's own programs (``python -m module``), run
    by this interpreter. ``-P`` keeps the folder it is started in off ``sys.path``: where the
    operator stands (beside a folder named ``mqpy``, say) cannot hide the installed packages."""
    return [sys.executable, "-P", "-m", module, *args]
