"""DEFINE SUB LIKE(name): the attributes not given are taken from that subscription, and
without LIKE from IBM's SYSTEM.DEFAULT.SUB values (LIKE(SYSTEM.DEFAULT.SUB) names them)."""

from __future__ import annotations


def _shown(qmgr, name: str) -> str:
    return "\n".join(qmgr.mqsc(f"DISPLAY SUB({name}) ALL\n"))


def test_given_like_then_the_other_subscription_s_attributes_are_copied(qmgr):
    qmgr.mqsc("DEFINE QLOCAL(LIKE.Q)\n"
              "DEFINE SUB(MODEL.SUB) TOPICSTR('like/this') DEST(LIKE.Q) USERDATA('mine') "
              "EXPIRY(500) SELECTOR('colour = ''blue''')\n")
    lines = qmgr.mqsc("DEFINE SUB(COPY.SUB) LIKE(MODEL.SUB) USERDATA('theirs')\n")
    assert any("AMQ8094I" in line for line in lines), lines
    shown = _shown(qmgr, "COPY.SUB")
    for item in ("TOPICSTR(like/this)", "DEST(LIKE.Q)", "EXPIRY(500)", "USERDATA(theirs)",
                 "SUBTYPE(ADMIN)"):
        assert item in shown, (item, shown)
    assert "colour" in shown


def test_given_like_an_unknown_subscription_then_it_is_refused(qmgr):
    qmgr.mqsc("DEFINE QLOCAL(LIKE.Q)\n")
    lines = qmgr.mqsc("DEFINE SUB(NO.COPY) LIKE(NOT.THERE) TOPICSTR('x') DEST(LIKE.Q)\n")
    assert any("AMQ8147E" in line for line in lines), lines


def test_given_like_system_default_sub_then_ibm_defaults_apply(qmgr):
    qmgr.mqsc("DEFINE QLOCAL(LIKE.Q)\n")
    lines = qmgr.mqsc("DEFINE SUB(DEF.COPY) LIKE(SYSTEM.DEFAULT.SUB) TOPICSTR('d') "
                      "DEST(LIKE.Q)\n")
    assert any("AMQ8094I" in line for line in lines), lines
    shown = _shown(qmgr, "DEF.COPY")
    for item in ("PUBPRTY(ASPUB)", "EXPIRY(UNLIMITED)", "REQONLY(NO)", "WSCHEMA(TOPIC)",
                 "DESTCLAS(PROVIDED)"):
        assert item in shown, (item, shown)
