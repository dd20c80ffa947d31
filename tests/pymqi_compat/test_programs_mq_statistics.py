"""MQStatisticsPython (rkbroder/MQStatisticsPython on GitHub: queue.stats.py,
channel.stats.py), scripts that write MQ statistics to CSV, written as they call pymqi with
``import mqpy as pymqi`` as the only change.

Each script starts with ``from pymqi import _MQConst2String``, ``from pymqi import pymqe``
(falling back to ``import pymqe``; it is never used after), ``from pymqi import CMQCFC`` and
``from pymqi import CMQC, CMQXC, CMQZC``; connects (``pymqi.connect(qmgr)`` in bindings, or
a channel and ``host(port)``) and makes a ``PCFExecute(qmgr)``. queue.stats.py inquires
every local queue (``{MQCA_Q_NAME: '*', MQIA_Q_TYPE: MQQT_LOCAL, MQIACF_Q_ATTRS:
MQIACF_ALL}``), skips names containing SYSTEM, decodes the creation date and time, names
the definition type with ``_MQConst2String(CMQC, 'MQQDT_')`` (its last ``_`` part) and the
queue type with ``_MQConst2String(CMQC, 'MQQT_')``, and resets each queue's statistics
(MQIA_HIGH_Q_DEPTH, MQIA_MSG_DEQ_COUNT, MQIA_MSG_ENQ_COUNT). channel.stats.py names channel
types with ``_MQConst2String(CMQXC, 'MQCHT_')``. A Splunk modular input for MQ names MQMD
fields the same way (``pymqi._MQConst2String(CMQC, "MQMT_")``, ``"MQPER_"``, ...).

Before: ``_MQConst2String`` was not a name of the package (ImportError), and mqpy's own
table took prefixes only; ``from pymqi import pymqe`` was an ImportError (mqpy has no C
extension), so the scripts stopped at their imports.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "mqstatistics")


def test_the_scripts_imports():
    """Given the scripts' imports, then each resolves: ``_MQConst2String`` and the
    constant modules from the package, and ``pymqe`` from it (the C extension's name, with
    pymqi's build facts), so the ``import pymqe`` fallback is never reached."""
    from mqpy import CMQC, CMQCFC, CMQXC, CMQZC, _MQConst2String  # noqa: F401

    try:
        from mqpy import pymqe
    except ImportError:  # the scripts' fallback, which has nothing to import here
        pytest.fail("from pymqi import pymqe failed")
    assert "7.0" in pymqe.__mqlevels__
    assert pymqe.__mqbuild__ == pymqi.__mqbuild__


def _name(table: object, value: int) -> str:
    """The scripts' use of a table: the name, if the value has one, else its str."""
    return table[value] if value in table else str(value)  # type: ignore[index,operator]


def test_local_queues_named_and_their_statistics_reset(env):
    """Given PERFMEV(ENABLED) and two puts to APP.Q, when queue.stats.py runs in bindings,
    then it skips the SYSTEM queues and reports APP.Q with its creation date
    (YYYY-MM-DD) and time (HH.MM.SS), definition type PREDEFINED, type MQQT_LOCAL, and
    from Reset Queue Statistics a high depth of 2 and 2 enqueued, 0 dequeued; the
    PCFExecute's own reply queue is among the local queues, TEMPORARY_DYNAMIC's last part
    DYNAMIC."""
    from mqpy import CMQC, CMQCFC, _MQConst2String

    qmgr = pymqi.connect(QMGR)
    pcf = pymqi.PCFExecute(qmgr)
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_ENABLED})
    try:
        pcf.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: QUEUE})
        pymqi.Queue(qmgr, QUEUE).put(b"one")
        pymqi.Queue(qmgr, QUEUE).put(b"two")
        rows = {}
        for info in pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: "*",
                                         CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                         CMQCFC.MQIACF_Q_ATTRS: CMQCFC.MQIACF_ALL}):
            name = info[CMQC.MQCA_Q_NAME].decode("utf-8").strip()
            if "SYSTEM" in name:
                continue
            row = {"created": info[CMQC.MQCA_CREATION_DATE].decode("utf-8").strip(),
                   "time": info[CMQC.MQCA_CREATION_TIME].decode("utf-8"),
                   "deftype": _name(_MQConst2String(CMQC, "MQQDT_"),
                                    info[CMQC.MQIA_DEFINITION_TYPE]).split("_")[-1].strip(),
                   "qtype": _name(_MQConst2String(CMQC, "MQQT_"), info[CMQC.MQIA_Q_TYPE])}
            if row["deftype"] != "DYNAMIC":
                [stats] = pcf.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: name})
                row.update(high=stats[CMQC.MQIA_HIGH_Q_DEPTH], deq=stats[CMQC.MQIA_MSG_DEQ_COUNT],
                           enq=stats[CMQC.MQIA_MSG_ENQ_COUNT])
            rows[name] = row
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_DISABLED})
        drain(qmgr)
        qmgr.disconnect()
    assert not any("SYSTEM" in name for name in rows)
    app = rows[QUEUE]
    assert len(app["created"]) == 10 and app["created"][4] == "-"
    assert len(app["time"]) == 8 and app["time"][2] == "."
    assert (app["deftype"], app["qtype"]) == ("PREDEFINED", "MQQT_LOCAL")
    assert (app["high"], app["enq"], app["deq"]) == (2, 2, 0)
    reply = pcf.reply_queue_name.decode()
    assert rows[reply]["deftype"] == "DYNAMIC"


def test_channel_types_named_from_cmqxc(env):
    """Given channel.stats.py's names of channel types, when it inquires APP.SVRCONN, then
    ``_MQConst2String(CMQXC, 'MQCHT_')`` names its type MQCHT_SVRCONN (last part SVRCONN);
    a value no MQCHT_ name has is not in the table, and ``has_key`` says the same."""
    from mqpy import CMQCFC, CMQXC, _MQConst2String

    qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    try:
        [info] = pymqi.PCFExecute(qmgr).MQCMD_INQUIRE_CHANNEL(
            {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL})
    finally:
        qmgr.disconnect()
    table = _MQConst2String(CMQXC, "MQCHT_")
    assert table[info[CMQCFC.MQIACH_CHANNEL_TYPE]] == "MQCHT_SVRCONN"
    assert 999 not in table and not table.has_key(999)
    with pytest.raises(KeyError):
        table[999]


def test_md_fields_named_as_the_splunk_input_names_them(env):
    """Given the MQ modular input's tables of MQMD values (MQMT_, MQPER_, MQEI_, MQRO_ of
    CMQC, and MQFMT_ and MQMD_, whose values are bytes), when it describes a message it
    got, then the names are IBM's: MQMT_DATAGRAM, MQPER_PERSISTENT, MQEI_UNLIMITED,
    MQRO_NONE (the name pymqi's table gives where two share a value), MQFMT_STRING,
    MQMD_STRUC_ID."""
    qmgr = pymqi.connect(QMGR)
    try:
        queue = pymqi.Queue(qmgr, QUEUE, pymqi.CMQC.MQOO_OUTPUT | pymqi.CMQC.MQOO_INPUT_SHARED)
        queue.put(b"x", pymqi.MD(Persistence=pymqi.CMQC.MQPER_PERSISTENT,
                                 Format=pymqi.CMQC.MQFMT_STRING))
        md = pymqi.MD()
        queue.get(None, md)
        queue.close()
    finally:
        qmgr.disconnect()
    names = [pymqi._MQConst2String(pymqi.CMQC, prefix)[value] for prefix, value in (
        ("MQMT_", md.MsgType), ("MQPER_", md.Persistence), ("MQEI_", md.Expiry),
        ("MQRO_", md.Report), ("MQFMT_", md["Format"]), ("MQMD_", md["StrucId"]))]
    assert names == ["MQMT_DATAGRAM", "MQPER_PERSISTENT", "MQEI_UNLIMITED", "MQRO_NONE",
                     "MQFMT_STRING", "MQMD_STRUC_ID"]
