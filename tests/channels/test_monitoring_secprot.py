"""DISPLAY CHSTATUS SECPROT (Inquire Channel Status SecurityProtocol) of a channel's
connection: NONE when plain, else the TLS version its session negotiated, whichever end of
the handshake the channel is (mqpy_chinit.mca.security_protocol)."""

from __future__ import annotations

import ssl

import trio
import trio.testing
import trustme

from mqpy_chinit.mca import security_protocol


async def _session(version: ssl.TLSVersion) -> tuple[trio.SSLStream, trio.SSLStream]:
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("qm.example").configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    for ctx in (server_ctx, client_ctx):
        ctx.minimum_version = ctx.maximum_version = version
    left, right = trio.testing.memory_stream_pair()
    client = trio.SSLStream(left, client_ctx, server_hostname="qm.example")
    server = trio.SSLStream(right, server_ctx, server_side=True)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.do_handshake)
        nursery.start_soon(server.do_handshake)
    return client, server


async def test_a_tls_session_shows_its_version_at_both_ends():
    """Given TLS 1.3 and TLS 1.2 sessions, when SECPROT is read of either end, then it is
    TLSV13 and TLSV12, as IBM words them."""
    for version, word in ((ssl.TLSVersion.TLSv1_3, "TLSV13"),
                          (ssl.TLSVersion.TLSv1_2, "TLSV12")):
        client, server = await _session(version)
        assert (security_protocol(client), security_protocol(server)) == (word, word)


async def test_a_plain_connection_or_one_before_its_handshake_is_none():
    """Given a plain stream and a TLS stream whose handshake has not run, SECPROT is NONE."""
    left, _right = trio.testing.memory_stream_pair()
    assert security_protocol(left) == "NONE"
    assert security_protocol(trio.SSLStream(left, ssl.create_default_context(),
                                            server_hostname="x")) == "NONE"
