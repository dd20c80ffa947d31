"""setmqaut, dspmqaut and mqpyuser: object authorities and the queue manager's users.

``setmqaut`` and ``dspmqaut`` take IBM's syntax, which click cannot parse (``-browse`` is an
authority, not an option), so their arguments are read here by hand::

    setmqaut -m QM1 -t queue -n Q1 -p alice +put +get -browse
    setmqaut -m QM1 -t qmgr -g apps +connect +inq
    setmqaut -m QM1 -t queue -n 'PAY.**' -g payments +allmqi
    setmqaut -m QM1 -t queue -n Q1 -p alice -remove
    dspmqaut -m QM1 -t queue -n Q1 -p alice
    dmpmqaut -m QM1 [-t queue] [-n 'PAY.**'] [-p alice | -g payments]

Both work on a queue manager running in this process, or on one that is not running (its
engine is started for the command and ended after it). For a queue manager running in its
daemon (strmqm), setmqaut sends the same change as MQSC SET / DELETE AUTHREC to its command
server, and dspmqaut reads the records with DISPLAY AUTHREC and resolves them here. Exit statuses are setmqaut's (0, 36, 40, 72, 133, 145-151).

``mqpyuser add|passwd|del|groups|list -m QM1 NAME`` manages ``<qmgr dir>/mqusers``, the user
repository connection authentication checks (:mod:`mqpy.security.users`); it needs no
running queue manager.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator

import click

from mqpy import config, inprocess
from mqpy.errors import MQMIError
from mqpy.mqsc.writer import command_text
from mqpy.security import authority as oam
from mqpy.security.policy import (
    authority_records,
    effective_authority,
    group_authority,
    group_authority_of,
    remove_authority,
    set_authority,
    user_authority,
)
from mqpy.security.users import UserError, UserFile, users_path
from mqpy_chinit.admin import parse_display
from mqpy_cli import runmqsc

__all__ = ["dmpmqaut", "dspmqaut", "mqpyuser", "setmqaut"]

RC_OK = 0
RC_INVALID_ARGS = 36
RC_NOT_AVAILABLE = 40
RC_QMGR_NAME = 72
RC_UNKNOWN_OBJECT = 133
RC_UNEXPECTED_NAME = 145
RC_NAME_MISSING = 146
RC_TYPE_MISSING = 147
RC_ENTITY = 149

_RAW = {"ignore_unknown_options": True, "allow_interspersed_args": False,
        "help_option_names": []}


class _Exit(Exception):
    def __init__(self, text: str, rc: int) -> None:
        super().__init__(text)
        self.rc = rc


def _parse(args: tuple[str, ...], flags: set[str]) -> tuple[dict[str, str], list[str], set[str]]:
    """``-m QM -t queue ...`` -> (options, +/- authority specs, bare flags like -remove)."""
    opts: dict[str, str] = {}
    specs: list[str] = []
    seen: set[str] = set()
    it = iter(args)
    for a in it:
        if a in ("-m", "-t", "-n", "-p", "-g", "-s", "--data-path"):
            try:
                opts[a] = next(it)
            except StopIteration:
                raise _Exit(f"Option {a} needs a value.", RC_INVALID_ARGS) from None
        elif a.startswith("--data-path="):
            opts["--data-path"] = a.split("=", 1)[1]
        elif a in flags:
            seen.add(a)
        elif len(a) > 1 and a[0] in "+-":
            specs.append(a)
        else:
            raise _Exit(f"Unexpected argument '{a}'.", RC_INVALID_ARGS)
    return opts, specs, seen


@contextlib.contextmanager
def _engine(qmgr: str, root: str | None) -> Iterator[object]:
    """The running engine, or one started for this command and ended after it."""
    eng = inprocess.running(qmgr, root)
    if eng is not None:
        yield eng
        return
    if not os.path.exists(os.path.join(config.qmgr_dir(qmgr, root), "pageset00")):
        raise _Exit("AMQ8118E: IBM MQ queue manager does not exist.", RC_QMGR_NAME)
    try:
        eng = inprocess.start(qmgr, root)
    except MQMIError:
        if inprocess.is_locked(config.qmgr_dir(qmgr, root)):
            raise _HeldByDaemon from None
        raise _Exit("AMQ8146E: IBM MQ queue manager not available.", RC_NOT_AVAILABLE) from None
    try:
        yield eng
    finally:
        inprocess.stop(qmgr, root)


def _target(opts: dict[str, str], eng: object) -> tuple[str, str]:
    """(OAM object type, profile) from -t and -n."""
    if "-t" not in opts:
        raise _Exit("An object type (-t) is required.", RC_TYPE_MISSING)
    try:
        otype = oam.objtype_of(opts["-t"])
    except oam.AuthSpecError as exc:
        raise _Exit(str(exc), exc.rc) from None
    qmname = eng.name  # type: ignore[attr-defined]
    if otype == "qmgr":
        if opts.get("-n", qmname) != qmname:
            raise _Exit("An object name is not valid with -t qmgr.", RC_UNEXPECTED_NAME)
        return otype, qmname
    name = opts.get("-n")
    if not name:
        raise _Exit("An object name (-n) is required.", RC_NAME_MISSING)
    return otype, name


def _entity(opts: dict[str, str], qmdir: str) -> tuple[str | None, str | None]:
    p, g = opts.get("-p"), opts.get("-g")
    if bool(p) == bool(g):
        raise _Exit("AMQ7026E: A principal or group name was invalid.", RC_ENTITY)
    users = UserFile(users_path(qmdir))
    if p and users.get(p) is None:
        raise _Exit("AMQ7026E: A principal or group name was invalid.", RC_ENTITY)
    if g and g not in users.all_groups():
        raise _Exit("AMQ7026E: A principal or group name was invalid.", RC_ENTITY)
    return p, g


class _HeldByDaemon(Exception):  # noqa: N818 - a signal between helpers, not an error
    """The queue manager runs in its daemon: go through its command server."""


class _Named:
    """What ``_target`` needs of an engine when only the queue manager's name is known."""

    def __init__(self, name: str) -> None:
        self.name = name


def _run(body, args: tuple[str, ...], flags: set[str], remote=None) -> None:  # noqa: ANN001
    try:
        opts, specs, seen = _parse(args, flags)
        if "-m" not in opts:
            raise _Exit("A queue manager name (-m) is required.", RC_INVALID_ARGS)
        try:
            with _engine(opts["-m"], opts.get("--data-path")) as eng:
                text = body(eng, opts, specs, seen)
        except _HeldByDaemon:
            if remote is None:
                raise _Exit("AMQ8146E: IBM MQ queue manager not available.",
                            RC_NOT_AVAILABLE) from None
            text = remote(opts, specs, seen)
    except _Exit as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(exc.rc) from None
    except oam.AuthSpecError as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(exc.rc) from None
    except MQMIError as exc:
        click.echo(f"AMQ8101S: IBM MQ error ({exc.reason:X}) has occurred.", err=True)
        raise SystemExit(RC_INVALID_ARGS) from None
    click.echo(text)


def _is_generic(profile: str) -> bool:
    return any(c in profile for c in "*?")


@click.command(context_settings=_RAW)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def setmqaut(args: tuple[str, ...]) -> None:
    """setmqaut -m QM -t TYPE [-n PROFILE] (-p PRINCIPAL | -g GROUP) [-remove] +auth -auth ..."""

    def body(eng, opts, specs, seen) -> str:  # noqa: ANN001
        otype, profile = _target(opts, eng)
        principal, group = _entity(opts, eng.qmdir)
        if "-remove" in seen:
            remove_authority(eng, otype, profile, principal=principal, group=group)
            return "The setmqaut command completed successfully."
        if otype == "queue" and not _is_generic(profile) and eng.lookup("QLOCAL",
                                                                          profile) is None:
            raise _Exit(f"AMQ8147E: IBM MQ object {profile} not found.", RC_UNKNOWN_OBJECT)
        set_authority(eng, otype, profile, specs, principal=principal, group=group)
        return "The setmqaut command completed successfully."

    def remote(opts, specs, seen) -> str:  # noqa: ANN001
        """The running queue manager: the same change as MQSC SET / DELETE AUTHREC, sent to
        its command server (as runmqsc sends it)."""
        name, root = opts["-m"], opts.get("--data-path")
        otype, profile = _target(opts, _Named(name))
        principal, group = _entity(opts, config.qmgr_dir(name, root))
        params: dict[str, object] = {} if otype == "qmgr" else {"PROFILE": profile}
        params["OBJTYPE"] = otype.upper()
        params.update({"PRINCIPAL": principal} if principal else {"GROUP": group})
        if "-remove" in seen:
            command = command_text("DELETE", "AUTHREC", None, params)
        else:
            oam.parse_specs(otype, specs)  # setmqaut's own validation and return codes
            adds = [x[1:].upper() for x in specs if x[0] == "+"]
            rms = [x[1:].upper() for x in specs if x[0] == "-"]
            params.update({"AUTHADD": adds} if adds else {})
            params.update({"AUTHRMV": rms} if rms else {})
            command = command_text("SET", "AUTHREC", None, params)
        lines, code = runmqsc.run_client(name, [command + "\n"], echo=False, data_path=root)
        if code != 0:
            found = [x for x in lines if re.match(r"AMQ\d{4}[ES]:", x)]
            raise _Exit("\n".join(found) or "AMQ8146E: IBM MQ queue manager not available.",
                        RC_UNKNOWN_OBJECT if any("AMQ8147E" in x for x in found)
                        else RC_NOT_AVAILABLE)
        return "The setmqaut command completed successfully."

    _run(body, args, {"-remove"}, remote)


def _dump_type(opts: dict[str, str]) -> str | None:
    """dmpmqaut's -t as an OAM object type (None: every type), checked with -p/-g before
    any record is read: a bad -t or both -p and -g are refused with their own codes."""
    if opts.get("-p") and opts.get("-g"):
        raise _Exit("AMQ7026E: A principal or group name was invalid.", RC_ENTITY)
    try:
        return oam.objtype_of(opts["-t"]) if "-t" in opts else None
    except oam.AuthSpecError as exc:
        raise _Exit(str(exc), exc.rc) from None


def _dumped(records: list[oam.AuthRecord], opts: dict[str, str]) -> str:
    """dmpmqaut's selection: -t, -n (the profile as written: IBM's default, exact match),
    -p, -g; the records by object type, profile and entity."""
    otype = _dump_type(opts)
    chosen = [r for r in records
              if (otype is None or r.objtype == otype)
              and ("-n" not in opts or r.profile == opts["-n"])
              and ("-p" not in opts or (r.entity_type, r.entity) == ("principal", opts["-p"]))
              and ("-g" not in opts or (r.entity_type, r.entity) == ("group", opts["-g"]))]
    if not chosen:
        raise _Exit("No matching authority records.", RC_OK)
    chosen.sort(key=lambda r: (r.objtype, r.profile, r.entity_type, r.entity))
    return oam.format_dmpmqaut(chosen)


@click.command(context_settings=_RAW)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def dmpmqaut(args: tuple[str, ...]) -> None:
    """dmpmqaut -m QM [-t TYPE] [-n PROFILE] [-p PRINCIPAL | -g GROUP]: the authority
    records, as IBM's dmpmqaut prints them."""
    def body(eng, opts, specs, seen) -> str:  # noqa: ANN001
        if specs:
            raise _Exit(f"Unexpected argument '{specs[0]}'.", RC_INVALID_ARGS)
        return _dumped(authority_records(eng), opts)

    def remote(opts, specs, seen) -> str:  # noqa: ANN001
        """The running queue manager: its records through DISPLAY AUTHREC (command server)."""
        if specs:
            raise _Exit(f"Unexpected argument '{specs[0]}'.", RC_INVALID_ARGS)
        _dump_type(opts)  # a bad -t asks the queue manager nothing
        lines, code = runmqsc.run_client(opts["-m"], ["DISPLAY AUTHREC\n"], echo=False,
                                 data_path=opts.get("--data-path"))
        if code != 0 and not any("AMQ8147E" in x for x in lines):  # none is not an error
            found = [x for x in lines if re.match(r"AMQ\d{4}[ES]:", x)]  # (2035, say)
            raise _Exit("\n".join(found) or "AMQ8146E: IBM MQ queue manager not available.",
                        RC_NOT_AVAILABLE)
        records = [oam.AuthRecord(str(d.get("ENTTYPE", "")).lower(), str(d.get("ENTITY", "")),
                                  str(d.get("OBJTYPE", "")).lower(), str(d.get("PROFILE", "")),
                                  frozenset(a.lower() for a in str(d.get("AUTHLIST", ""))
                                            .split(",") if a and a != "NONE"))
                   for d in parse_display(lines)]
        return _dumped(records, opts)

    _run(body, args, set(), remote)


@click.command(context_settings=_RAW)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def dspmqaut(args: tuple[str, ...]) -> None:
    """dspmqaut -m QM -t TYPE [-n NAME] (-p PRINCIPAL | -g GROUP)"""

    def body(eng, opts, specs, seen) -> str:  # noqa: ANN001
        if specs:
            raise _Exit(f"Unexpected argument '{specs[0]}'.", RC_INVALID_ARGS)
        otype, name = _target(opts, eng)
        principal, group = _entity(opts, eng.qmdir)
        if principal:
            auths = effective_authority(eng, eng.qmdir, principal, otype, name)
            return oam.format_dspmqaut(principal, name, auths)
        auths = group_authority(eng, otype, name, group)  # type: ignore[arg-type]
        return oam.format_dspmqaut(group, name, auths,  # type: ignore[arg-type]
                                   entity_type="group")

    def remote(opts, specs, seen) -> str:  # noqa: ANN001
        """The running queue manager: its records of the object type through DISPLAY AUTHREC
        (the command server), resolved here with the user file as the OAM does."""
        if specs:
            raise _Exit(f"Unexpected argument '{specs[0]}'.", RC_INVALID_ARGS)
        qm_name, root = opts["-m"], opts.get("--data-path")
        otype, name = _target(opts, _Named(qm_name))
        qmdir = config.qmgr_dir(qm_name, root)
        principal, group = _entity(opts, qmdir)
        command = command_text("DISPLAY", "AUTHREC", None, {"OBJTYPE": otype.upper()})
        lines, code = runmqsc.run_client(qm_name, [command + "\n"],
                                 echo=False, data_path=root)
        if code != 0 and not any("AMQ8147E" in x for x in lines):  # none is not an error
            raise _Exit("AMQ8146E: IBM MQ queue manager not available.", RC_NOT_AVAILABLE)
        records = [oam.AuthRecord(str(d.get("ENTTYPE", "")).lower(), str(d.get("ENTITY", "")),
                                  otype, str(d.get("PROFILE", "")),
                                  frozenset(a.lower() for a in str(d.get("AUTHLIST", ""))
                                            .split(",") if a and a != "NONE"))
                   for d in parse_display(lines)]
        if principal:
            auths = user_authority(records, UserFile(users_path(qmdir)), principal, otype,
                                   name)
            return oam.format_dspmqaut(principal, name, auths)
        auths = group_authority_of(records, otype, name, group)  # type: ignore[arg-type]
        return oam.format_dspmqaut(group, name, auths,  # type: ignore[arg-type]
                                   entity_type="group")

    _run(body, args, set(), remote)


# ------------------------------------------------------------------ mqpyuser

_data_path = click.option("--data-path", envvar=config.ENV_DATA_PATH, default=None,
                          type=click.Path(file_okay=False),
                          help="Data root (default $MQPY_DATA_PATH or a per-user directory).")
_qmgr = click.option("-m", "qmgr", required=True, help="Queue manager name.")


def _users(qmgr: str, root: str | None) -> UserFile:
    qmdir = config.qmgr_dir(qmgr, root)
    if not os.path.exists(os.path.join(qmdir, "pageset00")):
        click.echo("AMQ8118E: IBM MQ queue manager does not exist.", err=True)
        raise SystemExit(RC_QMGR_NAME)
    return UserFile(users_path(qmdir))


def _groups(values: tuple[str, ...]) -> list[str]:
    return [g for v in values for g in v.split(",") if g]


def _password(given: str | None) -> str:
    if given is not None:
        return given
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


@contextlib.contextmanager
def _user_errors() -> Iterator[None]:
    try:
        yield
    except UserError as exc:
        click.echo(f"mqpyuser: {exc}", err=True)
        raise SystemExit(RC_INVALID_ARGS) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def mqpyuser() -> None:
    """Manage the users and passwords a queue manager authenticates (CONNAUTH)."""


@mqpyuser.command("add")
@_qmgr
@_data_path
@click.option("-g", "groups", multiple=True, help="Groups, comma separated (mqm: privileged).")
@click.option("--password", default=None, help="Password (prompted for when not given).")
@click.option("--no-password", is_flag=True, help="An identity that cannot authenticate.")
@click.argument("name")
def user_add(qmgr: str, data_path: str | None, groups: tuple[str, ...], password: str | None,
             no_password: bool, name: str) -> None:
    users = _users(qmgr, data_path)
    with _user_errors():
        users.add(name, None if no_password else _password(password), _groups(groups))
    click.echo(f"User '{name}' added to queue manager '{qmgr}'.")


@mqpyuser.command("passwd")
@_qmgr
@_data_path
@click.option("--password", default=None, help="New password (prompted for when not given).")
@click.argument("name")
def user_passwd(qmgr: str, data_path: str | None, password: str | None, name: str) -> None:
    users = _users(qmgr, data_path)
    with _user_errors():
        users.set_password(name, _password(password))
    click.echo(f"Password of user '{name}' changed.")


@mqpyuser.command("groups")
@_qmgr
@_data_path
@click.option("-g", "groups", multiple=True, help="The user's groups, comma separated.")
@click.argument("name")
def user_groups(qmgr: str, data_path: str | None, groups: tuple[str, ...], name: str) -> None:
    users = _users(qmgr, data_path)
    with _user_errors():
        users.set_groups(name, _groups(groups))
    click.echo(f"Groups of user '{name}' set.")


@mqpyuser.command("del")
@_qmgr
@_data_path
@click.argument("name")
def user_del(qmgr: str, data_path: str | None, name: str) -> None:
    users = _users(qmgr, data_path)
    with _user_errors():
        users.delete(name)
    click.echo(f"User '{name}' deleted.")


@mqpyuser.command("list")
@_qmgr
@_data_path
def user_list(qmgr: str, data_path: str | None) -> None:
    for e in _users(qmgr, data_path).load().values():
        pw = "password" if e.has_password else "no password"
        click.echo(f"{e.name:<12} {pw:<11} {','.join(e.groups)}")
