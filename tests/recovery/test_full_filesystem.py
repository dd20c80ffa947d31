"""A real small file system (a 64 MB ext4 image, loop-mounted: root only) filled by persistent
puts and then given space again: puts resume without a restart, and a restart recovers
exactly what was acknowledged. The same through the os layer, without root, is
tests/engine/test_full_disk_recovery.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

import mqpy
from mqpy import CMQC, config, inprocess
from tests.support import small_log

pytestmark = pytest.mark.soak
QM = "FULLFS"


@pytest.fixture
def small_fs(tmp_path):
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4"):
        pytest.skip("needs root and mkfs.ext4 for a loop mount")
    image, mnt = tmp_path / "fs.img", tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["truncate", "-s", "64M", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    if subprocess.run(["mount", "-o", "loop", str(image), str(mnt)]).returncode != 0:
        pytest.skip("loop mounts are not allowed here")
    try:
        yield str(mnt)
    finally:
        inprocess.stop_all()
        subprocess.run(["umount", str(mnt)])


def test_puts_resume_once_a_full_file_system_has_space_again(small_fs, capfd):
    """Given a queue manager (1 MB log segments) on a 64 MB file system holding a 16 MB
    file, when persistent 20 KB puts fill it, then a put gets 2102 and the error log (or
    stderr, where the full disk refuses the error log itself) names ENOSPC, never an I/O
    error; when the 16 MB file is removed, puts resume within 30 s in
    the same process, 500 gets work, and a restart finds exactly the acknowledged puts less
    the gets."""
    root = os.path.join(small_fs, "data")
    with open(os.path.join(small_fs, "filler"), "wb") as f:
        f.write(bytes(16 * 1024 * 1024))
    cfg = config.QMgrConfig(QM, config.qmgr_dir(QM, root))
    cfg.log.LogFilePages = 256
    inprocess.create(QM, root, cfg=cfg)
    inprocess.start(QM, root).define("QLOCAL", "Q", {"MAXDEPTH": 999999})
    qm = mqpy.embedded(QM, data_path=root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
    acknowledged = []
    with pytest.raises(mqpy.MQMIError) as exc:
        for i in range(100_000):
            data = b"%06d" % i + bytes(20_000)
            q.put(data, md)
            acknowledged.append(data)
    assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    os.unlink(os.path.join(small_fs, "filler"))
    deadline = time.monotonic() + 30
    while True:
        try:
            q.put(b"after", md)
            acknowledged.append(b"after")
            break
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_RESOURCE_PROBLEM
            assert time.monotonic() < deadline, "puts never resumed"
            time.sleep(1)
    for _ in range(500):
        assert q.get() == acknowledged.pop(0)
    with open(os.path.join(config.qmgr_dir(QM, root), "errors", "AMQERR01.LOG")) as f:
        text = f.read() + capfd.readouterr().err
    assert os.strerror(28) in text and "Input/output error" not in text
    qm.disconnect()
    inprocess.stop_all()
    inprocess.start(QM, root)
    assert small_log.contents(mqpy.embedded(QM, data_path=root)) == acknowledged
