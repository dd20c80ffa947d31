"""The bindings socket carries flows of any length, and requests that arrive together."""

from __future__ import annotations

import socket

import mqpy
from mqpy import CMQC, bindings
from mqpy.fap.tsh import SegmentType
from tests.support.installation import QM

IN, OUT = CMQC.MQOO_INPUT_AS_Q_DEF, CMQC.MQOO_OUTPUT


def test_a_message_longer_than_a_segment_and_the_socket_buffer_goes_both_ways(running):
    """Given a 3 MB message (three 1 MB segments each way, and a reply far longer than the
    socket's buffer), when it is put and got over bindings, then it comes back whole, and
    the connection goes on serving short calls."""
    text = bytes(range(256)) * (3 * 4096)
    qm = mqpy.connect(QM)
    try:
        q = mqpy.Queue(qm, "Q5", IN | OUT)
        q.put(text)
        assert q.get(None) == text
        q.put(b"short")
        assert q.get(None) == b"short"
        q.close()
    finally:
        qm.disconnect()


def test_requests_sent_together_are_each_answered_in_order(running):
    """Given an application that writes MQCONN, two MQINQs and MQDISC in one write, without
    waiting for any reply, then the queue manager answers each, in order, and then closes the
    connection."""
    flows = bindings.Flows()
    requests = [flows.request(SegmentType.MQCONN, [(QM, "together"), None], 0),
                flows.request(SegmentType.MQINQ, [[CMQC.MQCA_Q_MGR_NAME]], 0),
                flows.request(SegmentType.MQINQ, [[CMQC.MQIA_COMMAND_LEVEL]], 0),
                flows.request(SegmentType.MQDISC, [], 0)]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    with bindings.bind_address(bindings.socket_path(running.qmdir())) as address:
        s.connect(address)
    try:
        s.sendall(b"".join(requests))
        replies = []
        while len(replies) < 4:
            flows.feed(s.recv(1 << 16))
            while (reply := flows.reply()) is not None:
                replies.append(reply)
        assert [r.verb for r in replies] == [SegmentType.MQCONN, SegmentType.MQINQ,
                                             SegmentType.MQINQ, SegmentType.MQDISC]
        assert [r.comp for r in replies] == [CMQC.MQCC_OK] * 4
        assert replies[1].values[0][0].strip() == QM.encode()
        assert replies[2].values[0][0] > 0
        assert s.recv(100) == b""  # MQDISC answered: the queue manager closed its end
    finally:
        s.close()
