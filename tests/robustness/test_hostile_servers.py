"""A hostile server holds no more of our memory than a hostile client does: a client
application and a sending MCA read nothing but one small INITIAL_DATA segment from the
server they call until the exchange is agreed, so a server that answers with a flow that
never ends is refused at its first segment, not buffered until the connection times out."""

from __future__ import annotations

import socket
import threading

import pytest
import trio

from mqpy import CMQC
from mqpy.client import connect
from mqpy.clientchannel import ChannelDefinition
from mqpy.errors import MQMIError
from mqpy.fap import tsh
from mqpy.fap.initialdata import InitialData
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType
from mqpy_chinit.conversation import ChannelEnded
from mqpy_chinit.mca import call_id, open_conversation
from mqpy_chinit.states import ChannelStatus

#: how long the server waits for the caller to give up before saying it did not
PATIENCE = 15.0


def _first_of_endless_flow() -> bytes:
    """A segment marked FIRST (not LAST): the start of a flow whose end never comes."""
    body = bytes(1000)
    return tsh.build_segment_header(SegmentType.MQPUT, tsh.TSH_LENGTH + len(body),
                                     flags1=ControlFlags1.FIRST,
                                     byte_order=ByteOrder.LITTLE) + body


class _HostileServer:
    """Accepts one connection, answers its first bytes with the start of an endless flow
    and then waits: ``dropped`` says whether the caller closed the connection at once."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.dropped: bool | None = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(PATIENCE)
            conn.recv(65536)  # the caller's INITIAL_DATA
            conn.sendall(_first_of_endless_flow())
            try:
                while conn.recv(65536):
                    pass
                self.dropped = True
            except OSError:  # (timed out: the caller is still waiting for the rest)
                self.dropped = False

    def close(self) -> None:
        self.thread.join(PATIENCE + 5)
        self.sock.close()


@pytest.fixture
def server():
    s = _HostileServer()
    yield s
    s.close()


def test_a_client_refuses_a_server_whose_answer_never_ends(server) -> None:
    """Given a server that answers INITIAL_DATA with the first segment of a flow that never
    ends, when a client application connects, then MQCONN fails with an MQ reason and the
    client drops the connection at once instead of waiting to buffer the rest."""
    definition = ChannelDefinition("APP.SVRCONN", (("127.0.0.1", server.port),))
    with pytest.raises(MQMIError) as err:
        connect("QM1", definition)
    assert err.value.comp == CMQC.MQCC_FAILED
    server.thread.join(PATIENCE + 5)
    assert server.dropped is True


async def test_a_sending_mca_refuses_a_partner_whose_answer_never_ends(server) -> None:
    """Given a partner that answers a sender's INITIAL_DATA the same way, when the sender
    calls it, then the exchange ends with a protocol error (AMQ9504E) and the connection is
    dropped at once."""
    status = ChannelStatus("TO.HOSTILE", "SDR")
    definition = {"CHANNEL": "TO.HOSTILE", "CHLTYPE": "SDR",
                  "CONNAME": f"127.0.0.1({server.port})"}
    conv = await open_conversation(definition, status)
    ours = InitialData(fap_level=10, channel_name="TO.HOSTILE", qmgr_name="QM1")
    with pytest.raises(ChannelEnded) as err:
        await call_id(conv, ours)
    assert err.value.msgid == "AMQ9504E"
    await conv.stream.aclose()
    await trio.to_thread.run_sync(server.thread.join, PATIENCE + 5)
    assert server.dropped is True
