"""The PCF administration commands check the requester's authorities as the others do: a
user outside mqm (carol) needs dsp to inquire namelists, processes, connections and records,
crt to create a namelist, chg on the queue manager to set authority and CHLAUTH records."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, CMQZC, pcf
from mqpy.security.policy import set_authority
from tests.security.conftest import carol, secured  # noqa: F401 - fixtures
from tests.security.requester import reason

pytestmark = pytest.mark.timeout(60)


def _nl(name: str) -> pcf.Parameter:
    return pcf.CFST(CMQC.MQCA_NAMELIST_NAME, name.encode())


def test_namelist_commands_need_crt_and_dsp(carol):  # noqa: F811
    """Given carol without crt or dsp on namelists, when she creates and inquires NL.A,
    then both are refused with 2035 and nothing is made; with +crt +dsp on NL.* both work."""
    create = [_nl("NL.A"), pcf.CFSL(CMQC.MQCA_NAMES, [b"Q1"])]
    assert reason(carol.requester.command(CMQCFC.MQCMD_CREATE_NAMELIST, create)) == \
        CMQC.MQRC_NOT_AUTHORIZED
    assert carol.eng.lookup("NAMELIST", "NL.A") is None
    set_authority(carol.eng, "namelist", "NL.*", ["+crt", "+dsp"], principal="carol")
    set_authority(carol.eng, "namelist", "SYSTEM.DEFAULT.NAMELIST", ["+dsp"],
                  principal="carol")
    assert carol.requester.command(CMQCFC.MQCMD_CREATE_NAMELIST, create)[-1] \
        .header.CompCode == CMQC.MQCC_OK
    (found,) = carol.requester.command(CMQCFC.MQCMD_INQUIRE_NAMELIST, [_nl("NL.A")])
    assert [n.strip() for n in found.get(CMQC.MQCA_NAMES)] == [b"Q1"]
    set_authority(carol.eng, "namelist", "NL.*", ["-dsp"], principal="carol")
    assert reason(carol.requester.command(CMQCFC.MQCMD_INQUIRE_NAMELIST, [_nl("NL.A")])) \
        == CMQC.MQRC_NOT_AUTHORIZED


def test_security_records_need_chg_on_the_queue_manager(carol):  # noqa: F811
    """Given carol with dsp but not chg on the queue manager, when she sets an authority
    record and a CHLAUTH record, then both are refused with 2035 and nothing is stored."""
    authrec = [pcf.CFST(CMQCFC.MQCACF_AUTH_PROFILE_NAME, b"Q1"),
               pcf.CFIN(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_Q),
               pcf.CFIL(CMQCFC.MQIACF_AUTH_ADD_AUTHS, [CMQCFC.MQAUTH_OUTPUT]),
               pcf.CFSL(CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES, [b"carol"])]
    assert reason(carol.requester.command(CMQCFC.MQCMD_SET_AUTH_REC, authrec)) == \
        CMQC.MQRC_NOT_AUTHORIZED
    chlauth = [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"APP.*"),
               pcf.CFIN(CMQCFC.MQIACF_CHLAUTH_TYPE, CMQCFC.MQCAUT_BLOCKUSER),
               pcf.CFSL(CMQCFC.MQCACH_MCA_USER_ID_LIST, [b"nobody"])]
    assert reason(carol.requester.command(CMQCFC.MQCMD_SET_CHLAUTH_REC, chlauth)) == \
        CMQC.MQRC_NOT_AUTHORIZED
    assert carol.eng.catalog.by_type("CHLAUTH") == [] or all(
        "APP.*" != o.attributes.get("CHLAUTH") for o in carol.eng.catalog.by_type("CHLAUTH"))


def test_inquire_authority_records_of_an_entity_set(carol):  # noqa: F811
    """Given carol (group apps) with +dsp on the queue manager and records for herself and
    for apps on Q1, when she inquires Q1's records with MQAUTHOPT_ENTITY_EXPLICIT, then only
    her own is answered; with MQAUTHOPT_ENTITY_SET her group's too; NAME_EXPLICIT with
    ENTITY_SET is MQRCCF_PARM_CONFLICT."""
    set_authority(carol.eng, "queue", "Q1", ["+inq"], principal="carol")
    set_authority(carol.eng, "queue", "Q1", ["+browse"], group="apps")

    def inquire(options: int) -> list[tuple[bytes, int]]:
        found = carol.requester.command(CMQCFC.MQCMD_INQUIRE_AUTH_RECS, [
            pcf.CFIN(CMQCFC.MQIACF_AUTH_OPTIONS, options),
            pcf.CFST(CMQCFC.MQCACF_AUTH_PROFILE_NAME, b"Q1"),
            pcf.CFIN(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_Q),
            pcf.CFST(CMQCFC.MQCACF_ENTITY_NAME, b"carol")])
        assert found[-1].header.CompCode == CMQC.MQCC_OK, reason(found)
        return sorted((m.get(CMQCFC.MQCACF_ENTITY_NAME).strip(),
                       m.get(CMQCFC.MQIACF_ENTITY_TYPE)) for m in found)

    assert inquire(CMQCFC.MQAUTHOPT_NAME_ALL_MATCHING | CMQCFC.MQAUTHOPT_ENTITY_EXPLICIT) == [
        (b"carol", CMQZC.MQZAET_PRINCIPAL)]
    assert inquire(CMQCFC.MQAUTHOPT_NAME_ALL_MATCHING | CMQCFC.MQAUTHOPT_ENTITY_SET) == [
        (b"apps", CMQZC.MQZAET_GROUP), (b"carol", CMQZC.MQZAET_PRINCIPAL)]
    assert reason(carol.requester.command(CMQCFC.MQCMD_INQUIRE_AUTH_RECS, [
        pcf.CFIN(CMQCFC.MQIACF_AUTH_OPTIONS,
                 CMQCFC.MQAUTHOPT_NAME_EXPLICIT | CMQCFC.MQAUTHOPT_ENTITY_SET),
        pcf.CFST(CMQCFC.MQCACF_AUTH_PROFILE_NAME, b"Q1"),
        pcf.CFIN(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_Q)])) == CMQCFC.MQRCCF_PARM_CONFLICT
