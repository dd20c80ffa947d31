"""Channel definitions as runmqsc accepts or refuses them (no channel initiator needed)."""

from __future__ import annotations

import pytest

from tests.support.channel_pair import mqsc


@pytest.mark.parametrize("name", ["ABCDEFGHIJKLMNOPQRSTU", "'A B'", "A#B"])
async def test_bad_channel_names_are_refused(qm1, name):
    """Given a name of 21 characters, one with an embedded blank, or one with '#', when DEFINE
    CHANNEL is issued with it, then the definition is refused.
    spec: dqm-intercommunication 9.17"""
    result = await mqsc(qm1, f"DEFINE CHANNEL({name}) CHLTYPE(RCVR)")
    assert not result.ok, result.lines


async def test_channel_names_are_case_sensitive(qm1):
    """Given RCVR CH1, when RCVR 'ch1' and 'a.B/c_%9' are defined (quoted, so not folded to
    upper case), then both are accepted and 'ch1' is a channel apart from CH1.
    spec: dqm-intercommunication 9.17"""
    for text in ("DEFINE CHANNEL(CH1) CHLTYPE(RCVR) DESCR('upper')",
                 "DEFINE CHANNEL('ch1') CHLTYPE(RCVR) DESCR('lower')",
                 "DEFINE CHANNEL('a.B/c_%9') CHLTYPE(RCVR)"):
        result = await mqsc(qm1, text)
        assert result.ok, (text, result.lines)
    assert qm1.engine.lookup("CHANNEL", "CH1").attributes["DESCR"] == "upper"
    assert qm1.engine.lookup("CHANNEL", "ch1").attributes["DESCR"] == "lower"


@pytest.mark.parametrize(("chltype", "extra"), [("SDR", "XMITQ(XQ)"), ("RQSTR", ""),
                                                ("CLUSSDR", "CLUSTER(C1)"),
                                                ("CLUSRCVR", "CLUSTER(C1)"), ("CLNTCONN", "")])
async def test_conname_is_required_for_calling_channel_types(qm1, chltype, extra):
    """Given a SDR, RQSTR, CLUSSDR, CLUSRCVR or CLNTCONN definition without CONNAME, when it is
    defined, then it is refused.  spec: dqm-intercommunication 9.18"""
    result = await mqsc(qm1, f"DEFINE CHANNEL(NO.CONNAME) CHLTYPE({chltype}) {extra}")
    assert not result.ok, result.lines
    assert any("CONNAME" in line for line in result.lines), result.lines


@pytest.mark.parametrize(("chltype", "extra"), [("SVR", "XMITQ(XQ)"), ("RCVR", "")])
async def test_conname_may_be_missing_on_server_and_receiver(qm1, chltype, extra):
    """Given a SVR or RCVR definition without CONNAME, when it is defined, then it is
    accepted.  spec: dqm-intercommunication 9.18"""
    result = await mqsc(qm1, f"DEFINE CHANNEL(NO.CONNAME) CHLTYPE({chltype}) {extra}")
    assert result.ok, result.lines


@pytest.mark.parametrize("attr", ["BATCHSZ(0)", "BATCHSZ(10000)", "BATCHINT(1000000000)",
                                  "DISCINT(1000000)", "HBINT(1000000)"])
async def test_out_of_range_batch_and_interval_values_are_refused(qm1, attr):
    """Given BATCHSZ 0 or 10000, BATCHINT above 999 999 999, DISCINT or HBINT above 999 999,
    when an SDR is defined with it, then the definition is refused.
    spec: dqm-intercommunication 9.19"""
    result = await mqsc(qm1, f"DEFINE CHANNEL(RANGE) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(XQ) "
                             f"{attr}")
    assert not result.ok, result.lines
    assert result.lines[0].startswith("AMQ8425E"), result.lines  # a value error, not syntax


async def test_channel_defaults(qm1):
    """Given an SDR defined with only CHLTYPE, CONNAME and XMITQ, then it has BATCHSZ(50)
    BATCHINT(0) HBINT(300), and the extreme legal values BATCHINT(999999999) DISCINT(999999)
    HBINT(999999) BATCHSZ(9999) are accepted.  spec: dqm-intercommunication 9.19"""
    assert (await mqsc(qm1, "DEFINE CHANNEL(DEF) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(XQ)")).ok
    attrs = qm1.engine.lookup("CHANNEL", "DEF").attributes
    assert (attrs["BATCHSZ"], attrs["BATCHINT"], attrs["HBINT"]) == (50, 0, 300)
    result = await mqsc(qm1, "DEFINE CHANNEL(MAX) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(XQ) "
                             "BATCHINT(999999999) DISCINT(999999) HBINT(999999) BATCHSZ(9999)")
    assert result.ok, result.lines


async def test_cluster_and_clusnl_together_are_refused(qm1):
    """Given a CLUSRCVR definition with both CLUSTER(A) and CLUSNL(N), when it is defined,
    then it is refused.  spec: dqm-intercommunication 9.20, §2 (CLUSTER / CLUSNL)"""
    assert (await mqsc(qm1, "DEFINE NAMELIST(N) NAMES(A)")).ok
    result = await mqsc(qm1, "DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('h(1)') "
                             "CLUSTER(A) CLUSNL(N)")
    assert not result.ok, result.lines


async def test_cluster_on_a_sender_is_refused(qm1):
    """Given an SDR definition with CLUSTER(A), when it is defined, then it is refused.
    spec: dqm-intercommunication 9.20"""
    result = await mqsc(qm1, "DEFINE CHANNEL(S) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(XQ) "
                             "CLUSTER(A)")
    assert not result.ok, result.lines
    assert qm1.engine.lookup("CHANNEL", "S") is None
