"""pymqi's PCFExecute: PCF commands to a queue manager's command server, as a pymqi program
sends them.

``pcf = PCFExecute(qmgr)`` then ``pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.*"})``: the
command (any ``CMQCFC.MQCMD_*`` name) goes to SYSTEM.ADMIN.COMMAND.QUEUE as an MQFMT_ADMIN
request; its responses come back on a temporary dynamic queue made from
SYSTEM.DEFAULT.MODEL.QUEUE, matched by CorrelId, and are returned as pymqi returns them: one
dict per response message, ``{parameter id: value}`` (strings as bytes, lists as lists). A
response with a completion code other than MQCC_OK raises ``MQMIError(CompCode, Reason)``
(an MQRCCF_* reason, e.g. 3008 for a bad parameter), and no response within
``response_wait_interval`` milliseconds raises 2033, as in pymqi.

``args`` is a dict ``{parameter: value}`` -- an int becomes an MQCFIN, bytes or str an MQCFST,
a list of ints an MQCFIL, a list of strings an MQCFSL -- or a list of PCF structures
(``CFST(Parameter=..., String=...)``). ``filters`` is a list of ``Filter(selector).op(value)``
(pymqi's filter commands: less, equal, greater, not_less, not_equal, not_greater, like,
not_like, contains, excludes, contains_gen, excludes_gen).
"""

from __future__ import annotations

from collections.abc import Hashable
from types import ModuleType
from typing import Any

from mqpy import CMQC, CMQCFC, pcf
from mqpy.collected import collecting, ended_later, start_ender
from mqpy.constants import names
from mqpy.errors import Error, MQMIError, PYIFError
from mqpy.mqi import Queue, QueueManager
from mqpy.structs.tables import CFH, GMO, MD, OD, PMO

#: ibmmq's longest reply wait (ms), for a negative response_wait_interval
_AN_HOUR = 60 * 60 * 1000
_INPUT_OPTIONS = CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_AS_Q_DEF

__all__ = ["ByteString", "ByteStringFilter", "Filter", "FilterOperator", "IntegerFilter",
           "PCFExecute", "StringFilter"]

_OPERATORS = {
    "less": CMQCFC.MQCFOP_LESS, "equal": CMQCFC.MQCFOP_EQUAL,
    "greater": CMQCFC.MQCFOP_GREATER, "not_less": CMQCFC.MQCFOP_NOT_LESS,
    "not_equal": CMQCFC.MQCFOP_NOT_EQUAL, "not_greater": CMQCFC.MQCFOP_NOT_GREATER,
    "like": CMQCFC.MQCFOP_LIKE, "not_like": CMQCFC.MQCFOP_NOT_LIKE,
    "contains": CMQCFC.MQCFOP_CONTAINS, "excludes": CMQCFC.MQCFOP_EXCLUDES,
    "contains_gen": CMQCFC.MQCFOP_CONTAINS_GEN, "excludes_gen": CMQCFC.MQCFOP_EXCLUDES_GEN,
}


def _bytes(value: str | bytes, encoding: str = "utf8") -> bytes:
    return value.encode(encoding) if isinstance(value, str) else bytes(value)


class ByteString:
    """pymqi.ByteString: marks a value that travels as an MQCFBS (a byte string, such as a
    connection id), not as an MQCFST, in a PCF command's argument dict."""

    def __init__(self, value: bytes) -> None:
        self.value = value
        self.pymqi_byte_string = True

    def __len__(self) -> int:
        return len(self.value)


class _Filter:
    """One condition of a filter command: ``selector`` (an MQIA_* / MQCA_* id), ``value``,
    ``operator`` (MQCFOP_*). pymqi's base of StringFilter and IntegerFilter."""

    _pymqi_filter_type: str | None = None

    def __init__(self, selector: int, value: Any, operator: int) -> None:
        self.selector = selector
        self.value = value.encode("ascii") if isinstance(value, str) else value
        self.operator = operator

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} at {hex(id(self))} {self.selector}:{self.value!r}:"
                f"{self.operator}>")

    def structure(self) -> pcf.Parameter:
        raise NotImplementedError


class StringFilter(_Filter):
    """A string condition: an MQCFSF."""

    _pymqi_filter_type = "string"
    _structure_ = pcf.CFSF

    def structure(self) -> pcf.Parameter:
        if not isinstance(self.value, (bytes, bytearray)):
            raise TypeError(f"a {self._pymqi_filter_type} filter on {self.selector} needs "
                            f"bytes, not {self.value!r}")
        return self._structure_(self.selector, self.operator, bytes(self.value))


class ByteStringFilter(StringFilter):
    """A byte-string condition: an MQCFBF (ibmmq's, for an MQBA_* / MQBACF_* selector)."""

    _pymqi_filter_type = "bytestring"
    _structure_ = pcf.CFBF


class IntegerFilter(_Filter):
    """An integer condition: an MQCFIF."""

    _pymqi_filter_type = "integer"

    def structure(self) -> pcf.Parameter:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise TypeError(f"an integer filter on {self.selector} needs an int, not "
                            f"{self.value!r}")
        return pcf.CFIF(self.selector, self.operator, self.value)


class FilterOperator:
    """pymqi.FilterOperator(selector, operator_name): calling it with a value makes the
    StringFilter (MQCA_* selector) or IntegerFilter (MQIA_*) for ``Filter(sel).name(value)``.
    A selector of neither range, or an unknown operator name, is a pymqi ``Error``."""

    operator_mapping = _OPERATORS

    def __init__(self, selector: int, operator_name: str) -> None:
        if CMQC.MQIA_FIRST <= selector <= CMQC.MQIA_LAST:
            self.filter_cls: type[_Filter] = IntegerFilter
        elif CMQC.MQCA_FIRST <= selector <= CMQC.MQCA_LAST:
            self.filter_cls = StringFilter
        elif CMQC.MQBA_FIRST <= selector <= CMQC.MQBA_LAST:
            self.filter_cls = ByteStringFilter
        else:
            raise Error(f"selector [{selector}] is of an unsupported type (neither integer "
                        "nor a string attribute)")
        self.selector = selector
        operator = self.operator_mapping.get(operator_name)
        if operator is None:
            raise Error(f"Operator [{operator_name}] is not supported.")
        self.operator = operator

    def __call__(self, value: Any) -> _Filter:
        return self.filter_cls(self.selector, value, self.operator)


class Filter:
    """``Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(5)``: one condition of a filter command."""

    def __init__(self, selector: int) -> None:
        self.selector = selector

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return FilterOperator(self.selector, name)




class UnknownCommand(KeyError, AttributeError):  # noqa: N818 - what it says
    """``pcf.MQCMD_NO_SUCH()``: no MQCMD_* of that name in CMQCFC. pymqi's KeyError (its
    look-up in CMQCFC's dict), and the AttributeError an unknown attribute is."""

    def __str__(self) -> str:
        return str(self.args[0])


def _structure(parameter: int, value: Any, encoding: str) -> pcf.Parameter:
    if isinstance(parameter, bool) or not isinstance(parameter, int):
        raise TypeError(f"PCF parameter {parameter!r} is not a selector: use the int of "
                        "CMQC or CMQCFC (pymqi's packing of it fails too)")
    if isinstance(value, ByteString):
        return pcf.CFBS(parameter, _bytes(value.value, encoding))
    if isinstance(value, bool) or not isinstance(value, (int, str, bytes, list, tuple)):
        raise TypeError(f"PCF parameter {parameter}: {value!r} is not an int, a string "
                        "or a list of them")
    if isinstance(value, int):
        if parameter in pcf.ATTRS_LISTS:
            return pcf.CFIL(parameter, [value])
        return pcf.CFIN(parameter, value)
    if isinstance(value, (str, bytes)):
        return pcf.CFST(parameter, _bytes(value, encoding))
    if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return pcf.CFIL(parameter, list(value))
    if all(isinstance(v, (str, bytes)) for v in value):
        return pcf.CFSL(parameter, [_bytes(v, encoding) for v in value])
    raise TypeError(f"PCF parameter {parameter}: a list of ints or of strings, not {value!r}")


def _filter_structure(condition: Any) -> pcf.Parameter:
    """A filter as pymqi accepts them: Filter(...).op(value), or a CFIF / CFSF / CFBF."""
    if isinstance(condition, _Filter):
        return condition.structure()
    if isinstance(condition, pcf.FILTERS):
        return condition
    raise TypeError(f"a PCF filter must be Filter(selector).operator(value) or a CFIF, "
                    f"CFSF or CFBF, not {condition!r}")


def _as_read(p: pcf.Parameter) -> Any:
    """A parameter's value as pymqi reads it: a string or byte string with the bytes that
    pad it to a multiple of 4."""
    if isinstance(p, (pcf.CFST, pcf.CFBS, pcf.CFSF, pcf.CFBF)) and p.Pad:
        return p.value + p.Pad
    return p.value


def _pymqi_dict(params: list[pcf.Parameter], padded: bool = False) -> dict[int, Any]:
    """pymqi's shape of a response: {parameter: value}, a filter as (Operator, FilterValue),
    and every group as a list of dicts (one per MQCFGR of that id); ``padded``: strings as
    read, padding included (``PCFExecute.unpack``)."""
    value = _as_read if padded else (lambda p: p.value)
    out: dict[int, Any] = {}
    for p in params:
        if isinstance(p, pcf.CFGR):
            out.setdefault(p.Parameter, []).append(_pymqi_dict(p.Parameters, padded))
        elif isinstance(p, pcf.FILTERS):
            out[p.Parameter] = (p.Operator, value(p))
        else:
            out[p.Parameter] = value(p)
    return out


class _MQConst2String:
    """pymqi's constant-to-name table for parameter families (ibmmq's merge MQIA_, MQIACF_
    and MQIACH_, ...): ``table[value]`` is the name (KeyError when there is none; a
    family's _FIRST / _LAST bounds are not names) and ``value in table`` asks whether
    there is one.

    Programs make their own as pymqi's signature has it, ``_MQConst2String(CMQC, 'MQQT_')``
    (a module and one prefix): that table is pymqi's, every name of the module with the
    prefix, a later name winning for a value two share."""

    def __init__(self, *prefixes: Any) -> None:
        self._module = None
        if prefixes and isinstance(prefixes[0], ModuleType):  # pymqi's (module, prefix)
            self._module, prefixes = prefixes[0], prefixes[1:]
        self._prefixes: tuple[str, ...] = prefixes
        self._table: dict[Any, str] | None = None

    def _built(self) -> dict[Any, str]:
        table: dict[Any, str] = {}
        if self._module is not None:
            for name, value in vars(self._module).items():
                if name.startswith(self._prefixes) and isinstance(value, Hashable):
                    table[value] = name
            return table
        for prefix in self._prefixes:  # MQIA_'s name before MQIACF_'s for one value
            for name, value in names(prefix).items():
                if not name.endswith(("_FIRST", "_LAST")):  # range bounds name no one
                    table.setdefault(value, name)
        return table

    def __getitem__(self, code: Any) -> str:
        if self._table is None:
            self._table = self._built()
        if isinstance(code, (int, bytes)) and code in self._table:
            return self._table[code]
        raise KeyError(code)

    def __contains__(self, code: Any) -> bool:
        try:
            self[code]
        except (KeyError, TypeError):
            return False
        return True

    def has_key(self, code: Any) -> bool:
        return code in self


class _Command:
    def __init__(self, pcf_exec: PCFExecute, name: str) -> None:
        self._pcf = pcf_exec
        self._name = name

    def __call__(self, args: dict[int, Any] | list[Any] | None = None,
                 filters: list[Any] | None = None, *,
                 responses: list[Any] | None = None) -> list[Any]:
        """The command's responses as dicts; a failed one raises MQMIError. With ibmmq's
        ``responses`` list, that list is filled with (dict, its CFH) for every response
        and returned, and a failure is raised only after all are in it."""
        name = self._name.removeprefix("CMQCFC.")
        command = getattr(CMQCFC, name, None)
        if not isinstance(command, int):
            raise UnknownCommand(f"no PCF command {name}")
        if responses is None:
            return self._pcf._execute(command, args, filters)
        if not isinstance(responses, list):
            raise TypeError("responses must be a list")
        responses.clear()
        self._pcf._execute(command, args, filters, headers=responses)
        return responses

    def __getattr__(self, name: str) -> _Command:
        """``pcf.CMQCFC.MQCMD_PING_Q_MGR()``: pymqi resolves the dotted name at the call."""
        if name.startswith("_"):
            raise AttributeError(name)
        return _Command(self._pcf, f"{self._name}.{name}")


class PCFExecute(QueueManager):
    """pymqi.PCFExecute: ``PCFExecute(qmgr)`` (a connected QueueManager) or
    ``PCFExecute("QM1")`` (connects itself); then ``pcf.MQCMD_*(args, filters)``."""

    def __init__(self, name: Any = None, disconnect_on_exit: bool = True,
                 model_queue_name: bytes | str = b"SYSTEM.DEFAULT.MODEL.QUEUE",
                 dynamic_queue_name: bytes | str = b"PYMQPCF.*",
                 command_queue_name: bytes | str = b"SYSTEM.ADMIN.COMMAND.QUEUE",
                 response_wait_interval: int = 5000, convert: bool = False, *,
                 reply_queue_name: bytes | str | None = None,
                 reply_queue_open_options: int = CMQC.MQOO_INPUT_EXCLUSIVE,
                 command_queue: Queue | None = None, command_timeout: int = 0,
                 max_length: int | None = None) -> None:
        """pymqi's arguments, then ibmmq 2.x's (keywords): ``reply_queue_name`` (a queue to
        answer on, instead of a dynamic one made from ``model_queue_name``: naming both is
        PYIFError), ``reply_queue_open_options`` (an input option is added if none is
        given), ``command_queue`` (an open Queue the requests are put on),
        ``command_timeout`` (the requests' expiry in ms; 0: the wait interval's) and
        ``max_length`` (the reply buffer; None: any length). A negative
        ``response_wait_interval`` is an hour, as ibmmq makes it."""
        if model_queue_name and reply_queue_name:
            raise PYIFError("Do not specify both a model_queue_name and a reply_queue_name")
        if isinstance(name, QueueManager):
            super().__init__(None, disconnect_on_exit, bytes_encoding=name.bytes_encoding,
                             default_ccsid=name.default_ccsid)
            self.qm: QueueManager | None = name
        else:
            super().__init__(name, disconnect_on_exit)
            self.qm = None
            if disconnect_on_exit:
                start_ender()  # ends this connection if the collector frees this object
        self.command_queue_name = _bytes(command_queue_name)
        self.response_wait_interval = response_wait_interval if response_wait_interval >= 0 \
            else _AN_HOUR
        self.command_timeout = command_timeout
        self.max_length = max_length
        self._command_queue = command_queue
        #: pymqi's: each reply is got with MQGMO_CONVERT (into this connection's CCSID)
        self.convert = convert
        od = OD(ObjectName=_bytes(reply_queue_name or model_queue_name or b""),
                DynamicQName=_bytes(dynamic_queue_name))
        if not reply_queue_open_options & _INPUT_OPTIONS:
            reply_queue_open_options |= CMQC.MQOO_INPUT_EXCLUSIVE
        self._reply_queue: Queue | None = Queue(self._qmgr(), od, reply_queue_open_options)
        self.reply_queue_name: bytes | None = od.ObjectName.rstrip(b" \x00")

    def _qmgr(self) -> QueueManager:
        return self.qm if self.qm is not None else self

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("MQCMD_", "CMQCFC.")) or name == "CMQCFC":
            return _Command(self, name)
        raise AttributeError(name)

    def _execute(self, command: int, args: dict[int, Any] | list[Any] | None,
                 filters: list[Any] | None, *, headers: list[Any] | None = None
                 ) -> list[dict[int, Any]]:
        reply_queue = self._reply_queue
        if reply_queue is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        encoding = self.bytes_encoding
        if isinstance(args, dict):
            params = [_structure(k, v, encoding) for k, v in args.items()]
        else:
            params = list(args or [])
        params += [_filter_structure(f) for f in filters or []]
        request = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
        md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST,
                ReplyToQ=self.reply_queue_name,
                Expiry=max(1, (self.command_timeout or self.response_wait_interval) // 100),
                Report=CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG)
        pmo = PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
        if self._command_queue is not None:
            self._command_queue.put(request, md, pmo)
        else:
            self._qmgr().put1(self.command_queue_name, request, md, pmo)
        responses: list[dict[int, Any]] = []
        failed: MQMIError | None = None
        while True:
            gmo = GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
                      | CMQC.MQGMO_WAIT | (CMQC.MQGMO_CONVERT if self.convert else 0),
                      WaitInterval=self.response_wait_interval,
                      Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
            data = reply_queue.get(self.max_length, MD(CorrelId=md.MsgId), gmo)
            try:
                response = pcf.parse(data)
            except pcf.StructError as exc:  # a damaged reply: its MQRCCF_* reason, as unpack
                raise MQMIError(CMQC.MQCC_FAILED, exc.reason) from None
            header = response.header
            if header.CompCode != CMQC.MQCC_OK and failed is None:
                failed = MQMIError(header.CompCode, header.Reason)
            responses.append(_pymqi_dict(response.params))
            if headers is not None:
                headers.append((responses[-1], header))
            if header.Control == CMQCFC.MQCFC_LAST:
                break
        if failed is not None:
            raise failed
        return responses

    @staticmethod
    def stringify_keys(rawDict: dict[int, Any]) -> dict[Any, Any]:  # noqa: N803 - pymqi's
        """``rawDict`` with its keys as constant names (MQCA_Q_NAME, MQCACH_CHANNEL_NAME ...)
        where one is known: a string's from caStringDict, any other value's from
        iaStringDict."""
        out: dict[Any, Any] = {}
        for key, value in rawDict.items():
            table = PCFExecute.caStringDict if isinstance(value, bytes) \
                else PCFExecute.iaStringDict
            out[table[key] if key in table else key] = value
        return out

    stringifyKeys = stringify_keys  # noqa: N815 - pymqi's older name

    # pymqi's names; ibmmq 2.x's cover the PCF and channel ranges too
    iaStringDict = _MQConst2String("MQIA_", "MQIACF_", "MQIACH_")  # noqa: N815
    caStringDict = _MQConst2String("MQCA_", "MQCACF_", "MQCACH_")  # noqa: N815
    baStringDict = _MQConst2String("MQBACF_")  # noqa: N815 - ibmmq's

    @property
    def reply_queue(self) -> Queue | None:
        """The temporary dynamic queue the command server answers on (None once
        disconnected)."""
        return self._reply_queue

    @staticmethod
    def unpack(message: bytes) -> tuple[dict[int, Any], CFH]:
        """pymqi's ``PCFExecute.unpack``: one PCF message as ({parameter: value}, its MQCFH).
        A response whose CompCode is not MQCC_OK raises MQMIError(CompCode, Reason); a
        malformed message raises MQMIError(MQCC_FAILED, its MQRCCF_* reason)."""
        try:
            response = pcf.parse(message)
        except pcf.StructError as exc:
            raise MQMIError(CMQC.MQCC_FAILED, exc.reason) from None
        header = response.header
        if header.CompCode:
            raise MQMIError(header.CompCode, header.Reason)
        return _pymqi_dict(response.params, padded=True), header

    def disconnect(self) -> None:
        """Close the reply queue and forget it and its name (pymqi's); end the connection
        too if PCFExecute made it."""
        reply_queue, self._reply_queue = self._reply_queue, None
        self.reply_queue_name = None
        try:
            if reply_queue is not None and reply_queue.get_handle() is not None:
                reply_queue.close()  # (only while open, as pymqi: else MQDISC was not made)
        except MQMIError:
            pass
        if self.qm is None and self.is_connected:
            super().disconnect()

    def __del__(self) -> None:
        """pymqi's: a PCFExecute freed while connected closes its reply queue and ends the
        connection it made, at once when its last reference goes. Freed by the cycle
        collector (``mqpy.collected``), it makes no call: the reply queue of the program's
        connection is closed by that connection's next call (or its MQDISC), and a
        connection of its own is closed and ended by mqpy's ender thread."""
        if not getattr(self, "disconnect_on_exit", False) \
                or not getattr(self, "_reply_queue", None):
            return
        try:
            if collecting():
                self._collected()
            else:
                self.disconnect()
        except Exception:  # noqa: BLE001 - a finaliser must not raise
            pass

    def _collected(self) -> None:
        """The collector's disconnect: handed over, never made here."""
        reply_queue, self._reply_queue = self._reply_queue, None
        self.reply_queue_name = None
        if self.qm is not None:
            reply_queue.__del__()  # a Queue's collected close: by the connection's next call
            return
        hobj, reply_queue._hobj = reply_queue.get_handle(), None  # (not its own close)
        conn, self._conn = self._conn, None
        if conn is not None:
            ended_later(conn, () if hobj is None else (hobj,))
