"""The limits on unauthenticated peers as qm.ini states them, and the sans-IO pieces that
apply them: the count of unauthenticated connections and the error log's rate limit."""

from __future__ import annotations

import pytest

from mqpy import config
from mqpy.admission import Admission, Admissions, LogLimiter


def test_qm_ini_channels_keys_set_the_limits_whatever_their_case() -> None:
    """Given a Channels stanza with the limits' keys, then ChannelsConfig carries them;
    absent keys keep mqpy's defaults."""
    limits = config.ChannelsConfig.parse({"maxunauthchannels": "7", "UnauthTimeout": "5",
                                          "MaxUnauthBytes": "8192"}).peer
    assert (limits.max_unauth_channels, limits.unauth_timeout, limits.max_unauth_bytes) == \
        (7, 5, 8192)
    assert limits.max_unauth_bindings == config.PeerLimits().max_unauth_bindings


@pytest.mark.parametrize("key, value", [("MaxUnauthBytes", "100"),
                                        ("MaxUnauthChannelsPerAddress", "0"),
                                        ("BindingsConnectTimeout", "soon")])
def test_a_limit_out_of_range_is_a_config_error_naming_it(key, value) -> None:
    """Given a value out of its range or not a number, then qm.ini is refused naming it
    (strmqm and runmqchi say AMQ8940E)."""
    with pytest.raises(config.ConfigError) as err:
        config.ChannelsConfig.parse({key: value})
    assert key in str(err.value.inserts) or key in str(err.value)


def test_admissions_count_per_address_and_in_all_and_release_once() -> None:
    """Given 2 per address and 3 in all, then a third from one address and a fourth in all
    are refused with why; a place released (twice) is free once."""
    adm = Admissions(3, 2)
    a1, a2 = adm.admit("10.0.0.1"), adm.admit("10.0.0.1")
    assert isinstance(a1, Admission) and isinstance(a2, Admission)
    assert "from 10.0.0.1" in adm.admit("10.0.0.1")
    b1 = adm.admit("10.0.0.2")
    assert "in all" in adm.admit("10.0.0.3")
    a1.release()
    a1.release()
    assert adm.count == 2 and adm.by_address == {"10.0.0.1": 1, "10.0.0.2": 1}
    assert isinstance(adm.admit("10.0.0.3"), Admission)
    b1.release()
    assert "10.0.0.2" not in adm.by_address


def test_the_log_limiter_writes_a_few_lines_a_window_then_counts_the_rest() -> None:
    """Given 3 lines a 60-second window, when 10 refusals come at once, then 3 are written;
    the first in the next window says 7 were left out."""
    now = [0.0]
    limiter = LogLimiter(3, 60, clock=lambda: now[0])
    written = [limiter.allow() for _ in range(10)]
    assert written[:3] == ["", "", ""] and written[3:] == [None] * 7
    now[0] = 61
    assert limiter.allow() == " (7 more like it were not logged.)"
    assert limiter.allow() == ""
