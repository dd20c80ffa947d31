"""runmqsc's own messages: ids and texts, declared once, and the error value the parser returns.

The parser never raises to its caller: a bad command becomes an :class:`MQSCError` value and
the script goes on with the next command, as ``runmqsc`` does. The command processor prints
``error.lines()`` where runmqsc would print its AMQ84xx block.

Evidence for each id (IBM MQ 9 output seen in public transcripts and IBM's pages):

- AMQ8405I, AMQ8427I, AMQ8426I, AMQ8409I, AMQ8408I: confirmed (runmqsc transcripts, IBM's
  "Running MQSC commands interactively" page). The suffix letter of 8405/8426/8427 is ``I``
  in real 9.x output, even though they report errors.
- AMQ8424E: text confirmed from real error logs; suffix letter assumed.
- AMQ8425E ("Attribute value error."): id and text unconfirmed; used for values that are
  well formed but out of range or too long.
"""

from __future__ import annotations

import attrs

__all__ = [
    "AMQ8405",
    "AMQ8424",
    "AMQ8425",
    "AMQ8426",
    "AMQ8427",
    "DISPLAY_HEADERS",
    "MESSAGES",
    "MQSCError",
    "summary_lines",
]

AMQ8405 = "AMQ8405I"
AMQ8424 = "AMQ8424E"
AMQ8425 = "AMQ8425E"
AMQ8426 = "AMQ8426I"
AMQ8427 = "AMQ8427I"

#: message id -> text, exactly as runmqsc prints it after ``"<id>: "``.
MESSAGES: dict[str, str] = {
    AMQ8405: "Syntax error detected at or near end of command segment below:-",
    AMQ8424: "Error detected in a name keyword.",
    AMQ8425: "Attribute value error.",
    AMQ8426: "Valid MQSC commands are:",
    AMQ8427: "Valid syntax for the MQSC command:",
    # DISPLAY headers and common outcomes, for the command processor (confirmed ids).
    "AMQ8006I": "IBM MQ queue created.",
    "AMQ8008I": "IBM MQ queue changed.",
    "AMQ8010I": "IBM MQ process created.",
    "AMQ8014I": "IBM MQ channel created.",
    "AMQ8147E": "IBM MQ object {0} not found.",
    "AMQ8150E": "IBM MQ object already exists.",
    "AMQ8214E": "CONNAME parameter required with channel types SDR, RQSTR, CLNTCONN, "
    "CLUSSDR and CLUSRCVR.",
    "AMQ8407I": "Display Process details.",
    "AMQ8408I": "Display Queue Manager details.",
    "AMQ8409I": "Display Queue details.",
    "AMQ8414I": "Display Channel details.",
    "AMQ8417I": "Display Channel Status details.",
    "AMQ8420I": "Channel Status not found.",
    "AMQ8550I": "Display namelist details.",
    "AMQ8630I": "Display listener information details.",
    "AMQ8705I": "Display Queue Manager Status Details.",
}

#: objtype -> the message id that heads each object in DISPLAY output.
DISPLAY_HEADERS: dict[str, str] = {
    "QUEUE": "AMQ8409I",
    "QLOCAL": "AMQ8409I",
    "QALIAS": "AMQ8409I",
    "QREMOTE": "AMQ8409I",
    "QMODEL": "AMQ8409I",
    "PROCESS": "AMQ8407I",
    "QMGR": "AMQ8408I",
    "CHANNEL": "AMQ8414I",
    "CHSTATUS": "AMQ8417I",
    "NAMELIST": "AMQ8550I",
    "LISTENER": "AMQ8630I",
    "QMSTATUS": "AMQ8705I",
}


@attrs.frozen(slots=True)
class MQSCError:
    """A command that runmqsc would refuse, as a value.

    ``segment`` is the command text up to and including the token where the error was
    seen (runmqsc prints it under AMQ8405I); ``detail`` holds the lines that follow
    (AMQ8427I syntax help, AMQ8426I list of verbs).
    """

    msgid: str
    text: str
    line_no: int
    command_text: str
    segment: str | None = None
    detail: tuple[str, ...] = ()
    reason: str = ""  #: a short English reason for logs and tests; runmqsc does not print it

    def lines(self) -> list[str]:
        """The block runmqsc prints for this error."""
        out = [f"{self.msgid}: {self.text}"]
        if self.segment is not None:
            out.append(self.segment)
        if self.detail:
            out.append("")
            out.extend(self.detail)
        return out


def summary_lines(read: int, syntax_errors: int, failed: int = 0) -> list[str]:
    """The closing report of runmqsc (``One MQSC command read.`` ...)."""
    lines = ["One MQSC command read." if read == 1 else f"{read} MQSC commands read."]
    if syntax_errors == 0:
        lines.append("No commands have a syntax error.")
    elif syntax_errors == 1:
        lines.append("One command has a syntax error.")
    else:
        lines.append(f"{syntax_errors} commands have a syntax error.")
    if failed == 0:
        lines.append("All valid MQSC commands were processed.")
    elif failed == 1:
        lines.append("One valid MQSC command could not be processed.")
    else:
        lines.append(f"{failed} valid MQSC commands could not be processed.")
    return lines
