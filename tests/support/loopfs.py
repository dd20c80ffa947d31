"""A real small file system for tests that fill one: an ext4 image of a given size,
loop-mounted (root only; skipped elsewhere), unmounted at the end."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest


@contextlib.contextmanager
def loop_mounted(folder: str, size: str = "64M") -> Iterator[str]:
    """A fresh ext4 file system of ``size`` mounted under ``folder``: its mount point.
    pytest.skip where the test cannot mount one (not root, no mkfs.ext4, no loop device)."""
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4"):
        pytest.skip("needs root and mkfs.ext4 for a loop mount")
    image, mnt = os.path.join(folder, "fs.img"), os.path.join(folder, "mnt")
    os.makedirs(mnt, exist_ok=True)
    subprocess.run(["truncate", "-s", size, image], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", image], check=True)
    if subprocess.run(["mount", "-o", "loop", image, mnt]).returncode != 0:
        pytest.skip("loop mounts are not allowed here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", mnt])
