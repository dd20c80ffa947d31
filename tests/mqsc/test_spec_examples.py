"""Every MQSC command quoted in the spec files parses (fragments made complete).

Sources: spec/dqm-intercommunication.md §1, §6; spec/aliases-channels-storage.md §1, §2;
spec/operations-dlq-clusters.md §4, §5. Where the spec elides a name or CHLTYPE
(``DEFINE CHANNEL...``) the example is completed with one; nothing else is changed.
"""

import pytest

from mqpy.mqsc import MQSCCommand, parse_command

SPEC_EXAMPLES = [
    # dqm-intercommunication §1 (aliases) and §6
    "DEFINE QREMOTE(YOURQM) RQMNAME(REALQM)",
    "DEFINE QREMOTE(QM3) RNAME() RQMNAME(QM3) XMITQ(QM2)",
    "DEFINE QREMOTE('Reply_to') RNAME('Answer') RQMNAME('QM1_relief')",
    "DEFINE QLOCAL('QM1_relief') USAGE(XMITQ)",
    "DEFINE QREMOTE('QM1_relief') RNAME() RQMNAME(QM1)",
    "DEFINE QREMOTE(name) RNAME(q) RQMNAME(qm) XMITQ(xq)",
    "DEFINE QLOCAL(name) USAGE(XMITQ)",
    "START CHANNEL(name)",
    "STOP CHANNEL(name) MODE(FORCE)",
    "STOP CHANNEL(name) MODE(QUIESCE)",
    "DISPLAY CHSTATUS(name) SAVED CURLUWID CONNAME XMITQ",
    "DISPLAY CHSTATUS(name) SAVED LSTLUWID CONNAME",
    "RESOLVE CHANNEL(name) ACTION(COMMIT)",
    "RESOLVE CHANNEL(name) ACTION(BACKOUT)",
    "PING CHANNEL(name)",
    "RESET CHANNEL(name) SEQNUM(1)",
    "DEFINE QALIAS(A) TARGQ(B)",
    "DEFINE PROCESS(P1) USERDATA(TO.QM2)",
    "DEFINE QLOCAL(QM2) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) TRIGDPTH(1) "
    "INITQ(SYSTEM.CHANNEL.INITQ) PROCESS(P1) TRIGDATA(TO.QM2)",
    "DISPLAY CHANNEL(*)",
    "DISPLAY CHSTATUS(*) ALL",
    "DISPLAY CHSTATUS(*) CURRENT",
    "START LISTENER",
    # aliases-channels-storage §1, §2
    "DEFINE QREMOTE(YORK) RNAME(' ') RQMNAME(CLUSQM)",
    "DEFINE QREMOTE(ROME) RNAME(' ') RQMNAME(PALERMO) XMITQ(X) CLUSTER(ITALY)",
    "ALTER QMGR CLWLUSEQ(ANY)",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(RCVR) MRRTY(10) MRTMR(1000) "
    "MREXIT(msg-retry-exit-name) MRDATA()",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) DISCINT(6000)",
    "ALTER CHL(APP.SVRCONN) CHLTYPE(SVRCONN) DISCINT(500)",
    "DEFINE CHANNEL(APP.CLNT) CHLTYPE(CLNTCONN) CONNAME('host(1414)') HBINT(300)",
    "ALTER QMGR TCPKEEP(YES)",
    "DEF CHL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) KAINT(360)",
    "DEF CHL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) KAINT(AUTO)",
    "DIS CHSTATUS(*) SAVED",
    "DIS CHS(*) SAVED",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) BATCHHB(500)",
    "ALTER QMGR ADOPTMCA(ALL) ADOPTCHK(ALL)",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) BATCHINT(100)",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) NPMSPEED(FAST) "
    "BATCHINT(2000) BATCHSZ(50)",
    "DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) MAXINST(2) MAXINSTC(1)",
    "ALTER QMGR MONCHL(MEDIUM)",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) MONCHL(HIGH)",
    "DISPLAY CHSTATUS(TO.QMB) MONITOR",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) "
    "SHORTRTY(2) SHORTTMR(1) LONGRTY(2) LONGTMR(2)",
    "DEFINE CHANNEL(TO.QMB) CHLTYPE(SDR) CONNAME(QMB.HOST) XMITQ(QMB) SEQWRAP(999999999)",
    "DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) SHARECNV(10)",
    "DEFINE CHANNEL(APP.CLNT) CHLTYPE(CLNTCONN) CONNAME(H) DEFRECON(YES)",
    # operations-dlq-clusters §4, §5
    "DISPLAY CLUSQMGR(*)",
    "DISPLAY CLUSQMGR(QM1) QMTYPE STATUS CLUSTER CHANNEL QMID",
    "SUSPEND QMGR CLUSTER(INVENTORY) MODE(FORCE)",
    "RESUME QMGR CLUSTER(INVENTORY)",
    "REFRESH CLUSTER(INVENTORY)",
    "RESET CLUSTER(INVENTORY) QMNAME(QM9) ACTION(FORCEREMOVE)",
    "DIS CHS(TO.QM1)",
    "DIS QCLUSTER(*) CLUSTER CLUSNL CLUSQMGR",
    "ALTER QMGR REPOS(INVENTORY)",
    "ALTER QMGR REPOS(' ')",
    "ALTER QA(CLUSTERED.ALIAS) DEFBIND(NOTFIXED)",
    "ALTER CHL (TO.QM1) CHLTYPE (CLUSRCVR) CLUSTER(' ')",
    "STOP CHL(TO.QM1)",
    "ALTER QL(Q1) PUT(DISABLED)",
    "DIS QL (Q1) IPPROCS OPPROCS CURDEPTH",
    "DIS CHS (*) INDOUBT",
    "DELETE QL(Q1)",
    "ALTER QL(Q1) CLUSTER(' ')",
    "DEF CHL (TO.QM3) CHLTYPE (CLUSRCVR) CONNAME(QM3.HOST) CLUSTER(INVENTORY)",
    "DEF CHL (TO.QM1) CHLTYPE (CLUSSDR) CONNAME(QM1.HOST) CLUSTER(INVENTORY)",
    "START CHL(TO.QM1)",
    "ALTER QL(QM2) NOTRIGGER",
    "ALTER QL(QM2) TRIGGER",
    "ALTER QL(QM2) GET(ENABLED)",
    "PING QMGR",
    "DISPLAY QUEUE(*)",
]


@pytest.mark.parametrize("text", SPEC_EXAMPLES)
def test_spec_example_parses(text):
    """spec: the MQSC quoted in the three spec digests is accepted by the parser."""
    result = parse_command(text)
    assert isinstance(result, MQSCCommand), result.lines() + [result.reason]


def test_queue_manager_alias_definition():
    """spec: aliases-channels-storage 1 - a QM alias is a QREMOTE with blank RNAME."""
    cmd = parse_command("DEFINE QREMOTE(YORK) RNAME(' ') RQMNAME(CLUSQM)")
    assert (cmd.objtype, cmd.name, cmd.params) == (
        "QREMOTE", "YORK", {"RNAME": "", "RQMNAME": "CLUSQM"},
    )  # fmt: skip


def test_reply_to_alias_keeps_quoted_case():
    """spec: dqm-intercommunication §1 reply-to alias: quoted names keep their case."""
    cmd = parse_command("DEFINE QREMOTE('Reply_to') RNAME('Answer') RQMNAME('QM1_relief')")
    assert cmd.name == "Reply_to" and cmd.params == {"RNAME": "Answer", "RQMNAME": "QM1_relief"}
