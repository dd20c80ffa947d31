"""Channel exits as the operator defines them: Python exit programs named 'module(function)'
or 'path/file.py(function)' in SCYEXIT, MSGEXIT, SENDEXIT and RCVEXIT (with SCYDATA, MSGDATA,
SENDDATA, RCVDATA), called with IBM's parameters (MQCXP, the channel definition, the agent
buffer) at IBM's points: the security exit after the initial data, before any message; on the
sender the message exit, then the send exit for each transmission; on the receiver the
receive exit for each transmission, then the message exit for the whole message. An exit that
cannot be loaded or fails stops the channel with IBM's message, never a traceback."""

from __future__ import annotations

import importlib
import sys

import pytest
import trio

from mqpy import CMQXC
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.waiting import wait_until

from .test_undeliverable import dead_letters

XQH_AND_MD = 428  # an MQXQH with its MQMD v1: what precedes a message's data

EXITS = '''
from mqpy import CMQXC

CALLS = []  # (exit, ExitId, ExitReason, ExitData) of every call


def _note(name, cxp):
    CALLS.append((name, cxp.ExitId, cxp.ExitReason, cxp.ExitData))


def upper(cxp, cd, buffer):
    """A sender's message exit: the message data in capitals."""
    _note("upper", cxp)
    if cxp.ExitReason == CMQXC.MQXR_MSG:
        return buffer[:428] + buffer[428:].upper()
    return None


def reverse(cxp, cd, buffer):
    """A receiver's message exit: the message data reversed."""
    _note("reverse", cxp)
    if cxp.ExitReason == CMQXC.MQXR_MSG:
        return buffer[:428] + buffer[428:][::-1]
    return None


def scramble(cxp, cd, buffer):
    """A send or receive exit: every byte of a transmission after its first 8 XORed (the
    partner's exit undoes it); counts its transmissions in ExitUserArea."""
    _note("scramble", cxp)
    if cxp.ExitReason != CMQXC.MQXR_XMIT:
        return None
    count = int.from_bytes(cxp.ExitUserArea[:4], "little") + 1
    cxp.ExitUserArea[:4] = count.to_bytes(4, "little")
    return buffer[:8] + bytes(b ^ 0x5A for b in buffer[8:])


def agree(cxp, cd, buffer):
    """A security exit that lets the partner in."""
    _note("agree", cxp)
    return None


def refuse(cxp, cd, buffer):
    """A security exit that refuses every partner."""
    _note("refuse", cxp)
    if cxp.ExitReason == CMQXC.MQXR_INIT_SEC:
        cxp.ExitResponse = CMQXC.MQXCC_CLOSE_CHANNEL
    return None


def redirect(cxp, cd, buffer):
    """A message-retry exit: the first retry goes, 0.6 s later, to the queue ExitData names
    (its MQXQH's RemoteQName, bytes 8 to 56)."""
    _note("redirect", cxp)
    if cxp.ExitReason == CMQXC.MQXR_RETRY:
        CALLS.append(("retry", cxp.MsgRetryCount, cxp.MsgRetryReason, cxp.MsgRetryInterval))
        cxp.MsgRetryInterval = 600
        return buffer[:8] + cxp.ExitData.encode().ljust(48) + buffer[56:]
    return None


def sieve(cxp, cd, buffer):
    """A receiver's message exit: a message whose data starts 'drop' is not put (feedback
    65600, an application's feedback code)."""
    _note("sieve", cxp)
    if cxp.ExitReason == CMQXC.MQXR_MSG and buffer[428:].startswith(b"drop"):
        cxp.ExitResponse = CMQXC.MQXCC_SUPPRESS_FUNCTION
        cxp.Feedback = 65600
    return None


def broken(cxp, cd, buffer):
    """A message exit with a bug."""
    if cxp.ExitReason == CMQXC.MQXR_MSG:
        raise ZeroDivisionError("division by zero")
    return None
'''


@pytest.fixture
def exits(tmp_path, monkeypatch):
    """The exit programs above as module ``channel_exits_under_test`` (importable)."""
    (tmp_path / "channel_exits_under_test.py").write_text(EXITS)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("channel_exits_under_test", None)
    module = importlib.import_module("channel_exits_under_test")
    yield module
    sys.modules.pop("channel_exits_under_test", None)


def _ex(function: str) -> str:
    return f"channel_exits_under_test({function})"


async def _send(qm1, qm2, bodies, *, sdr=None, rcvr=None, delivered=None, ended=None,
                define=True, sent=None):
    """The pair defined with exits (``sdr``, ``rcvr``: the ends' attributes), ``bodies``
    put for TARGET, the channel started; waits until ``delivered`` messages are on TARGET
    and the sender's batches are confirmed up to ``sent`` (else ``delivered``) messages,
    or the sender has ``ended`` (left RUNNING for STOPPED or RETRYING); ``define`` False:
    the pair is defined already (its CONNAME is set to the new listener). The sender's
    status."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        if define:
            define_pair(qm1, qm2, r2.port, HBINT=0, rcvr=rcvr, **(sdr or {}))
        else:
            qm1.engine.alter("CHANNEL", CHANNEL, {"CHLTYPE": "SDR",
                                                  "CONNAME": f"127.0.0.1({r2.port})"})
        for body in bodies:
            qm1.put("TARGET", body, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        if delivered is not None:
            await wait_until(lambda: qm2.committed("TARGET") == delivered
                             and st1.last_seqno == (sent or delivered) and not st1.indoubt)
        if ended is not None:
            await wait_until(lambda: st1.state in ended)
        finish(nursery)
    return st1


async def test_message_exit_at_the_sender_changes_the_message_sent(qm1, qm2, exits):
    """Given SDR QM1.TO.QM2 with MSGEXIT('channel_exits_under_test(upper)') MSGDATA('UP'),
    when 'hello' and 'world' are sent, then TARGET at QM2 holds 'HELLO' and 'WORLD': the
    exit was called at MQXR_INIT with ExitData 'UP', at MQXR_MSG for each message, and at
    MQXR_TERM when the channel ended.  spec: dqm-intercommunication 2 item 2"""
    await _send(qm1, qm2, [b"hello", b"world"],
                sdr={"MSGEXIT": _ex("upper"), "MSGDATA": "UP"}, delivered=2)
    assert qm2.drain("TARGET") == [b"HELLO", b"WORLD"]
    reasons = [r for n, i, r, d in exits.CALLS if n == "upper"]
    assert all(i == CMQXC.MQXT_CHANNEL_MSG_EXIT and d == "UP"
               for n, i, r, d in exits.CALLS if n == "upper")
    assert reasons[0] == CMQXC.MQXR_INIT and reasons.count(CMQXC.MQXR_MSG) == 2
    await wait_until(lambda: CMQXC.MQXR_TERM in [r for n, _, r, _ in exits.CALLS])


async def test_send_receive_and_receiver_message_exits_see_every_transmission(qm1, qm2,
                                                                               exits):
    """Given SENDEXIT(scramble) on QM1's sender, RCVEXIT(scramble) and MSGEXIT(reverse) on
    QM2's receiver, when 'abc' and 'hello' are sent, then every transmission after the
    initial data went through the send exit and came back whole through the receive exit
    (each XORs it), and the receiver's message exit saw each whole message: TARGET holds
    'cba' and 'olleh'.  spec: dqm-intercommunication 2 items 2 and 3"""
    await _send(qm1, qm2, [b"abc", b"hello"], sdr={"SENDEXIT": _ex("scramble")},
                rcvr={"RCVEXIT": _ex("scramble"), "MSGEXIT": _ex("reverse")}, delivered=2)
    assert qm2.drain("TARGET") == [b"cba", b"olleh"]
    kinds = {i for n, i, r, d in exits.CALLS if n == "scramble" and r == CMQXC.MQXR_XMIT}
    assert kinds == {CMQXC.MQXT_CHANNEL_SEND_EXIT, CMQXC.MQXT_CHANNEL_RCV_EXIT}
    assert [r for n, i, r, d in exits.CALLS if n == "reverse"].count(CMQXC.MQXR_MSG) == 2


async def test_security_exit_refusal_stops_the_channel_before_any_message(qm1, qm2, exits):
    """Given SCYEXIT('channel_exits_under_test(refuse)') on QM2's receiver, when QM1 starts
    the channel with a message for TARGET, then the exit is called with MQXR_INIT_SEC after
    the initial data, QM2 logs AMQ9536E (channel ended by an exit), no message reaches
    TARGET and it stays on QM1's transmission queue; with SCYEXIT(agree) it is delivered.
    spec: dqm-intercommunication 2 item 1"""
    st1 = await _send(qm1, qm2, [b"secret"], rcvr={"SCYEXIT": _ex("refuse")},
                      ended={ChannelState.RETRYING, ChannelState.STOPPED})
    assert any(m == "AMQ9536E" for m, _ in qm2.log), qm2.log
    assert (CMQXC.MQXT_CHANNEL_SEC_EXIT, CMQXC.MQXR_INIT_SEC) in \
        [(i, r) for n, i, r, d in exits.CALLS if n == "refuse"]
    assert qm2.committed("TARGET") == 0 and qm1.depth("QM2") == 1
    assert ChannelState.RUNNING not in st1.history
    qm2.engine.alter("CHANNEL", CHANNEL, {"CHLTYPE": "RCVR", "SCYEXIT": _ex("agree")})
    await _send(qm1, qm2, [], delivered=1, define=False)
    assert qm2.drain("TARGET") == [b"secret"]


@pytest.mark.parametrize("exit_name, says", [
    ("no_such_exit_module(start)", "could not be loaded"),
    ("channel_exits_under_test(no_such_function)", "could not be loaded"),
    ("just a name", "is not module(function)"),
    ("channel_exits_under_test(broken)", "ZeroDivisionError"),
])
async def test_an_exit_that_cannot_be_loaded_or_fails_stops_the_channel(qm1, qm2, exits,
                                                                          exit_name, says):
    """Given SDR QM1.TO.QM2 whose MSGEXIT names an exit that cannot be loaded (an unknown
    module, an unknown function, no function named) or raises, when the channel starts with
    a message, then QM1 logs AMQ9535E (user exit not valid) saying why, with no Python
    traceback, the channel is STOPPED and the message stays on the transmission queue."""
    st1 = await _send(qm1, qm2, [b"kept"], sdr={"MSGEXIT": exit_name},
                      ended={ChannelState.STOPPED})
    [text] = [t for m, t in qm1.log if m == "AMQ9535E"]
    assert says in text and "Traceback" not in text, text
    assert qm1.depth("QM2") == 1 and qm2.committed("TARGET") == 0
    assert st1.state is ChannelState.STOPPED


async def test_an_exit_named_by_its_source_file(qm1, qm2, exits, tmp_path):
    """Given MSGEXIT('<folder>/channel_exits_under_test.py(upper)'), a source file's path,
    when 'file' is sent, then it arrives as 'FILE'."""
    path = tmp_path / "channel_exits_under_test.py"
    await _send(qm1, qm2, [b"file"], sdr={"MSGEXIT": f"{path}(upper)"}, delivered=1)
    assert qm2.drain("TARGET") == [b"FILE"]


async def test_message_retry_exit_redirects_a_message_the_target_refuses(qm1, qm2, exits):
    """Given QM2's receiver with MREXIT('channel_exits_under_test(redirect)') MRDATA(OTHER)
    MONCHL(HIGH) and TARGET put-inhibited, when a message for TARGET arrives, then the exit
    is called with MQXR_RETRY, MsgRetryCount 1, MsgRetryReason 2051 and the channel's
    MRTMR as MsgRetryInterval; while the retry it asked for waits, DISPLAY CHSTATUS shows the
    receiver PAUSED with SUBSTATE(MREXIT); the message then lands on OTHER, the queue the
    exit named, nothing on the DLQ, and EXITTIME is more than 0.
    spec: aliases-channels-storage 4.26"""
    qm2.define("QLOCAL", "OTHER")
    seen: list[tuple[str, str, str]] = []
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0,
                    rcvr={"MREXIT": _ex("redirect"), "MRDATA": "OTHER", "MRTMR": 1000,
                          "MONCHL": "HIGH"})
        qm2.engine.alter("QLOCAL", "TARGET", {"PUT": "DISABLED"})
        qm1.put("TARGET", b"redirected", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)

        def look() -> bool:
            st2 = r2.chinit.status_of(CHANNEL)
            if st2 is not None:
                shown = st2.as_mqsc()
                seen.append((shown["STATUS"], shown["SUBSTATE"], shown["EXITTIME"]))
            return qm2.committed("OTHER") == 1
        await wait_until(look)
        st2 = r2.chinit.status_of(CHANNEL)
        await wait_until(lambda: st2.as_mqsc()["EXITTIME"] not in ("", "0,0"))
        finish(nursery)
    assert ("PAUSED", "MREXIT") in [(st, sub) for st, sub, _ in seen], seen
    assert ("retry", 1, 2051, 1000) in exits.CALLS, exits.CALLS
    assert qm2.drain("OTHER") == [b"redirected"]
    assert qm2.committed("SYSTEM.DEAD.LETTER.QUEUE") == 0


async def test_receiver_message_exit_suppressing_a_message_dead_letters_it(qm1, qm2, exits):
    """Given QM2's receiver with MSGEXIT('channel_exits_under_test(sieve)'), when 'keep 1',
    'drop me' and 'keep 2' are sent, then the exit suppresses 'drop me' (SUPPRESS_FUNCTION,
    Feedback 65600): it is on QM2's dead-letter queue with reason 65600 naming TARGET, the
    others are on TARGET in order, and the channel keeps running."""
    st1 = await _send(qm1, qm2, [b"keep 1", b"drop me", b"keep 2"],
                      rcvr={"MSGEXIT": _ex("sieve")}, delivered=2, sent=3)
    assert qm2.drain("TARGET") == [b"keep 1", b"keep 2"]
    ((dlh, body),) = dead_letters(qm2)
    assert (dlh.Reason, body) == (65600, b"drop me")
    assert dlh.DestQName.rstrip(b" \x00") == b"TARGET"
    assert st1.state is ChannelState.RUNNING
