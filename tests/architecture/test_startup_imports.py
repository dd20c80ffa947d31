"""Given a fresh interpreter, when a program imports mqpy and connects as an application,
then it has not loaded what it never uses: the embedded engine (``mqpy.engine``), and for the
control commands the Spark reports and the web console's server.

Each check runs a new interpreter (``sys.modules`` of this one holds everything the suite
imported) with its data root in a temporary directory, and reads back the modules loaded; a
probe that only imports is run once for this file, and each check asking it reads its
modules.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from tests.support.ports import free_port

ENGINE = "mqpy.engine"
NEVER_FOR_COMMANDS = ("pyspark", "hypercorn", "mqpy_cli.web", "mqpy.spark")


def _env(data_path: str) -> dict[str, str]:
    env = {**os.environ, "MQPY_DATA_PATH": data_path}
    for var in ("MQSERVER", "MQCCDTURL", "MQ_CONNECT_TYPE"):
        env.pop(var, None)
    return env


#: code -> the modules a fresh interpreter had loaded once it ran: a probe that only imports
#: (``import X``: it reads no data path) is the same in every test that asks it, and its
#: interpreter is started once for this file, not once per test
_IMPORTED: dict[str, frozenset[str]] = {}


def _modules_after(code: str, data_path: str) -> set[str]:
    """The names in sys.modules once ``code`` has run in a fresh interpreter."""
    only_imports = all(line.startswith("import ") for line in code.splitlines())
    if only_imports and code in _IMPORTED:
        return set(_IMPORTED[code])
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], env=_env(data_path),
                         capture_output=True, text=True, check=True, timeout=120)
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))
    if only_imports:
        _IMPORTED[code] = frozenset(modules)
    return modules


def _holds(code: str, data_path: str) -> None:
    """``code``'s asserts hold when it runs in a fresh interpreter (else its traceback is
    this test's failure)."""
    out = subprocess.run([sys.executable, "-c", code], env=_env(data_path),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]


#: the fast paths' switch (three constants), which a bindings call's packed path obeys too
SHARED_SWITCH = {ENGINE, ENGINE + ".fastpath"}


def _engine_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules
                  if (m == ENGINE or m.startswith(ENGINE + ".")) and m not in SHARED_SWITCH)


def test_given_import_mqpy_then_the_engine_is_not_loaded(tmp_path):
    assert _engine_modules(_modules_after("import mqpy", str(tmp_path))) == []


def test_given_a_client_connect_then_the_engine_is_not_loaded(tmp_path):
    """A client connection (to a port nobody listens on: MQRC_HOST_NOT_AVAILABLE) runs the
    whole client path without the engine."""
    code = (f"import mqpy\ntry:\n    mqpy.connect('QM1', 'SYSTEM.DEF.SVRCONN', "
            f"'127.0.0.1({free_port()})')\nexcept mqpy.MQMIError as e:\n"
            f"    assert e.reason == mqpy.CMQC.MQRC_HOST_NOT_AVAILABLE, e.reason")
    assert _engine_modules(_modules_after(code, str(tmp_path))) == []


def test_given_a_bindings_connect_then_the_engine_is_not_loaded(tmp_path):
    """MQCONN in bindings mode to a queue manager that is not running: MQRC 2059, and the
    engine stays unloaded (no queue manager runs inside this process)."""
    code = ("import mqpy\ntry:\n    mqpy.connect('NOSUCHQM')\nexcept mqpy.MQMIError as e:\n"
            "    assert e.reason == mqpy.CMQC.MQRC_Q_MGR_NOT_AVAILABLE, e.reason")
    assert _engine_modules(_modules_after(code, str(tmp_path))) == []


def test_given_a_bindings_connect_then_the_client_channel_is_not_loaded(tmp_path):
    """MQCONN in bindings mode, with neither MQSERVER nor MQCCDTURL set: the client channel
    (mqpy.client, ssl and the TLS tables) is not imported, whether a queue manager answers
    or, as here, none does (MQRC 2059, and no client connection to fall back to)."""
    code = ("import mqpy\ntry:\n    mqpy.connect('NOSUCHQM')\nexcept mqpy.MQMIError as e:\n"
            "    assert e.reason == mqpy.CMQC.MQRC_Q_MGR_NOT_AVAILABLE, e.reason")
    loaded = _modules_after(code, str(tmp_path))
    assert sorted(loaded & {"mqpy.client", "ssl", "mqpy.fap.tls"}) == []


def test_given_embedded_mode_then_it_still_starts_an_engine(tmp_path):
    code = ("import mqpy\nqm = mqpy.embedded('EMBQM')\nqm.disconnect()\n"
            "mqpy.stop_embedded('EMBQM')")
    assert "mqpy.engine.qmgr" in _modules_after(code, str(tmp_path))


@pytest.mark.parametrize("command", ["mqpy_cli.control", "mqpy_cli.runmqsc"])
def test_given_a_control_command_then_reports_and_web_server_are_not_loaded(tmp_path, command):
    modules = _modules_after(f"import {command}", str(tmp_path))
    assert sorted(m for m in modules
                  if any(m == p or m.startswith(p + ".") for p in NEVER_FOR_COMMANDS)) == []


def test_given_the_queue_manager_daemon_is_imported_then_no_password_is_hashed(tmp_path):
    """The dummy scrypt hash an unknown user's password is checked against (so that the
    answer takes as long as for a known user) is made when first needed, not by every
    process that imports the user registry."""
    code = ("import hashlib\ncalls = []\n_scrypt = hashlib.scrypt\n"
            "hashlib.scrypt = lambda *a, **k: calls.append(1) or _scrypt(*a, **k)\n"
            "import mqpy.daemon, mqpy_chinit.chinit, mqpy_cli.control, mqpy_cli.runmqsc\n"
            "assert calls == [], calls")
    _modules_after(code, str(tmp_path))


#: what a control command, the daemon or the channel initiator never needs at start: the
#: standard library's http/email stack (xml.sax.saxutils and an http CCDT pulled it in, and
#: importlib.metadata for the queue manager's two extension points), and for dspmq, strmqm
#: and endmqm the MQI, its structures and PCF
NEVER_AT_START = ("urllib.request", "http.client", "email", "importlib.metadata", "xml.sax",
                  "pyspark", "hypercorn")
NOT_FOR_DSPMQ = ("mqpy.engine", "mqpy.mqi", "mqpy.structs", "mqpy.pcf", "mqpy.properties",
                 "mqpy.asyncconsume", "mqpy.cmdserver", "mqpy.mqsc")
#: runmqsc sends its commands to the daemon's command server: it runs neither
NOT_FOR_RUNMQSC = ("mqpy.engine.qmgr", "mqpy.inprocess", "mqpy.embedding", "mqpy.cmdserver",
                   "mqpy.command.requests", "mqpy.mqsc.processor")


def _loaded(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


@pytest.mark.parametrize("entry", ["mqpy_cli.control", "mqpy_cli.runmqsc", "mqpy.daemon",
                                   "mqpy_cli.chinit", "mqpy_chinit.chinit", "mqpy"])
def test_given_a_process_starts_then_no_http_email_or_sax_stack_is_loaded(tmp_path, entry):
    assert _loaded(_modules_after(f"import {entry}", str(tmp_path)), NEVER_AT_START) == []


def test_given_the_daemon_finds_its_extensions_then_importlib_metadata_is_not_loaded(tmp_path):
    """The queue manager's extension points are read from the distributions' entry points
    (as importlib.metadata reads them) without importing it."""
    code = ("from mqpy import extensions\nassert extensions.find(extensions.CLIENT_HOST)\n"
            "assert extensions.find(extensions.CLUSTER_DIRECTORY)")
    assert _loaded(_modules_after(code, str(tmp_path)), NEVER_AT_START) == []


def test_given_dspmq_strmqm_endmqm_then_neither_the_engine_nor_the_mqi_is_loaded(tmp_path):
    """They read qm.lock and qm.status, and start or signal the daemon: the engine, the MQI's
    structures and PCF are loaded by crtmqm and strmqm -c only, which run a queue manager."""
    assert _loaded(_modules_after("import mqpy_cli.control", str(tmp_path)), NOT_FOR_DSPMQ) == []


def test_given_runmqsc_then_the_engine_and_the_command_server_are_not_loaded(tmp_path):
    assert _loaded(_modules_after("import mqpy_cli.runmqsc", str(tmp_path)),
                   NOT_FOR_RUNMQSC) == []


def test_given_import_mqpy_then_the_pymqi_names_load_when_first_used(tmp_path):
    """``import mqpy`` loads the constants only; ``mqpy.MD`` (and every name of the
    pymqi-shaped interface, aliases included) loads its module then."""
    code = ("import sys, mqpy\nassert 'mqpy.structs.tables' not in sys.modules\n"
            "assert mqpy.md is mqpy.MD and mqpy.MD().Version == 2\n"
            "assert mqpy.EncodingDefault is mqpy.default\n"
            "assert set(mqpy.__all__) <= set(dir(mqpy))\n"
            "from mqpy import *\n")
    assert "mqpy.structs.tables" in _modules_after(code, str(tmp_path))


def test_given_the_daemon_loads_its_fastpath_client_host_then_no_repository_manager(tmp_path):
    """The FASTPATH client host serves clients in the queue manager's process through a
    ChannelInitiator that never runs the cluster repository manager: the daemon does not load
    it (the channel initiator's process does, when it has a cluster cache)."""
    code = ("from mqpy import extensions\n"
            "assert extensions.find(extensions.CLIENT_HOST)")
    assert _loaded(_modules_after(code, str(tmp_path)),
                   ("mqpy_chinit.cluster.supervisor", "mqpy_chinit.cluster.manager")) == []


#: what strmqweb, endmqweb and dspmqweb never need: they start, signal and show the server
#: process (by its pid file), which alone serves the console and the REST API
NOT_FOR_WEB_COMMANDS = ("hypercorn", "starlette", "mqpy_cli.web.server", "mqpy_cli.web.app",
                        "mqpy.command", "mqpy.mqsc", "mqpy.pcf", "trio")


def test_given_the_mqweb_control_commands_then_the_web_server_is_not_loaded(tmp_path):
    """strmqweb, endmqweb and dspmqweb import neither the web application nor its server
    (the server's module name is all they need of it, to run it and to know its pid)."""
    assert _loaded(_modules_after("import mqpy_cli.web.control", str(tmp_path)),
                   NOT_FOR_WEB_COMMANDS) == []


#: what runmqsc -v never needs: it checks the commands' syntax, connecting to nothing
NOT_FOR_RUNMQSC_VERIFY = ("mqpy.mqi", "mqpy.mqsc.client", "mqpy.pcf", "mqpy.structs",
                          "mqpy.properties", "mqpy.asyncconsume", "mqpy.bindings", "construct")


def test_given_runmqsc_verifies_then_neither_the_mqi_nor_pcf_is_loaded(tmp_path):
    """runmqsc -v parses and reports without a queue manager: the MQI, its structures, PCF
    and the MQSC client are imported by the runmqsc runs that connect."""
    code = ("import io, sys\nsys.argv = ['runmqsc', '-v', 'QM1']\n"
            "sys.stdin = io.StringIO('DEFINE QLOCAL(A) MAXDEPTH(5)\\nDISPLAY QMGR\\n')\n"
            "from mqpy_cli.runmqsc import runmqsc\n"
            "try:\n    runmqsc()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n")
    assert _loaded(_modules_after(code, str(tmp_path)), NOT_FOR_RUNMQSC_VERIFY) == []


def test_given_a_process_starts_then_no_converter_signature_is_parsed_from_text(tmp_path):
    """attrs reads each converter's signature when it makes the class; a builtin's (``list``,
    ``tuple``) is parsed from its text by the tokenizer, whose regular expression the first
    one compiles. mqpy's converters are Python functions, so no process pays for that."""
    code = ("import attrs, sys\n"
            "import mqpy.daemon, mqpy_chinit.chinit, mqpy_cli.runmqsc, mqpy_cli.control, mqpy.mqi\n"
            "import mqpy.cmdserver, mqpy.mqsc.processor, mqpy.pcfexec\n"
            "bad = []\n"
            "for name, module in list(sys.modules.items()):\n"
            "    if not name.startswith(('mqpy.', 'mqpy_chinit.', 'mqpy_cli.')):\n"
            "        continue\n"
            "    for cls in list(vars(module).values()):\n"
            "        if not (isinstance(cls, type) and attrs.has(cls)\n"
            "                and cls.__module__ == name):\n"
            "            continue\n"
            "        for f in attrs.fields(cls):\n"
            "            c = getattr(f.converter, 'converter', f.converter)\n"
            "            if getattr(c, '__text_signature__', None) is not None:\n"
            "                bad.append(f'{name}.{cls.__name__}.{f.name}: {c!r}')\n"
            "assert bad == [], bad\n")
    _holds(code, str(tmp_path))


def test_given_the_fap_flows_are_imported_then_status_and_reset_compile_on_first_use(tmp_path):
    """The STATUS and RESET layouts are compiled (construct writes and compiles Python for
    them) when a STATUS or RESET is first built or parsed, once, not by every process that
    imports the flows."""
    code = ("import construct\ncompiled = []\n_compile = construct.Construct.compile\n"
            "construct.Construct.compile = lambda self, *a, **k: (compiled.append(self),\n"
            "                                                     _compile(self, *a, **k))[1]\n"
            "import mqpy.mqi, mqpy.daemon, mqpy_chinit.chinit\n"
            "assert compiled == [], compiled\n"
            "from mqpy.fap import controlflows as cf\n"
            "from mqpy.fap.flows import encode_body\nfrom mqpy.fap.tsh import ByteOrder\n"
            "status = cf.Status(code=cf.StatusCode(1))\n"
            "for _ in range(2):\n"
            "    _, body = encode_body(status, ByteOrder.BIG)\n"
            "    assert body == bytes.fromhex('0000000800000001'), body.hex()\n"
            "    assert cf.decode_status(body, False, {}).code == 1\n"
            "assert compiled == [cf.STATUS], compiled\n"
            "_, body = encode_body(cf.Reset(seqnum=7), ByteOrder.LITTLE)\n"
            "assert body == bytes.fromhex('0800000007000000'), body.hex()\n"
            "assert compiled == [cf.STATUS, cf.RESET], compiled\n")
    _holds(code, str(tmp_path))


def test_given_dspmq_then_the_socket_module_is_not_loaded(tmp_path):
    """dspmq reads files: the host name (and with it the socket module) is looked up only
    for ``-x``, the instances of a running queue manager."""
    code = ("import sys\nsys.argv = ['dspmq']\nfrom mqpy_cli.control import dspmq\n"
            "try:\n    dspmq()\nexcept SystemExit as e:\n    assert not e.code, e.code\n")
    assert _loaded(_modules_after(code, str(tmp_path)), ("socket",)) == []


#: what a channel initiator (runmqchi, as strmqm starts it) loads only when it first needs
#: it: the engine's distribution-list layout (and the engine's handle and counters it
#: brings), for the first MQDH message a channel carries; the statistics PCF records and the
#: collector's put, for the first interval with channel statistics to write; the stats
#: exporter never
NOT_FOR_CHINIT_START = ("mqpy.engine.distlist", "mqpy.engine.handle", "mqpy.engine.stats",
                        "mqpy.stats.records", "mqpy.stats.collector", "mqpy.stats.exporter")


def test_given_the_channel_initiator_starts_then_lists_and_statistics_load_on_first_use(
        tmp_path):
    assert _loaded(_modules_after("import mqpy_cli.chinit", str(tmp_path)),
                   NOT_FOR_CHINIT_START) == []


#: the cluster package's modules the channel initiator's process loads when its repository
#: manager starts (in a worker thread, the initiation queue served meanwhile), not with its
#: own start: it needs ``directory`` (the cache's path), and ``workload`` under it
CLUSTER_AFTER_CHINIT_START = tuple(
    f"mqpy_chinit.cluster.{m}" for m in (
        "actions", "config", "display", "manager", "proxysubs", "pubsubdaemon", "records",
        "repository", "supervisor", "topics", "transmitq", "utilities"))


def test_given_the_channel_initiator_starts_then_the_cluster_package_loads_when_used(tmp_path):
    """Given a fresh interpreter, when it imports the channel initiator's command, then of
    the cluster package only ``directory`` and ``workload`` are loaded; when a name of the
    package is asked for, then its module is loaded, and every name the package offers is
    there."""
    assert _loaded(_modules_after("import mqpy_cli.chinit", str(tmp_path)),
                   CLUSTER_AFTER_CHINIT_START) == []
    code = ("import sys\nimport mqpy_chinit.cluster as cluster\n"
            "assert 'mqpy_chinit.cluster.repository' not in sys.modules\n"
            "from mqpy_chinit.cluster import Repository, decode\n"
            "from mqpy_chinit.cluster.repository import Repository as defined\n"
            "assert Repository is defined and 'mqpy_chinit.cluster.records' in sys.modules\n"
            "assert all(getattr(cluster, name) for name in cluster.__all__)\n"
            "assert set(cluster.__all__) <= set(dir(cluster))\n"
            "from mqpy_chinit.cluster import *\n")
    _holds(code, str(tmp_path))


def test_given_the_daemon_is_imported_then_the_statistics_exporter_is_not_loaded(tmp_path):
    """The daemon's statistics task puts PCF messages; draining them to files (``mqpy
    export``) is another program's."""
    assert _loaded(_modules_after("import mqpy.daemon", str(tmp_path)),
                   ("mqpy.stats.exporter", "mqpy.stats.display", "mqpy.stats.generator")) == []


def test_given_the_daemon_serves_then_its_start_up_objects_are_left_out_of_collections(
        tmp_path):
    """The queue manager process moves what its start made (modules, classes, the engine's
    catalogue: tens of thousands of objects, alive until it ends) out of the cyclic garbage
    collector's reach once it serves (``gc.freeze``), and again as it ends: the collections
    while it runs, and the interpreter's at its exit (a fifth of a short-lived daemon's CPU),
    no longer walk them."""
    code = ("import gc, os, signal\nos.environ['MQPY_NO_CHINIT'] = '1'\n"
            "from mqpy import inprocess\ninprocess.create('FRZQM', os.environ['MQPY_DATA_PATH'])\n"
            "from mqpy import daemon\nseen = []\n_ready = daemon._Console.ready\n"
            "def ready(console):\n    seen.append(gc.get_freeze_count())\n    _ready(console)\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "daemon._Console.ready = ready\n"
            "assert daemon.main(['FRZQM']) == 0\n"
            "assert seen and seen[0] > 10000, seen\n"
            "assert len(gc.get_objects()) < 1000, len(gc.get_objects())  # (none left out)\n")
    _holds(code, str(tmp_path))


def test_given_a_listener_process_serves_then_its_start_up_objects_are_left_out_of_collections(
        tmp_path):
    """The channel initiator's process (here as runmqlsr, on a port of the system's choice,
    beside a daemon started without one) does the same once it serves, and as it ends."""
    code = ("import gc, os, signal, threading, time\nos.environ['MQPY_NO_CHINIT'] = '1'\n"
            "root = os.environ['MQPY_DATA_PATH']\n"
            "from mqpy import inprocess\ninprocess.create('FRZQM', root)\n"
            "from mqpy_cli import control\nassert control.start_daemon('FRZQM', root)[0] == 0\n"
            "with open(os.path.join(root, 'qmgrs', 'FRZQM', 'qm.lock')) as f:\n"
            "    daemon = int(f.read().split()[0])\n"
            "seen = []\n"
            "def watch():\n    deadline = time.monotonic() + 20\n"
            "    while not gc.get_freeze_count() and time.monotonic() < deadline:\n"
            "        time.sleep(0.01)\n"
            "    seen.append(gc.get_freeze_count())\n    os.kill(os.getpid(), signal.SIGTERM)\n"
            "threading.Thread(target=watch, daemon=True).start()\n"
            "from mqpy_cli import chinit\ntry:\n"
            "    chinit._serve('FRZQM', root, serve_initq=False, listen=[('127.0.0.1', 0)],\n"
            "                  start_listeners=False)\n"
            "finally:\n    os.kill(daemon, signal.SIGTERM)\n"
            "    while control.localqmgrs.is_locked(os.path.join(root, 'qmgrs', 'FRZQM')):\n"
            "        time.sleep(0.05)\n"
            "assert seen and seen[0] > 10000, seen\n"
            "assert len(gc.get_objects()) < 1000, len(gc.get_objects())  # (none left out)\n")
    _holds(code, str(tmp_path))


def test_given_endmqm_waits_for_the_end_then_it_waits_on_the_lock_not_in_sleeps(
        tmp_path, monkeypatch):
    """endmqm -w (and -i) returns as the daemon lets qm.lock go: it waits on the lock, not
    in a loop of sleeps that would add up to a sleep's length to every end."""
    from mqpy_cli import control

    lock = tmp_path / "qm.lock"
    lock.write_text("1\n")
    held = os.open(lock, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)  # the daemon's, let go 0.3 s from now
    threading.Timer(0.3, os.close, [held]).start()

    def no_sleep(seconds: float) -> None:
        raise AssertionError(f"slept {seconds} s")

    monkeypatch.setattr(control.time, "sleep", no_sleep)
    began = time.monotonic()
    assert control._wait_ended(str(tmp_path)) is True
    assert time.monotonic() - began >= 0.25


def test_given_strmqm_then_the_channel_initiator_starts_beside_the_daemons_own_start(tmp_path):
    """The daemon starts its channel initiator's process as soon as the bindings socket
    serves, before its own client host and command server (the channel initiator's imports
    run meanwhile, on the other core), and looks whether it serves every hundredth of a
    second."""
    code = ("import os, signal\nos.environ['MQPY_NO_CHINIT'] = '1'\n"
            "from mqpy import inprocess\ninprocess.create('ORDQM', os.environ['MQPY_DATA_PATH'])\n"
            "from mqpy import daemon\ncalls = []\n"
            "def record(name):\n    real = getattr(daemon, name)\n"
            "    def call(*a, **k):\n        calls.append(name)\n        return real(*a, **k)\n"
            "    setattr(daemon, name, call)\n"
            "for name in ('_start_chinit', '_start_command_server', '_start_statistics'):\n"
            "    record(name)\n"
            "_host = daemon._start_client_host\n"
            "async def host(*a, **k):\n    calls.append('_start_client_host')\n"
            "    return await _host(*a, **k)\n"
            "daemon._start_client_host = host\n"
            "_ready = daemon._Console.ready\n"
            "def ready(console):\n    _ready(console)\n    os.kill(os.getpid(), signal.SIGTERM)\n"
            "daemon._Console.ready = ready\n"
            "assert daemon.main(['ORDQM']) == 0\n"
            "assert calls == ['_start_chinit', '_start_client_host', '_start_command_server',\n"
            "                 '_start_statistics'], calls\n"
            "assert daemon.CHINIT_READY_POLL <= 0.01\n")
    _holds(code, str(tmp_path))


@pytest.mark.parametrize("command", ["mqpy_cli.control", "mqpy_cli.runmqsc"])
def test_given_a_control_command_ends_then_its_exit_walks_no_objects(tmp_path, command):
    """A control command's process (strmqm, endmqm, dspmq, runmqsc ...) ends soon after it
    starts: at its exit the interpreter would walk every object its imports made, to collect
    the few that are garbage (a tenth of dspmq's CPU). They are left to the process's end
    (``gc.freeze`` at exit): here a garbage cycle's finalizer does not run."""
    code = (f"import {command}\nimport gc\ngc.disable()\n"
            "class Cycle:\n    def __del__(self):\n        print('collected at exit')\n"
            "cycle = Cycle()\ncycle.itself = cycle\ndel cycle\n")
    out = subprocess.run([sys.executable, "-c", code], env=_env(str(tmp_path)),
                         capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (0, ""), out.stderr[-3000:]
