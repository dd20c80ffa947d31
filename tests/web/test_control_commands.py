"""strmqweb, endmqweb and dspmqweb as an operator runs them: IBM's messages and Liberty's
exit codes, the server a process of its own found by its pid file, the configuration file
made in the data path (bound to 127.0.0.1 by default), HTTPS from a key repository of PEM
files."""

from __future__ import annotations

import os
import ssl

import httpx
import pytest
import trustme

from mqpy_cli.web import config as webconfig
from tests.support.installation import gone
from tests.support.ports import free_port
from tests.support.site import key_repository
from tests.support.web import web_command


def _config(root: str, port: int, keyrepo: str = "") -> None:
    webconfig.write(f"[server]\nport = {port}\nkeyRepository = {keyrepo}\n", root)


def test_a_new_data_path_gets_a_configuration_bound_to_localhost(tmp_path):
    """Given a data path without mqweb.ini, when the configuration is read, then the file
    is written there and the server binds 127.0.0.1 (IBM's default is localhost only)."""
    cfg = webconfig.load(str(tmp_path))
    assert os.path.exists(os.path.join(str(tmp_path), "web", "mqweb.ini"))
    assert (cfg.host, cfg.tls) == ("127.0.0.1", False)


def test_start_status_stop_as_ibm_shows_them(tmp_path):
    """Given a configured data path, when strmqweb, dspmqweb, strmqweb again, endmqweb and
    dspmqweb run, then each prints IBM's message with Liberty's exit code, and the server
    process named by the pid file is gone after endmqweb."""
    root, port = str(tmp_path), free_port()
    _config(root, port)
    pid = None
    try:
        started = web_command(root, "strmqweb")
        assert started.returncode == 0, started.stdout + started.stderr
        assert started.stdout.startswith("Starting server mqweb.\nServer mqweb started "
                                         "with process ID ")
        pid = int(started.stdout.split()[-1].rstrip("."))
        status = web_command(root, "dspmqweb")
        assert status.returncode == 0
        assert status.stdout == (f"MQWB1124I: Server 'mqweb' is running.\nURLS:\n"
                                 f"  http://localhost:{port}/ibmmq/rest/v2/\n"
                                 f"  http://localhost:{port}/ibmmq/console/\n")
        again = web_command(root, "strmqweb")
        assert again.returncode == 1
        assert f"Server mqweb is already running with process ID {pid}." in again.stdout
        stopped = web_command(root, "endmqweb")
        assert (stopped.returncode, stopped.stdout) == (
            0, "Stopping server mqweb.\nServer mqweb stopped.\n")
        assert gone(pid)
        after = web_command(root, "dspmqweb", "status")
        assert (after.returncode, after.stdout) == (
            1, "MQWB1125I: Server 'mqweb' is not running.\n")
        assert web_command(root, "endmqweb").returncode == 1
    finally:
        if pid is not None and not gone(pid):
            os.kill(pid, 9)


def test_a_port_in_use_fails_the_start_with_its_exit_code(tmp_path):
    """Given the configured port already taken, when strmqweb runs, then it fails (22)
    saying so, and leaves no server running."""
    import socket

    root = str(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        _config(root, taken.getsockname()[1])
        proc = web_command(root, "strmqweb")
    assert proc.returncode == 22
    assert "Server mqweb failed to start" in proc.stderr
    assert web_command(root, "dspmqweb").returncode == 1


def test_https_from_a_key_repository_of_pem_files(tmp_path):
    """Given keyRepository naming a folder with cert.pem and key.pem, when the server
    starts, then it answers HTTPS with that certificate (the console's page over TLS)."""
    ca = trustme.CA()
    keyrepo = key_repository(str(tmp_path / "keys"), ca, ca.issue_cert("127.0.0.1",
                                                                      "localhost"))
    root, port = str(tmp_path / "data"), free_port()
    os.makedirs(root)
    _config(root, port, keyrepo)
    ca_file = str(tmp_path / "ca.pem")
    ca.cert_pem.write_to_path(ca_file)
    assert web_command(root, "strmqweb").returncode == 0
    try:
        assert "https://localhost" in web_command(root, "dspmqweb").stdout
        page = httpx.get(f"https://127.0.0.1:{port}/ibmmq/console/",
                         verify=ssl.create_default_context(cafile=ca_file))
        assert page.status_code == 200
        assert "IBM MQ Console" in page.text
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/ibmmq/console/", timeout=5)
    finally:
        web_command(root, "endmqweb")


@pytest.mark.parametrize("text", ["[server]\nport = nine\n", "[server]\nport = 70000\n",
                                  "not an ini file\n", "[server]\nkeyRepository = /nowhere\n",
                                  "[server]\nsecureLTPA = maybe\n",
                                  "[server]\nltpaExpiration = 0\n"])
def test_a_bad_configuration_is_named_not_a_traceback(tmp_path, text):
    """A port that is not one, a file that is not INI, a key repository without its PEM
    files: strmqweb fails (22) naming the file and the problem; dspmqweb says the same."""
    root = str(tmp_path)
    webconfig.write(text, root)
    proc = web_command(root, "strmqweb")
    assert proc.returncode == 22, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "mqweb.ini" in proc.stderr
    shown = web_command(root, "dspmqweb", "properties")
    assert shown.returncode != 0 and "Traceback" not in shown.stderr


def test_the_properties_name_the_login_token_settings(tmp_path):
    """dspmqweb properties shows ltpaExpiration and secureLTPA, as IBM's dspmqweb does."""
    root = str(tmp_path)
    webconfig.write("[server]\nltpaExpiration = 30\nsecureLTPA = true\n", root)
    shown = web_command(root, "dspmqweb", "properties")
    assert shown.returncode == 0, shown.stderr
    assert "ltpaExpiration=30" in shown.stdout and "secureLTPA=true" in shown.stdout
