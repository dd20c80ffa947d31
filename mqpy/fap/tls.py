"""TLS on channels: IBM CipherSpecs, key repositories, SSLCAUTH and SSLPEER. Rules, no I/O.

Owns the CipherSpec table (:data:`CIPHER_SPECS`), the key repository (a directory of PEM
files: ``cert.pem``, ``key.pem``, ``ca.pem``), the contexts built from them, the responder's
checks once a channel is named (:func:`check_inbound`: AMQ9639E, AMQ9641E, AMQ9631E,
AMQ9637E, AMQ9636E with their STATUS codes), SSLPEER matching and the secret key reset count
(:func:`key_reset_count`). trio's ``SSLStream`` or the client's ``ssl.SSLSocket`` carry the
bytes. docs/wire.md says how each rule follows IBM's, and what Python's ``ssl`` cannot do.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from typing import Any

import attrs

from mqpy.fap.statuscodes import StatusCode
from mqpy.security.chlauth import dn_matches, escape_dn_value

__all__ = ["CIPHER_SPECS", "CipherSpec", "InboundRefusal", "KeyRepositoryError",
           "check_inbound", "cipher_matches", "client_context", "client_key_reset_count",
           "ibm_name", "key_reset_count", "peer_dn", "server_context"]

CERT_FILE, KEY_FILE, CA_FILE = "cert.pem", "key.pem", "ca.pem"
TLS12, TLS13 = "TLSv1.2", "TLSv1.3"


@attrs.frozen
class CipherSpec:
    name: str
    versions: tuple[str, ...]  #: protocol versions allowed
    openssl: str = ""  #: the OpenSSL cipher (TLS 1.2); "" for any cipher of the versions


def _t12(name: str, openssl: str) -> CipherSpec:
    return CipherSpec(name, (TLS12,), openssl)


CIPHER_SPECS: dict[str, CipherSpec] = {c.name: c for c in (
    CipherSpec("TLS_AES_128_GCM_SHA256", (TLS13,)),
    CipherSpec("TLS_AES_256_GCM_SHA384", (TLS13,)),
    CipherSpec("TLS_CHACHA20_POLY1305_SHA256", (TLS13,)),
    CipherSpec("ANY_TLS13", (TLS13,)),
    CipherSpec("ANY_TLS13_OR_HIGHER", (TLS13,)),
    CipherSpec("ANY_TLS12", (TLS12,)),
    CipherSpec("ANY_TLS12_OR_HIGHER", (TLS12, TLS13)),
    _t12("TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"),
    _t12("TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"),
    _t12("TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256"),
    _t12("TLS_RSA_WITH_AES_256_CBC_SHA256", "AES256-SHA256"),
    _t12("ECDHE_RSA_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"),
    _t12("ECDHE_RSA_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"),
    _t12("ECDHE_RSA_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256"),
    _t12("ECDHE_RSA_AES_256_CBC_SHA384", "ECDHE-RSA-AES256-SHA384"),
    _t12("ECDHE_ECDSA_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"),
    _t12("ECDHE_ECDSA_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"),
    _t12("ECDHE_ECDSA_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256"),
    _t12("ECDHE_ECDSA_AES_256_CBC_SHA384", "ECDHE-ECDSA-AES256-SHA384"),
    _t12("ECDHE_RSA_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"),
    _t12("ECDHE_ECDSA_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"),
)}
_TLS12_CIPHERS = ":".join(c.openssl for c in CIPHER_SPECS.values() if c.openssl)


class KeyRepositoryError(ValueError):
    """The key repository is missing or unusable (IBM: AMQ9657E; [C] the id, which public MQ
    notes name for key repository errors, [M] its line)."""


def cipher_spec(name: str) -> CipherSpec:
    spec = CIPHER_SPECS.get(name.strip().upper())
    if spec is None:
        raise KeyError(name)
    return spec


def cipher_matches(name: str, negotiated: tuple[str, str, int] | None) -> bool:
    """Does the session's ``(cipher, protocol, bits)`` satisfy CipherSpec ``name``?"""
    if negotiated is None:
        return False
    try:
        spec = cipher_spec(name)
    except KeyError:
        return False
    cipher, protocol, _bits = negotiated
    if protocol not in spec.versions:
        return False
    return not spec.openssl or spec.openssl == cipher


def ibm_name(negotiated: tuple[str, str, int] | None) -> str:
    """The CipherSpec name IBM shows (DISPLAY CHSTATUS SSLCIPH) for a session's cipher."""
    if negotiated is None:
        return ""
    cipher = negotiated[0]
    for spec in CIPHER_SPECS.values():
        if spec.openssl == cipher:
            return spec.name
    return cipher  # TLS 1.3: OpenSSL's names are IBM's


def _files(repository: str) -> tuple[str, str, str]:
    if not repository or not os.path.isdir(repository):
        raise KeyRepositoryError(f"key repository '{repository}' is not a directory")
    return tuple(os.path.join(repository, f) for f in (CERT_FILE, KEY_FILE, CA_FILE))  # type: ignore[return-value]


def _load(ctx: ssl.SSLContext, repository: str, *, need_cert: bool) -> None:
    cert, key, ca = _files(repository)
    try:
        if os.path.exists(cert) and os.path.exists(key):
            ctx.load_cert_chain(cert, key)
        elif need_cert:
            raise KeyRepositoryError(f"key repository '{repository}' has no {CERT_FILE} and "
                                     f"{KEY_FILE}")
        if os.path.exists(ca):
            ctx.load_verify_locations(ca)
    except (ssl.SSLError, OSError) as exc:
        raise KeyRepositoryError(f"key repository '{repository}': {exc}") from None


def server_context(repository: str) -> ssl.SSLContext:
    """The responder's context: every CipherSpec's cipher offered, the channel chosen later."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_ciphers(_TLS12_CIPHERS)
    ctx.verify_mode = ssl.CERT_OPTIONAL
    _load(ctx, repository, need_cert=True)
    return ctx


def client_context(repository: str, cipher: str) -> ssl.SSLContext:
    """The initiator's context: exactly the CipherSpec ``cipher`` (KeyError if unknown)."""
    spec = cipher_spec(cipher)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False  # MQ checks SSLPEER, not host names
    ctx.verify_mode = ssl.CERT_REQUIRED
    versions = [ssl.TLSVersion.TLSv1_2 if v == TLS12 else ssl.TLSVersion.TLSv1_3
                for v in spec.versions]
    ctx.minimum_version, ctx.maximum_version = min(versions), max(versions)
    if spec.openssl:
        ctx.set_ciphers(spec.openssl)
    elif TLS12 in spec.versions:
        ctx.set_ciphers(_TLS12_CIPHERS)
    _load(ctx, repository, need_cert=False)
    return ctx


#: IBM's secret key reset counts: 0 (never), up to 999 999 999 bytes, at least 32 KB.
MAX_KEY_RESET_COUNT = 999_999_999
MIN_KEY_RESET_COUNT = 32 * 1024


def key_reset_count(value: object) -> int | None:
    """The secret key reset count IBM would use for ``value`` (bytes; 0 = never): 1 to
    32 KB is raised to 32 KB; None when ``value`` is no count in 0 through 999 999 999.
    mqpy accepts the count and never acts on it (module docstring)."""
    try:
        count = int(str(value).strip())
    except ValueError:
        return None
    if not 0 <= count <= MAX_KEY_RESET_COUNT:
        return None
    return count if count == 0 else max(count, MIN_KEY_RESET_COUNT)


def client_key_reset_count(sco: Any, environ: Mapping[str, str]) -> int | None:
    """A client's count: MQSCO.KeyResetCount (an MQSCO of version 2 or later), else the
    MQSSLRESET environment variable, else 0; None when the one that applies is out of
    range (MQCONN then fails with MQRC_SSL_KEY_RESET_ERROR, 2409)."""
    if sco is not None and int(getattr(sco, "Version", 1)) >= 2:
        return key_reset_count(getattr(sco, "KeyResetCount", 0))
    raw = environ.get("MQSSLRESET")
    return 0 if raw is None or not raw.strip() else key_reset_count(raw)


_SHORT = {"commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU",
          "countryName": "C", "localityName": "L", "stateOrProvinceName": "ST",
          "serialNumber": "SERIALNUMBER", "emailAddress": "E", "domainComponent": "DC",
          "postalCode": "PC", "streetAddress": "STREET", "title": "T"}


def peer_dn(cert: Mapping[str, Any] | None, field: str = "subject") -> str | None:
    """``getpeercert()``'s subject (or ``issuer``) as an IBM DN string: ``CN=x,O=y``, each
    value escaped (RFC 4514) so that a comma inside a CN cannot pose as another attribute
    when the string is matched (``chlauth.parse_dn``)."""
    if not cert or field not in cert:
        return None
    parts = []
    for rdn in cert[field]:
        for key, value in rdn:
            parts.append(f"{_SHORT.get(key, key)}={escape_dn_value(value)}")
    return ",".join(parts)


@attrs.frozen
class InboundRefusal:
    status: StatusCode
    msgid: str
    text: str


def check_inbound(definition: Mapping[str, object], channel: str, peer: str,
                  negotiated: tuple[str, str, int] | None, cert: Mapping[str, Any] | None
                  ) -> InboundRefusal | None:
    """The responder's TLS checks for ``channel`` (module docstring); None if they pass.

    ``negotiated`` is the session's ``cipher()`` (None: no TLS); ``cert`` its verified
    ``getpeercert()`` (None or empty: the partner sent none)."""
    wanted = str(definition.get("SSLCIPH") or "").strip()
    if not wanted and negotiated is None:
        return None
    if wanted and negotiated is None:
        return InboundRefusal(StatusCode.CIPHER_SPEC, "AMQ9639E",
                              f"Remote channel '{channel}' ({peer}) did not specify a "
                              f"CipherSpec when the local channel expected one to be "
                              f"specified. The local CipherSpec is '{wanted}'.")
    if not wanted:
        return InboundRefusal(StatusCode.CIPHER_SPEC, "AMQ9641E",
                              f"Remote channel '{channel}' ({peer}) specified a CipherSpec "
                              f"when the local channel expected a blank CipherSpec.")
    if not cipher_matches(wanted, negotiated):
        got = f"{negotiated[0]} ({negotiated[1]})" if negotiated else "none"
        return InboundRefusal(StatusCode.CIPHER_SPEC, "AMQ9631E",
                              f"The CipherSpec negotiated during the SSL handshake does not "
                              f"match the required CipherSpec for channel '{channel}'. The "
                              f"required CipherSpec is '{wanted}'; the negotiated cipher is "
                              f"{got}. The remote partner is {peer}.")
    dn = peer_dn(cert)
    sslcauth = str(definition.get("SSLCAUTH") or "REQUIRED").strip().upper()
    if dn is None and sslcauth == "REQUIRED":
        return InboundRefusal(StatusCode.SSL_CLIENT_CERTIFICATE, "AMQ9637E",
                              f"Channel '{channel}' is lacking a certificate: the remote "
                              f"partner {peer} sent none and SSLCAUTH is REQUIRED.")
    sslpeer = str(definition.get("SSLPEER") or "").strip()
    if sslpeer and (dn is None or not dn_matches(sslpeer, dn)):
        return InboundRefusal(StatusCode.PEER_NAME, "AMQ9636E",
                              f"SSL distinguished name '{dn or ''}' of the remote partner "
                              f"{peer} does not match the peer name '{sslpeer}' of channel "
                              f"'{channel}'.")
    return None
