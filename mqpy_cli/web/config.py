"""The mqweb server's configuration: ``<data path>/web/mqweb.ini`` (IBM keeps mqwebuser.xml
under its data path's web folder), its pid file and its log.

    [server]
    host = 127.0.0.1          ; the bind address (IBM's httpHost, localhost by default)
    port = 9443               ; IBM's httpsPort default
    keyRepository =           ; a folder of PEM files (cert.pem, key.pem): HTTPS when set
    secureLTPA =              ; true: the login cookie goes over HTTPS only; empty: when TLS is on
    ltpaExpiration = 120      ; minutes a login token is good for (IBM's default)
    readTimeout = 60          ; seconds each read of a request body may take (Liberty's)
    [roles]
    MQWebAdmin = mqadmin      ; users, and groups as group:NAME, comma separated
    MQWebAdminRO = reader
    MQWebUser = alice, group:apps
"""

from __future__ import annotations

import configparser
import os

import attrs

from mqpy import config as mqconfig

ROLES = ("MQWebAdmin", "MQWebAdminRO", "MQWebUser")
#: the server process's module (``python -m``): what strmqweb runs and endmqweb looks for in
#: a pid's command line, named here so that those commands need not import the server
SERVER_MODULE = "mqpy_cli.web.server"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9443


@attrs.frozen
class WebConfig:
    data_path: str
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    key_repository: str = ""
    #: None: the login cookie is Secure when the server serves HTTPS
    secure_ltpa: bool | None = None
    ltpa_expiration: int = 120
    #: seconds each read of a request's body may take, as Liberty's httpOptions readTimeout
    #: (a login's whole body, read before its caller is known)
    read_timeout: float = 60.0
    #: role -> (users, groups)
    roles: dict[str, tuple[frozenset[str], frozenset[str]]] = attrs.Factory(dict)

    @property
    def tls(self) -> bool:
        return bool(self.key_repository)

    @property
    def ltpa_secure(self) -> bool:
        """Whether the login cookie carries Secure (IBM's secureLTPA; by default, HTTPS)."""
        return self.tls if self.secure_ltpa is None else self.secure_ltpa

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    def roles_of(self, user: str, groups: tuple[str, ...]) -> frozenset[str]:
        """The roles ``user`` (member of ``groups``) is given; IBM: user ids of the admin
        roles are not case sensitive, MQWebUser's are."""
        out = set()
        for role, (users, role_groups) in self.roles.items():
            named = user in users if role == "MQWebUser" else \
                user.lower() in {u.lower() for u in users}
            if named or role_groups & set(groups):
                out.add(role)
        return frozenset(out)


def web_dir(data_path: str | None = None) -> str:
    return os.path.join(mqconfig.data_root(data_path), "web")


def config_path(data_path: str | None = None) -> str:
    return os.path.join(web_dir(data_path), "mqweb.ini")


def pid_path(data_path: str | None = None) -> str:
    return os.path.join(web_dir(data_path), "mqweb.pid")


def log_path(data_path: str | None = None) -> str:
    return os.path.join(web_dir(data_path), "mqweb.log")


TEMPLATE = """\
[server]
host = 127.0.0.1
port = 9443
keyRepository =
secureLTPA =
ltpaExpiration = 120
readTimeout = 60

[roles]
MQWebAdmin =
MQWebAdminRO =
MQWebUser =
"""


class ConfigError(ValueError):
    """mqweb.ini cannot be used: the message names the file and what is wrong."""


def _members(text: str) -> tuple[frozenset[str], frozenset[str]]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    return (frozenset(n for n in names if not n.startswith("group:")),
            frozenset(n[6:] for n in names if n.startswith("group:")))


def load(data_path: str | None = None) -> WebConfig:
    """The configuration (written from the template when there is none yet); ConfigError
    naming the file and the problem when it cannot be used."""
    root = mqconfig.data_root(data_path)
    path = config_path(root)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(TEMPLATE)
    parser = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    parser.optionxform = str  # role names keep their case
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} is not valid: {str(e).splitlines()[0]}") from None
    server = parser["server"] if parser.has_section("server") else {}
    roles = parser["roles"] if parser.has_section("roles") else {}
    port = server.get("port", str(DEFAULT_PORT)).strip()
    if not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ConfigError(f"{path} is not valid: port '{port}' is not a TCP port number")
    secure = server.get("secureLTPA", "").strip().lower()
    expiration = server.get("ltpaExpiration", "120").strip()
    if secure not in ("true", "false", "") or not (expiration.isascii() and expiration.isdigit()) \
            or int(expiration) < 1:
        raise ConfigError(f"{path} is not valid: secureLTPA '{secure}' must be true or false "
                          f"and ltpaExpiration '{expiration}' a number of minutes")
    read_timeout = server.get("readTimeout", "60").strip()
    if not read_timeout.isascii() or not read_timeout.isdigit() or int(read_timeout) < 1:
        raise ConfigError(f"{path} is not valid: readTimeout '{read_timeout}' must be a "
                          f"number of seconds")
    keyrepo = server.get("keyRepository", "").strip()
    for pem in ("cert.pem", "key.pem") if keyrepo else ():
        if not os.access(os.path.join(keyrepo, pem), os.R_OK):
            raise ConfigError(f"{path} is not valid: keyRepository '{keyrepo}' has no "
                              f"readable {pem}")
    return WebConfig(
        data_path=root, host=server.get("host", DEFAULT_HOST).strip() or DEFAULT_HOST,
        port=int(port), key_repository=keyrepo,
        secure_ltpa=None if not secure else secure == "true",
        ltpa_expiration=int(expiration), read_timeout=float(read_timeout),
        roles={role: _members(roles.get(role, "")) for role in ROLES})


def write(cfg_text: str, data_path: str | None = None) -> str:
    """Write ``cfg_text`` as the configuration file; its path."""
    path = config_path(data_path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(cfg_text)
    return path
