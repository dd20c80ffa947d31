"""runmqsc's messages, the parser's and the command processor's: ids and texts, declared once
(:func:`message` makes the line), and the error value the parser returns.

The parser never raises to its caller: a bad command becomes an :class:`MQSCError` value and
the script goes on with the next command, as ``runmqsc`` does. The command processor prints
``error.lines()`` where runmqsc would print its AMQ84xx block.

Where each id and text comes from: docs/mqsc-messages.md.
"""

from __future__ import annotations

import attrs

__all__ = [
    "AMQ8405",
    "AMQ8560I_SECURITY",
    "AMQ8424",
    "AMQ8425",
    "AMQ8426",
    "AMQ8427",
    "DISPLAY_HEADERS",
    "MESSAGES",
    "MQSCError",
    "RESPONSES",
    "message",
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
    "STGCLASS": "AMQ8933I",
    "QSTATUS": "AMQ8450I",
    "CONN": "AMQ8276I",
    "AUTHINFO": "AMQ8566I",
    "SERVICE": "AMQ8629I",
    "SVSTATUS": "AMQ8632I",
    "TOPIC": "AMQ8633I",
}

#: Every answer of the command processor: :data:`MESSAGES` and the outcomes of commands
#: (where each id comes from: docs/mqsc-messages.md).
RESPONSES: dict[str, str] = {
    **MESSAGES,
    "AMQ8005I": "IBM MQ queue manager changed.",
    "AMQ8007I": "IBM MQ queue deleted.",
    "AMQ8011I": "IBM MQ process deleted.",
    "AMQ8012I": "IBM MQ process changed.",
    "AMQ8015I": "IBM MQ channel deleted.",
    "AMQ8016I": "IBM MQ channel changed.",
    "AMQ8022I": "IBM MQ queue cleared.",
    "AMQ8101S": "IBM MQ error ({0}) has occurred.",
    "AMQ8633I": "Display topic details.",
    "AMQ8093I": "IBM MQ subscription deleted.",
    "AMQ8099I": "IBM MQ subscription status inquired.",
    "AMQ8723I": "Display pub/sub status details.",
    "AMQ8754I": "Display topic status details.",
    "AMQ8094I": "IBM MQ subscription created.",
    "AMQ8095I": "IBM MQ subscription changed.",
    "AMQ8690I": "IBM MQ topic created.",
    "AMQ8691I": "IBM MQ topic changed.",
    "AMQ8692I": "IBM MQ topic deleted.",
    "AMQ8135E": "Not authorized.",
    "AMQ8143E": "IBM MQ queue not empty.",
    "AMQ8146E": "IBM MQ queue manager not available.",
    "AMQ8148E": "IBM MQ object in use.",
    "AMQ8151E": "IBM MQ object has different type.",
    "AMQ8227E": "Channel {0} not found.",
    "AMQ8018I": "Start IBM MQ channel accepted.",
    "AMQ8878I": "Display channel authentication record details.",
    "AMQ8769E": "Cluster name and cluster namelist cannot both be specified.",
    "AMQ8884E": "Channel authentication record not found.",
    "AMQ8862I": "IBM MQ authority record set.",
    "AMQ8863I": "IBM MQ authority record deleted.",
    "AMQ8864I": "Display authority record details.",
    "AMQ8020I": "Ping IBM MQ channel complete.",
    "AMQ8023I": "IBM MQ channel reset.",
    "AMQ8019I": "Stop IBM MQ channel accepted.",
    "AMQ8021I": "Request to start IBM MQ Listener accepted.",
    "AMQ8706I": "Request to stop IBM MQ Listener accepted.",
    "AMQ8631I": "Display listener status details.",
    "AMQ8096I": "IBM MQ in-doubt message resolved for channel {0}.",
    "AMQ9528E": "Channel {0} is not in doubt.",
    "AMQ8276I": "Display Connection details.",
    "AMQ8458I": "IBM MQ connection stopped.",
    "AMQ8415I": "Ping IBM MQ queue manager command complete.",
    "AMQ8416E": "MQSC timed out waiting for a response from the command server.",
    "AMQ8450I": "Display queue status details.",
    "AMQ8551I": "IBM MQ namelist changed.",
    "AMQ8552I": "IBM MQ namelist created.",
    "AMQ8553I": "IBM MQ namelist deleted.",
    "AMQ8626I": "IBM MQ listener created.",
    "AMQ8627I": "IBM MQ listener deleted.",
    "AMQ8623I": "IBM MQ listener changed.",
    "AMQ8930I": "IBM MQ storage class created.",
    "AMQ8931I": "IBM MQ storage class deleted.",
    "AMQ8932I": "IBM MQ storage class changed.",
    "AMQ8933I": "Display storage class details.",
    "AMQ8563I": "IBM MQ authentication information object created.",
    "AMQ8564I": "IBM MQ authentication information object deleted.",
    "AMQ8567I": "IBM MQ authentication information changed.",
    "AMQ8566I": "Display authentication information details.",
    # clusters
    "AMQ8441I": "Display Cluster Queue Manager details.",
    "AMQ8559I": "Suspend Queue Manager Cluster accepted.",
    "AMQ8560I": "Resume Queue Manager Cluster accepted.",
    "AMQ8598I": "Refresh Cluster accepted.",
    "AMQ8599I": "Reset Cluster accepted.",
    # services
    "AMQ8625I": "IBM MQ service created.",
    "AMQ8624I": "IBM MQ service deleted.",
    "AMQ8628I": "IBM MQ service changed.",
    "AMQ8629I": "Display service information details.",
    "AMQ8632I": "Display service status details.",
    "AMQ8733I": "Request to start Service accepted.",
    "AMQ8732I": "Request to stop Service accepted.",
    "AMQ8934E": "A program of service '{0}' could not be run: {1}.",  # mqpy's own id
    # refusals
    "AMQ9502E": "Type of channel not suitable for action requested.",
    "AMQ7026E": "A principal or group name was invalid.",
    "AMQ8897E": "The IP address '{0}' is not valid.",  # mqpy's own id
    "AMQ8898E": "The IP address range '{0}' is not valid.",  # mqpy's own id
}

#: REFRESH SECURITY's answer, IBM's id and text (RESPONSES gives AMQ8560I to RESUME QMGR).
AMQ8560I_SECURITY = "AMQ8560I: IBM MQ security cache refreshed."


def message(msgid: str, *inserts: object) -> str:
    """``AMQ8147E: IBM MQ object Q1 not found.``"""
    return f"{msgid}: {RESPONSES[msgid].format(*inserts)}"


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
