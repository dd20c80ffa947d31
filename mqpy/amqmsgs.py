"""The AMQ message catalogue for the queue manager's error logs (AMQERR01.LOG) and consoles.

Operators grep error logs for message ids and for the first line of IBM's wording
("AMQ9526E: Message sequence number error for channel 'TO.QM2'."), and monitoring products parse
the ArithInsert / CommentInsert header lines. So each message keeps IBM's id, severity letter and
message line, and declares which IBM insert slot carries which named value: ``arith`` names
<insert_1> and <insert_2> (integers, printed as ``ArithInsert1(..)``), ``comment`` names
<insert_3> to <insert_5> (strings, ``CommentInsert1..3(..)``). Explanations and actions are
written for mqpy: they name mqpy's commands and files, not IBM's support pages.

This module owns text only; :mod:`mqpy.errorlog` lays it out on disk. It never does I/O.

Evidence, per message, in a trailing comment:

- ``[C]`` message line confirmed in public material read while writing this (IBM error-log
  samples shipped as test data by Elastic's Filebeat ibmmq module, IBM technotes, IBM
  Knowledge Center excerpts, MQSeries::ErrorLog's table of 5.x texts).
- ``[M]`` id and message line from memory of IBM's catalogue; not confirmed: looked for in
  IBM's catalogue pages and in public error logs and transcripts, and not found there.
- ``[X]`` mqpy's own addition to IBM's explanation (the id and message line are IBM's).
"""

from __future__ import annotations

import string
from collections.abc import Mapping

import attrs

__all__ = [
    "AMQMessage",
    "InsertError",
    "MESSAGES",
    "Rendered",
    "SEVERITY",
    "lookup",
]

#: Severity letter -> IBM's severity number ("Reading a message", AMQ messages on Multiplatforms).
SEVERITY: dict[str, int] = {"I": 0, "W": 10, "E": 20, "S": 40, "T": 50}


class InsertError(ValueError):
    """A message was given inserts it does not declare, or lacks ones it needs."""


def _placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


@attrs.frozen(slots=True)
class Rendered:
    """One message with its inserts filled in: what an error-log entry prints."""

    msgid: str
    text: str
    explanation: str
    action: str
    arith: tuple[int, int]
    comment: tuple[str, str, str]


@attrs.frozen(slots=True)
class AMQMessage:
    """One catalogue entry: id with severity letter, templates with ``{name}`` placeholders.

    ``arith`` / ``comment`` map IBM's insert slots to names (None: slot unused); ``extra``
    names values used in the text that IBM's message has no slot for (text only).
    """

    msgid: str
    text: str
    explanation: str
    action: str = "None."
    arith: tuple[str | None, ...] = ()
    comment: tuple[str | None, ...] = ()
    extra: tuple[str, ...] = ()

    def __attrs_post_init__(self) -> None:
        if (len(self.msgid) != 8 or not self.msgid.startswith("AMQ")
                or not self.msgid[3:7].isdigit() or self.msgid[7] not in SEVERITY):
            raise ValueError(f"message id {self.msgid!r} is not AMQnnnnX")
        if len(self.arith) > 2 or len(self.comment) > 3:
            raise ValueError(f"{self.msgid}: IBM has 2 arithmetic and 3 comment inserts")
        used = set().union(*(_placeholders(t) for t in (self.text, self.explanation,
                                                          self.action)))
        undeclared = used - self.names
        if undeclared:
            raise ValueError(f"{self.msgid}: undeclared inserts {sorted(undeclared)}")

    @property
    def number(self) -> str:
        """The id without its severity letter (``AMQ9526``), as AMQ_DIAGNOSTIC_MSG_SEVERITY=0."""
        return self.msgid[:7]

    @property
    def severity(self) -> int:
        return SEVERITY[self.msgid[7]]

    @property
    def names(self) -> frozenset[str]:
        slots = (*self.arith, *self.comment, *self.extra)
        return frozenset(n for n in slots if n is not None)

    @property
    def fixed_explanation(self) -> bool:
        """Whether the explanation and action need no inserts, so that they can go with a
        message line composed elsewhere (``ErrorLog.write_event``)."""
        return not (_placeholders(self.explanation) | _placeholders(self.action))

    def render(self, inserts: Mapping[str, object]) -> Rendered:
        """Fill the templates; raise InsertError on a missing or unknown insert."""
        missing = self.names - inserts.keys()
        unknown = inserts.keys() - self.names
        if missing or unknown:
            raise InsertError(f"{self.msgid}: missing inserts {sorted(missing)}, "
                              f"unknown inserts {sorted(unknown)}")
        values = dict(inserts)
        try:
            for n in self.arith:
                if n is not None:
                    values[n] = int(values[n])  # type: ignore[call-overload]
        except (TypeError, ValueError) as exc:
            raise InsertError(f"{self.msgid}: arithmetic inserts {self.arith} must be "
                              f"integers") from exc
        arith = [0 if n is None else values[n] for n in self.arith]
        comment = ["" if n is None else str(values[n]) for n in self.comment]
        return Rendered(
            msgid=self.msgid,
            text=self.text.format_map(values),
            explanation=self.explanation.format_map(values),
            action=self.action.format_map(values),
            arith=tuple(arith + [0] * (2 - len(arith))),  # type: ignore[arg-type]
            comment=tuple(comment + [""] * (3 - len(comment))),  # type: ignore[arg-type]
        )


_RECORD = ("Record the values above, the error logs and any FDC files in the errors "
           "directory, and tell the systems administrator.")

# ------------------------------------------------------------------ queue manager life cycle

AMQ8001 = AMQMessage(  # [C] line, severity and <insert_5> (MQ 8.0 catalogue)
    "AMQ8001I", "IBM MQ queue manager created.",
    "IBM MQ queue manager {qmgr} created.",
    comment=(None, None, "qmgr"))
AMQ8003 = AMQMessage(  # [C] inserts as in IBM 9.1 logs: CommentInsert1(VRMF) CommentInsert3(QM)
    "AMQ8003I", "IBM MQ queue manager '{qmgr}' started using V{vrmf}.",
    "IBM MQ queue manager '{qmgr}' started using V{vrmf}.",
    comment=("vrmf", None, "qmgr"))
AMQ8004 = AMQMessage(  # [C]
    "AMQ8004I", "IBM MQ queue manager '{qmgr}' ended.",
    "IBM MQ queue manager '{qmgr}' ended.",
    comment=(None, None, "qmgr"))

# ------------------------------------------------------------------ restart and recovery

AMQ7064 = AMQMessage(  # [C] a public MQ setup script quotes it
    "AMQ7064E", "Log path not valid or inaccessible.",
    "The log path given to crtmqm (-ld) is not a directory that the queue manager can "
    "create and write its log in.",
    "Give crtmqm a log path that exists or can be created, on a file system with room for "
    "the log, writable by the user that runs the queue manager.")
AMQ7229 = AMQMessage(  # [C]
    "AMQ7229I", "{records} log records accessed on queue manager '{qmgr}' during the log "
                "replay phase.",
    "{records} log records have been accessed so far on queue manager {qmgr} during the log "
    "replay phase in order to bring the queue manager back to a previously known state.",
    arith=("records",), comment=("qmgr",))
AMQ7230 = AMQMessage(  # [C]
    "AMQ7230I", "Log replay for queue manager '{qmgr}' complete.",
    "The log replay phase of the queue manager restart process has been completed for queue "
    "manager {qmgr}.",
    comment=("qmgr",))
AMQ7231 = AMQMessage(  # [C]
    "AMQ7231I", "{records} log records accessed on queue manager '{qmgr}' during the recovery "
                "phase.",
    "{records} log records have been accessed so far on queue manager {qmgr} during the "
    "recovery phase of the transactions manager state.",
    arith=("records",), comment=("qmgr",))
AMQ7232 = AMQMessage(  # [C]
    "AMQ7232I", "Transaction manager state recovered for queue manager '{qmgr}'.",
    "The state of transactions at the time the queue manager ended has been recovered for "
    "queue manager {qmgr}.",
    comment=("qmgr",))
AMQ7233 = AMQMessage(  # [C]
    "AMQ7233I", "{resolved} out of {inflight} in-flight transactions resolved for queue "
                "manager '{qmgr}'.",
    "{resolved} transactions out of {inflight} in-flight at the time queue manager {qmgr} "
    "ended have been resolved. Transactions that were prepared (in doubt) stay in doubt "
    "until the transaction coordinator resolves them.",
    arith=("resolved", "inflight"), comment=("qmgr",))

# ------------------------------------------------------------------ checkpoint and log space

AMQ7467 = AMQMessage(  # [C] id and letter (IBM "Managing log files"); line (MQSeries::ErrorLog)
    "AMQ7467I", "The oldest log file required to start queue manager {qmgr} is {logfile}.",
    "The log file {logfile} contains the oldest log record required to restart the queue "
    "manager. Log records older than this are not needed for restart.",
    "Log files older than this one are no longer needed to restart the queue manager.",
    comment=("qmgr", "logfile"))
AMQ7468 = AMQMessage(  # [C] id (IBM "Managing log files"), line (MQSeries::ErrorLog); letter [M]
    "AMQ7468I", "The oldest log file required to perform media recovery of queue manager "
                "{qmgr} is {logfile}.",
    "The log file {logfile} contains the oldest log record required to recreate any of the "
    "objects of the queue manager from their media images.",
    "Log files older than this one are no longer needed for media recovery.",
    comment=("qmgr", "logfile"))
AMQ7463 = AMQMessage(  # [C]
    "AMQ7463W", "The log for queue manager {qmgr} is full.",
    "An attempt was made to write a log record, but the active log is full. MQI calls that "
    "need log space fail with MQRC_RESOURCE_PROBLEM (2102) until space is released; "
    "MQCMIT and MQBACK are still possible because space is reserved for them.",
    "Space is released when a checkpoint completes and long-running units of work commit "
    "or back out. If the message recurs, increase LogPrimaryFiles or LogSecondaryFiles in "
    "the Log stanza of qm.ini.",
    comment=("qmgr",))
AMQ7464 = AMQMessage(  # [M]
    "AMQ7464I", "The log for queue manager {qmgr} is no longer full.",
    "Log space has been released and log records can be written again.",
    comment=("qmgr",))
AMQ7465 = AMQMessage(  # [C] id; message line [M]
    "AMQ7465W", "The log for queue manager {qmgr} is full.",
    "The active log is full because a long-running unit of work has kept the oldest log "
    "record in use, so no log space could be released.",
    "Find the application holding the unit of work open (DISPLAY CONN with UOWLOGDA) and "
    "have it commit or back out. Consider larger log files.",
    comment=("qmgr",))
AMQ7466 = AMQMessage(  # [C] 5.x text
    "AMQ7466W", "The log for queue manager {qmgr} is too small to support the current data "
                "rate.",
    "Log records are being written faster than checkpoints can release log space.",
    "Increase the number or size of the log files in the Log stanza of qm.ini.",
    comment=("qmgr",))
AMQ7469 = AMQMessage(  # [C]
    "AMQ7469W", "Transactions rolled back to release log space.",
    "The log for queue manager {qmgr} filled up, and {count} long-running units of work "
    "were backed out to release log space. Their applications receive MQRC_BACKED_OUT "
    "(2003) on their next syncpoint call.",
    "Change the applications so that units of work are shorter.",
    arith=("count",), comment=("qmgr",))

# ------------------------------------------------------------------ qm.ini

AMQ8940 = AMQMessage(  # [X] mqpy's own id: IBM's for a bad qm.ini value was not found
    "AMQ8940E", "The configuration file of queue manager {qmgr} is not valid.",
    "In {path}, {setting} is not {wanted}. The queue manager {qmgr} did not start.",
    "Correct the value in qm.ini (or remove it: IBM's default is used) and start the queue "
    "manager again.",
    arith=("low", "high"), comment=("qmgr", "path", "setting"), extra=("wanted",))

# ------------------------------------------------------------------ damaged log or pageset

AMQ7017 = AMQMessage(  # [C] id and line (IBM APARs, ibm-messaging/mq-container's README);
    # severity letter [M] (one public guide writes AMQ7017E); [X] explanation
    "AMQ7017S", "Log not available.",
    "The queue manager could not use its log: the log record at offset {offset} of log "
    "file {logfile} (LSN {lsn}) is damaged. Restart cannot continue past a damaged "
    "record, so the queue manager {qmgr} did not start.",
    "Restore the log file from a backup, or recreate the queue manager. Do not delete log "
    "files by hand.",
    arith=("offset", "lsn"), comment=("qmgr", "logfile"))
AMQ6767 = AMQMessage(  # [C] id for a missing log file (IBM's "media recovery" text, quoted
    # in public notes: "operator message AMQ6767 is issued"); line and letter [M]
    "AMQ6767E", "Log file {logfile} could not be opened for use.",
    "The log file {logfile} could not be opened: {detail}. It may be missing, not readable "
    "by this user, or its contents may be incorrect.",
    "Make sure the log file exists and can be read and written by the queue manager's "
    "user, then start the queue manager again.",
    comment=("logfile", "detail"))
AMQ7001 = AMQMessage(  # [C] id, letter and line (MQ 8 / 9.2 catalogue: "... or there may
    # be a problem with authorization"); [X] the permissions explanation
    "AMQ7001S", "The location specified for the queue manager is not valid.",
    "Users other than the owner and group of queue manager {qmgr}'s data may read or write "
    "{path} (mode {mode}){more}. Queue manager data is for the owner and the group only "
    "(files 0660, directories 0770), so the queue manager did not start.",
    "Remove the other users' permissions (chmod -R o-rwx on the queue manager directory "
    "and its log path) and start the queue manager again.",
    comment=("qmgr", "path", "mode"), extra=("more",))
AMQ7002 = AMQMessage(  # [C] id and line (MQ 8 catalogue); [X] pageset wording
    "AMQ7002S", "An error occurred manipulating a file.",
    "The queue manager {qmgr} could not use the pageset file {path} at offset {offset}: "
    "{detail}. At restart the queue manager does not start; while it runs, its checkpoint "
    "is not written: the log keeps everything since the last one and the next checkpoint "
    "tries again, until the log is full (MQRC_RESOURCE_PROBLEM).",
    "Check that the file system holding the queue manager directory is mounted, not full "
    "and writable; restore the pageset from a backup if it is damaged.",
    arith=("offset",), comment=("qmgr", "path", "detail"))
AMQ7472 = AMQMessage(  # [C] 5.x text
    "AMQ7472W", "Object {object}, type {objtype} damaged.",
    "The object {object} of type {objtype} has been marked as damaged: the queue manager "
    "found its stored form unreadable.",
    "Delete the object and define it again, or restore it from a media image.",
    comment=("object", "objtype"))
AMQ6708 = AMQMessage(  # [C] 5.x text
    "AMQ6708E", "A disk full condition was encountered when formatting a new log file in "
                "location {location}.",
    "The queue manager tried to create a new log file in {location}, but there was not "
    "enough space on the disk.",
    "Make more space available in the log directory, or reduce the number of log files.",
    comment=("location",))

# ------------------------------------------------------------------ channels

AMQ9001 = AMQMessage(  # [C]
    "AMQ9001I", "Channel '{channel}' ended normally.",
    "Channel '{channel}' to host '{host}' ended normally.",
    comment=("channel", None, "host"))
AMQ9002 = AMQMessage(  # [C]
    "AMQ9002I", "Channel '{channel}' is starting.",
    "Channel '{channel}' is starting.",
    comment=("channel",))
AMQ9202 = AMQMessage(  # [C] line; explanation paraphrased
    "AMQ9202E", "Remote host '{host}' not available, retry later.",
    "The attempt to allocate a conversation using TCP/IP to host '{host}' for channel "
    "{channel} was not successful. The error may be transitory, and a later attempt may "
    "succeed.",
    "Try the connection again later. If the failure persists, record the error values and "
    "contact your systems administrator. The return code from TCP/IP is {rc} (X'{rc:X}'). "
    "This host may not be able to reach the destination host, or no listener may be "
    "running at '{host}'.",
    arith=("rc",), comment=(None, "host", "channel"))
AMQ9208 = AMQMessage(  # [C]
    "AMQ9208E", "Error on receive from host '{host}'.",
    "An error occurred receiving data from '{host}' over TCP/IP. This may be due to a "
    "communications failure.",
    "The return code from the TCP/IP recv() call was {rc} (X'{rc:X}'). " + _RECORD,
    arith=("rc",), comment=(None, "host"))
AMQ9209 = AMQMessage(  # [C]
    "AMQ9209E", "Connection to host '{host}' for channel '{channel}' closed.",
    "An error occurred receiving data from '{host}' over TCP/IP. The connection to the "
    "remote host has unexpectedly terminated.",
    "Tell the systems administrator.",
    comment=("channel", "host"))
AMQ9213 = AMQMessage(  # [C]
    "AMQ9213E", "A communications error for TCP/IP occurred.",
    "An unexpected error occurred in communications.",
    "The return code from the TCP/IP {call} call was {rc} (X'{rc:X}'). " + _RECORD,
    arith=("rc",), comment=("call",))
AMQ9218 = AMQMessage(  # [C] MQSeries::ErrorLog's table
    "AMQ9218E", "The TCP/IP listener program could not bind to port number {port}.",
    "An attempt to bind the TCP/IP socket to the listener's port failed: another program "
    "(often another listener) is using the port, or the address to listen on is not one "
    "of this host's.",
    "End the program using the port, or give the listener another PORT (and the channels "
    "that reach it the new CONNAME), or an IPADDR of this host.",
    arith=("port",))
AMQ9228 = AMQMessage(  # [C]
    "AMQ9228E", "The TCP/IP responder program could not be started.",
    "An attempt was made to start an instance of the responder program, but the program "
    "was rejected: {reason}.",
    "The failure could be because the subsystem has not been started, or because too many "
    "channels are running. Tell the systems administrator.",
    comment=("reason",))
AMQ9271 = AMQMessage(  # [C] used when 2 x HBINT passes with nothing received
    "AMQ9271E", "Channel '{channel}' timed out.",
    "A timeout occurred while waiting to receive from the other end of channel "
    "'{channel}'. The address of the remote end of the connection was '{host}'.",
    "The channel waited {seconds} seconds. " + _RECORD,
    arith=("seconds",), comment=("channel", "host"))
AMQ9502 = AMQMessage(  # [C]
    "AMQ9502E", "Type of channel not suitable for action requested.",
    "The operation requested cannot be performed on channel '{channel}'. Some operations "
    "are only valid for certain channel types; for example, a channel can only be pinged "
    "from the end sending the messages.",
    "Check that the channel name is specified correctly. If it is, check that the channel "
    "has been defined correctly.",
    comment=("channel",))
AMQ9503 = AMQMessage(  # [C]
    "AMQ9503E", "Channel negotiation failed.",
    "Channel '{channel}' between this queue manager and the remote queue manager could not "
    "be established due to a negotiation failure: {reason}.",
    "Tell the systems administrator, who should check the channel definitions at both "
    "ends (channel names are case sensitive, and the types and sequence number wrap "
    "values must match).",
    comment=("channel", "reason"))
AMQ9506 = AMQMessage(  # [C]
    "AMQ9506E", "Message receipt confirmation failed.",
    "Channel '{channel}' has ended because the remote queue manager did not accept the "
    "last batch of messages.",
    "The error log for the channel at the remote site will contain an explanation of the "
    "failure. Contact the remote systems administrator.",
    comment=("channel",))
AMQ9507 = AMQMessage(  # [C]
    "AMQ9507E", "Channel '{channel}' is currently in-doubt.",
    "The requested operation cannot complete because the channel is in-doubt with host "
    "'{host}'.",
    "Examine the status of the channel, and either restart it to resolve the in-doubt "
    "state, or use RESOLVE CHANNEL to correct the problem manually.",
    comment=("channel", "host"))
AMQ9508 = AMQMessage(  # [C]
    "AMQ9508E", "Program cannot connect to the queue manager.",
    "The connection attempt to queue manager '{qmgr}' failed with reason code {reason}.",
    "Ensure that the queue manager is available and running.",
    arith=("reason",), comment=(None, "qmgr"))
AMQ9509 = AMQMessage(  # [C]
    "AMQ9509E", "Program cannot open queue manager object.",
    "The attempt to open either the queue or queue manager object '{object}' on queue "
    "manager '{qmgr}' failed with reason code {reason}.",
    "Ensure that the queue is available and retry the operation.",
    arith=("reason",), comment=(None, "object", "qmgr"))
AMQ9519 = AMQMessage(  # [C]
    "AMQ9519E", "Channel '{channel}' not found.",
    "The requested operation failed because the program could not find a definition of "
    "channel '{channel}'.",
    "Check that the name is specified correctly and the channel definition is available.",
    comment=("channel",))
AMQ9520 = AMQMessage(  # [C]
    "AMQ9520E", "Channel not defined remotely.",
    "There is no definition of channel '{channel}' at the remote location.",
    "Add an appropriate definition to the remote queue manager's channels and retry the "
    "operation. Channel names are case sensitive.",
    comment=("channel",))
AMQ9524 = AMQMessage(  # [C] 5.x text
    "AMQ9524E", "Remote queue manager unavailable.",
    "Channel '{channel}' cannot start because the remote queue manager is not currently "
    "available.",
    "Either start the remote queue manager, or retry the operation later.",
    comment=("channel",))
AMQ9526 = AMQMessage(  # [C]
    "AMQ9526E", "Message sequence number error for channel '{channel}'.",
    "The local and remote queue managers do not agree on the next message sequence "
    "number. A message with sequence number {sent} has been sent when sequence number "
    "{expected} was expected. The remote host is '{host}'.",
    "Determine the cause of the inconsistency. It could be that the synchronization "
    "information has become damaged, or has been backed out to a previous version. If the "
    "situation cannot be resolved, the sequence number can be reset manually at the "
    "sending end of the channel using the RESET CHANNEL command.",
    arith=("sent", "expected"), comment=("channel", "host"))
AMQ9527 = AMQMessage(  # [C]
    "AMQ9527E", "Cannot send message through channel '{channel}'.",
    "The channel has closed because the remote queue manager cannot receive a message.",
    "Contact the systems administrator who is responsible for the remote queue manager.",
    comment=("channel",))
AMQ9528 = AMQMessage(  # [C]
    "AMQ9528I", "User requested closure of channel '{channel}'.",
    "The channel is closing because of a request by the user.",
    comment=("channel",))
# [C] line; explanation with its PID sentence (MQSeries::ErrorLog); severity letter [M]; the
# PID's insert slot is not known, so it is text only (extra)
AMQ9544 = AMQMessage(
    "AMQ9544W", "Messages not put to destination queue.",
    "During the processing of channel '{channel}' one or more messages could not be put "
    "to the destination queue and attempts were made to put them to a dead-letter queue. "
    "The location of the queue is {location}, where 1 is the local dead-letter queue and 2 "
    "is the remote dead-letter queue. The program identifier (PID) of the processing "
    "program was '{pid}'.",
    "Examine the contents of the dead-letter queue. Each message is contained in a "
    "structure (MQDLH) that describes why it was put to the queue and where it was "
    "originally addressed.",
    arith=("location",), comment=("channel",), extra=("pid",))
AMQ9545 = AMQMessage(  # [C]
    "AMQ9545I", "Disconnect interval expired.",
    "Channel '{channel}' closed because no messages arrived on the transmission queue "
    "within the disconnect interval period.",
    comment=("channel",))
AMQ9558 = AMQMessage(  # [C]
    "AMQ9558E", "The remote channel '{channel}' on host '{host}' is not currently "
                "available.",
    "The channel program ended because an instance of channel '{channel}' could not be "
    "started on the remote system: the channel may be stopped or its limit reached.",
    "Check the remote system, start the channel there if it is stopped, and retry.",
    comment=("channel", "host"))
# [M] IBM's explanation names only the queue manager: what follows (a discard, or the
# channel's end, AMQ9999E) is said by the entry's own text, never by this message
AMQ9565 = AMQMessage(
    "AMQ9565E", "No dead-letter queue defined.",
    "The queue manager '{qmgr}' does not have a defined dead-letter queue.",
    "Either correct the problem that caused the program to try and write a message to the "
    "dead-letter queue or create a dead-letter queue for the queue manager (ALTER QMGR "
    "DEADQ).",
    comment=(None, "qmgr"))
AMQ9999 = AMQMessage(  # [C]
    "AMQ9999E", "Channel '{channel}' to host '{host}' ended abnormally.",
    "The channel program running under process ID {pid} for channel '{channel}' ended "
    "abnormally. The host name is '{host}'; in some cases the host name cannot be "
    "determined and so is shown as '????'.",
    "Look at previous error messages for the channel program in the error logs to "
    "determine the cause of the failure.",
    arith=("pid",), comment=("channel", "host"))
AMQ9776 = AMQMessage(  # [C] id, letter, line, explanation, action (IBM error-log entries quoted)
    "AMQ9776E", "Channel was blocked by userid",
    "The inbound channel '{channel}' was blocked from address '{address}' because the "
    "active values of the channel were mapped to a userid which should be blocked. The "
    "active values of the channel were '{values}'.",
    "Contact the systems administrator, who should examine the channel authentication "
    "records to ensure that the correct settings have been configured.",
    comment=("channel", "address", "values"))
AMQ9777 = AMQMessage(  # [C] line and explanation (IBM APAR text), letter (IBM Cloud MQ docs)
    "AMQ9777E", "Channel was blocked",
    "The inbound channel '{channel}' was blocked from address '{address}' because the "
    "active values of the channel matched a record configured with USERSRC(NOACCESS). The "
    "active values of the channel were '{values}'.",
    "Contact the systems administrator, who should examine the channel authentication "
    "records to ensure that the correct settings have been configured.",
    comment=("channel", "address", "values"))
AMQ9557 = AMQMessage(  # [C] IBM's line, severity, explanation (MQ 9.1 log; APAR IT22990)
    "AMQ9557E", "Queue Manager User ID initialization failed for '{user}'.",
    "The call to initialize the User ID '{user}' failed with CompCode 2 and Reason 2035. "
    "If an MQCSP block was used, the User ID in the MQCSP block was '{csp}'. If a userID "
    "flow was used, the User ID in the UID header was '{uid}' and any CHLAUTH rules "
    "applied prior to user adoption were evaluated case-sensitively against this value.",
    "Correct the error and try again: an MQ user ID is at most 12 characters of A-Z, a-z, "
    "0-9 and _ . @ $ # - with no blanks.",
    comment=("user", "csp", "uid"))
AMQ5534 = AMQMessage(  # [C] id and letter (public reports of AMQ5534E); line [M]
    "AMQ5534E", "User ID '{user}' authentication failed",
    "The user ID and password supplied by '{appl}' could not be authenticated.",
    "Ensure that the correct user ID and password are provided by the application, and "
    "that the authentication repository is correctly configured.",
    comment=("user", "appl"))

# ------------------------------------------------------------------ internal errors

# [C] explanation's first sentence and its slot, <insert_4> (MQ 5.x text, MQSeries::ErrorLog);
# [C] line (IBM's line, "error (80F) has occurred", in a Chinese runmqsc transcript) and
# letter ("AMQ8101S" in a public note)
AMQ8101 = AMQMessage(
    "AMQ8101S", "IBM MQ error ({code}) has occurred.",
    "An unexpected reason code with hexadecimal value {code} was received from the queue "
    "manager during command processing. Hexadecimal values X'07D1' to X'0BB7' are MQI "
    "reason codes 2001 to 2999.",
    "Correct the error and then try the command again.",
    comment=(None, "code"))
AMQ6119 = AMQMessage(  # [C] line (IBM APAR IV90040 FDC text); severity letter [M]
    "AMQ6119S", "An internal IBM MQ error has occurred ({detail})",
    "An unexpected error occurred when calling the operating system: {detail}. The error "
    "recording routine has been called.",
    "Save the FDC files written to the errors directory and the error logs, and report "
    "the problem.",
    comment=("detail",))
# [C] line (IBM APAR IV90040 FDC text), explanation's "with identifier" (MQSeries::ErrorLog);
# severity letter [M]; [X] IBM's identifier is a number, <insert_1>: mqpy's probe id is a
# string, so it is CommentInsert1
AMQ6125 = AMQMessage(
    "AMQ6125E", "An internal IBM MQ error has occurred.",
    "An internal error has occurred with identifier {probe}. This message is issued in "
    "association with other messages.",
    "Save the FDC files written to the errors directory and the error logs, and report "
    "the problem.",
    comment=("probe",))
# [C] "The failing process is process <pid>." (MQSeries::ErrorLog); line [M]; [X] the FDC
# file and probe in the explanation
AMQ6183 = AMQMessage(
    "AMQ6183W", "An internal IBM MQ error has occurred.",
    "An error has been detected, and the error recording routine has been called. The "
    "failing process is process {pid}. The failure was recorded with probe {probe} in "
    "file {fdc}.",
    "Save the FDC file named above and the error logs; do not discard them until the "
    "problem has been resolved.",
    arith=("pid",), extra=("probe", "fdc"))
AMQ6184 = AMQMessage(  # [C] line and inserts; [X] the FDC file and probe in the explanation
    "AMQ6184W", "An internal IBM MQ error has occurred on queue manager {qmgr}.",
    "An error has been detected, and the error recording routine has been called. The "
    "failing process is process {pid}. The failure was recorded with probe {probe} in "
    "file {fdc}.",
    "Save the FDC file named above and the error logs; do not discard them until the "
    "problem has been resolved.",
    arith=("pid",), comment=("qmgr",), extra=("probe", "fdc"))


#: Every message by id (with severity letter).
MESSAGES: dict[str, AMQMessage] = {
    m.msgid: m for m in globals().copy().values() if isinstance(m, AMQMessage)
}


def lookup(msgid: str) -> AMQMessage:
    """Find a message by ``AMQ9526E`` or ``AMQ9526``; KeyError if unknown."""
    if msgid in MESSAGES:
        return MESSAGES[msgid]
    for m in MESSAGES.values():
        if m.number == msgid:
            return m
    raise KeyError(msgid)
