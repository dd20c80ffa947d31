"""Values that come back to mqpy as DISPLAY text: the channel initiator in its own process reads
its queue manager's definitions through the command server (``mqpy_chinit.admin.MQSCAdmin``),
dmpmqcfg reads every object the same way. A value holding a line break (a description a
partner's queue-manager name went into, a topic string a cluster member sent) must stay one
value there: it never becomes an item of its own, nor the header of another object."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import cmdserver, inprocess
from mqpy.fap.initialdata import InitialData
from mqpy.mqi import attach
from mqpy.mqsc import dump
from mqpy.mqsc.processor import MQSCProcessor
from mqpy_chinit.admin import MQSCAdmin
from mqpy_chinit.responder import Responder

#: what a hostile partner sends as its queue manager's name: a line break, then a line the
#: command server's reader takes for the header of the next object (27 characters: the room
#: CHAD's description leaves it)
FORGED_HEADER = "Q\nAMQ8414I: Display details."


@pytest.fixture(scope="module")
def qmgr(tmp_path_factory):
    """QM1 embedded with its command server; SYSTEM.AUTO.RECEIVER runs as 'nobody' and puts
    with the context's authority, as an operator sets it to hold auto-defined channels in."""
    root = str(tmp_path_factory.mktemp("display"))
    mqpy.embedded("QM1", data_path=root)
    engine = inprocess.running("QM1", root)
    proc = MQSCProcessor(engine)
    for text in ("ALTER QMGR CHAD(ENABLED)",
                 "ALTER CHANNEL(SYSTEM.AUTO.RECEIVER) CHLTYPE(RCVR) MCAUSER('nobody') "
                 "PUTAUT(CTX)"):
        assert proc.execute_text(text).ok, text
    cmdserver.start_command_server("QM1", root)
    try:
        yield proc
    finally:
        cmdserver.stop_command_server("QM1", root)
        mqpy.stop_embedded("QM1", data_path=root)


@pytest.fixture
def admin(qmgr):
    """The channel initiator's admin, as a separate runmqchi has it: MQSC through the
    command server."""
    a = MQSCAdmin(attach(qmgr.engine), wait=10)
    yield a
    a.close()


def test_a_partner_name_with_a_line_break_leaves_its_auto_defined_channel_whole(admin):
    """Given CHAD and a partner whose queue-manager name holds a line break and an AMQ header,
    when its unknown channel is auto-defined and read back, then the definition the
    receiving MCA gets is the whole channel: SYSTEM.AUTO.RECEIVER's MCAUSER and PUTAUT, not
    a definition cut at the description (which would run it as the channel initiator's own
    user with its own authority)."""
    responder = Responder()
    responder.admin = admin
    first = InitialData(fap_level=10, channel_name="AUTO.FORGED", qmgr_name=FORGED_HEADER)
    definition = responder._autodefine("AUTO.FORGED", first)
    assert definition is not None
    assert definition["MCAUSER"] == "nobody"
    assert definition["PUTAUT"] == "CTX"
    assert "\n" not in str(definition["DESCR"])
    assert admin.channel("AUTO.FORGED") == definition
    assert None not in admin.channels() and "None" not in admin.channels()


def test_a_description_with_a_line_break_forges_no_item(qmgr, admin):
    """Given a channel whose description holds a line break and an item, when the channel
    initiator reads it through the command server, then the item is part of the description
    and the channel's own MCAUSER is read."""
    assert qmgr.execute_text("DEFINE CHANNEL(DESCR.FORGED) CHLTYPE(RCVR) MCAUSER('nobody') "
                             "DESCR('x\n   SSLPEER(CN=*)\nAMQ8414I: Display details.')").ok
    definition = admin.channel("DESCR.FORGED")
    assert definition is not None
    assert definition["MCAUSER"] == "nobody"
    assert definition["SSLPEER"] == ""
    assert definition["DESCR"] == "x\\n   SSLPEER(CN=*)\\nAMQ8414I: Display details."


def test_dmpmqcfg_dumps_a_forged_description_as_one_value(qmgr):
    """Given a queue whose description holds a line break and an item, when dmpmqcfg reads
    its DISPLAY, then the dump defines the queue with that text as its description and
    nothing the description held as an attribute of its own."""
    assert qmgr.execute_text("DEFINE QLOCAL(Q.FORGED) DESCR('x\n   GET(DISABLED)')").ok
    shown = dump.parse_display("\n".join(qmgr.execute_text("DISPLAY QLOCAL(Q.FORGED) ALL")
                                         .lines))
    assert len(shown) == 1
    [definition] = dump.object_definitions("QUEUE", shown, every=False)
    text = definition.mqsc(one_line=True)
    assert text == "DEFINE QLOCAL('Q.FORGED') DESCR('x\\n   GET(DISABLED)') REPLACE"
