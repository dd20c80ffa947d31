"""The ``*.out`` files of a queue manager's processes (``errors/daemon.out``,
``errors/runmqchi.out``): what a process's interpreter says on its standard error (a
traceback, a warning) when nothing else would record it; the error log has everything
else. Like AMQERR01-03 they are size-bounded: ``name.out`` is moved to ``name.out.1`` (and
``.1`` to ``.2``, the old ``.2`` lost) before it would grow past :data:`OUTPUT_FILE_SIZE`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from typing import IO

from mqpy import filemodes, fswatch

#: Size at which a ``*.out`` file is rotated, bytes.
OUTPUT_FILE_SIZE = 1024 * 1024
#: How often a running process's output file is looked at, seconds, where a write to it
#: cannot be waited for (``mqpy.fswatch``); else it is looked at when written.
CHECK_INTERVAL = 2.0
#: How often it is looked at anyway when it can be waited for, seconds (a write it was not
#: told of: the file replaced under its watch)
SAFETY_INTERVAL = 300.0
#: Files kept of one output: ``name.out``, ``name.out.1``, ``name.out.2``.
OUTPUT_GENERATIONS = 3


def shift_generations(paths: list[str]) -> None:
    """The newest file (``paths[0]``) becomes the second, the second the third ..., the
    oldest is lost; a file missing in the middle is skipped."""
    for older, newer in reversed(list(zip(paths[1:], paths[:-1], strict=True))):
        if os.path.exists(newer):
            os.replace(newer, older)


def generations(path: str) -> list[str]:
    return [path] + [f"{path}.{n}" for n in range(1, OUTPUT_GENERATIONS)]


class OutputFile:
    """One ``*.out`` file, rotated at ``max_size`` (default :data:`OUTPUT_FILE_SIZE`).

    The process whose output it is writes it directly (its standard error is the file):
    nothing it says is lost if its starter ends first. Its starter keeps it bounded:
    :meth:`open` rotates a full file before handing it over, :meth:`keep_bounded` copies a
    full one to ``.1`` and empties it while the process runs (``copytruncate``: a line
    written between the copy and the truncation is lost), looking when it is written.
    """

    def __init__(self, path: str, max_size: int | None = None) -> None:
        self.path = path
        self.max_size = max_size if max_size is not None else OUTPUT_FILE_SIZE

    def full(self) -> bool:
        try:
            return os.stat(self.path).st_size >= self.max_size
        except FileNotFoundError:
            return False

    def open(self) -> IO[bytes]:
        """The file, rotated first if full, opened for appending (O_APPEND: it can be
        emptied under its writer, who then goes on at its new end)."""
        filemodes.makedirs(os.path.dirname(self.path))
        if self.full():
            shift_generations(generations(self.path))
        return filemodes.open_file(self.path, "ab")

    def rotate_in_place(self) -> None:
        """``.1`` becomes ``.2``, a copy of the file ``.1``, and the file is emptied."""
        older = generations(self.path)
        shift_generations(older[1:])
        shutil.copyfile(self.path, older[1])
        os.truncate(self.path, 0)

    def keep_bounded(self, proc: subprocess.Popen) -> threading.Thread:
        """A thread that rotates the file in place whenever it is full, until ``proc`` has
        ended: it looks when the file is written and when ``proc`` ends (inotify and a
        pidfd), or every :data:`CHECK_INTERVAL` seconds where either cannot be had."""

        def watch() -> None:
            fs = fswatch.open_watch()
            if fs is not None and not fs.add(self.path, fswatch.IN_MODIFY):
                fs.close()
                fs = None
            try:
                ended = os.pidfd_open(proc.pid) if fs is not None else None
            except (AttributeError, OSError):  # (no pidfd here, or the process has ended)
                ended = None
            try:
                while proc.poll() is None:
                    if fs is None or ended is None:
                        time.sleep(CHECK_INTERVAL)
                    else:
                        fs.wait(SAFETY_INTERVAL, also=ended)
                    try:
                        if self.full():
                            self.rotate_in_place()
                    except OSError:
                        pass  # (a full disk: the next look tries again)
            finally:
                if fs is not None:
                    fs.close()
                if ended is not None:
                    os.close(ended)

        thread = threading.Thread(target=watch, daemon=True,
                                  name=f"output {os.path.basename(self.path)}")
        thread.start()
        return thread
