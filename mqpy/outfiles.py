"""The ``*.out`` files of a queue manager's processes (``errors/daemon.out``,
``errors/runmqchi.out``): what a process's interpreter says on its standard error (a
traceback, a warning) when nothing else would record it; the error log has everything
else. Like AMQERR01-03 they are size-bounded: ``name.out`` is moved to ``name.out.1`` (and
``.1`` to ``.2``, the old ``.2`` lost) before it would grow past :data:`OUTPUT_FILE_SIZE`.
"""

from __future__ import annotations

import os
import threading
from typing import IO

from mqpy import filemodes

#: Size at which a ``*.out`` file is rotated, bytes.
OUTPUT_FILE_SIZE = 1024 * 1024
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
    """One ``*.out`` file, appended to and rotated at ``max_size`` (default
    :data:`OUTPUT_FILE_SIZE`)."""

    def __init__(self, path: str, max_size: int | None = None) -> None:
        self.path = path
        self.max_size = max_size if max_size is not None else OUTPUT_FILE_SIZE
        self._lock = threading.Lock()

    def _rotate_for(self, incoming: int) -> None:
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            return
        if size and size + incoming > self.max_size:
            shift_generations(generations(self.path))

    def open(self) -> IO[bytes]:
        """The file, rotated first if already full, opened for appending: for a child
        process's standard error (it writes it directly, rotated again at its next start)."""
        filemodes.makedirs(os.path.dirname(self.path))
        self._rotate_for(1)
        return filemodes.open_file(self.path, "ab")

    def write(self, data: bytes) -> None:
        with self._lock:
            self._rotate_for(len(data))
            with self.open() as f:
                f.write(data)

    def copy_from(self, stream: IO[bytes]) -> None:
        """Append what ``stream`` (a child's standard error) says until it ends, rotating as
        it goes; an output that cannot be written is dropped, never the child."""
        for line in iter(stream.readline, b""):
            try:
                self.write(line)
            except OSError:
                pass
        stream.close()

    def copy_in_background(self, stream: IO[bytes]) -> threading.Thread:
        thread = threading.Thread(target=self.copy_from, args=(stream,),
                                  name=f"output {os.path.basename(self.path)}", daemon=True)
        thread.start()
        return thread
