"""IBM's REST API error bodies: ``{"error": [{"type", "msgId", "message", "explanation",
"action", "completionCode", "reasonCode"}]}`` with the HTTP status code mqweb answers, and
the MQWB messages mqweb's REST API uses (IBM's ids and message lines)."""

from __future__ import annotations

from typing import Any

import attrs

from mqpy import CMQC, CMQCFC, constants


@attrs.frozen
class MQWB:
    """One REST API message: id, message line (``{0}``... inserts), explanation, action."""

    msgid: str
    text: str
    explanation: str
    action: str


#: the MQWB messages this server answers with (IBM's ids and lines, MQWB00xx to MQWB03xx)
CATALOGUE = {m.msgid: m for m in (
    MQWB("MQWB0000E", "An unexpected exception {0} occurred.",
         "An exception was thrown which is not otherwise handled.",
         "Use the message from the exception to resolve the problem if possible."),
    MQWB("MQWB0009E", "Could not query the queue manager '{0}'.",
         "The REST API was invoked specifying a queue manager name which cannot be located.",
         "Resubmit the request with a valid queue manager name or no queue manager name, to "
         "retrieve a list of queue managers."),
    MQWB("MQWB0100E", "The CSRF header {0} was omitted from the request.",
         "The REST API request cannot be completed because the CSRF header was omitted.",
         "Resubmit the request with the correct CSRF header."),
    MQWB("MQWB0004E", "An internal error occurred while communicating with the queue "
         "manager. The root MQ reason code was {0} : {1}.",
         "The queue manager refused the request; the reason code says why.",
         "Look the reason code up (mqrc), correct the request and resubmit it."),
    MQWB("MQWB0103E", "Not authorized.",
         "The authenticated user is not authorized to perform the operation: not in a role "
         "that allows it, or without the object authority it needs.",
         "Resubmit the request as a user with the role and authority, or grant them."),
    MQWB("MQWB0300E", "Cannot create messaging connection to {0} on {1}.",
         "The queue manager or destination might not be created or active.",
         "Resubmit the request, correcting any issues."),
    MQWB("MQWB0302E", "The {0} request header cannot be set as {1} is not a valid request "
         "header value.",
         "The API request cannot be completed because an invalid value was specified for a "
         "request header.", "Resubmit the request using a valid header value."),
    MQWB("MQWB0303E", "An unforeseen error occurred while sending, publishing, receiving, or "
         "browsing the message.",
         "An underlying error occurred while sending, publishing, receiving, or browsing the "
         "message.", "Resubmit the request, correcting any issues."),
    MQWB("MQWB0306E", "The media type is unsupported for this type of request.",
         "The request attempted to use an unsupported media type.",
         "Resubmit the request with a supported media type."),
    MQWB("MQWB2004E", "The body of the request could not be parsed.",
         "The body of the HTTP request could not be parsed, possibly due to bad formatting "
         "of the data.", "Ensure the request contains valid data that matches the data format "
         "expected for the specified HTTP resource, HTTP method, and HTTP content type."),
    MQWB("MQWB2005E", "The {0} HTTP method is not allowed for the {1} resource request.",
         "A recognized resource request has been made, but it does not support the specified "
         "method.", "Update the request to specify a different resource or method."),
)}


class RestError(Exception):
    """A refusal: the HTTP status and the error body's one entry."""

    def __init__(self, status: int, msgid: str, *inserts: object, reason: int | None = None,
                 kind: str = "rest", headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.msgid = msgid
        self.inserts = inserts
        self.reason = reason
        self.kind = kind
        self.headers = headers or {}
        super().__init__(self.message)

    @property
    def message(self) -> str:
        m = CATALOGUE[self.msgid]
        return f"{m.msgid}: {m.text.format(*self.inserts)}"

    def body(self) -> dict[str, Any]:
        m = CATALOGUE[self.msgid]
        entry: dict[str, Any] = {"type": self.kind, "msgId": self.msgid,
                                 "message": self.message, "explanation": m.explanation,
                                 "action": m.action}
        if self.reason is not None:
            entry["completionCode"] = CMQC.MQCC_FAILED
            entry["reasonCode"] = self.reason
            entry["explanation"] = f"{m.explanation} MQ reason code: {self.reason}."
        return {"error": [entry]}


def reason_name(reason: int) -> str:
    return constants.lookup("MQRC_", reason) or constants.lookup("MQRCCF_", reason) \
        or str(reason)


#: reason codes of a refused command -> (HTTP status, MQWB message)
_NOT_FOUND = {CMQC.MQRC_UNKNOWN_OBJECT_NAME, CMQCFC.MQRCCF_CHANNEL_NOT_FOUND,
              CMQCFC.MQRCCF_OBJECT_NAME_ERROR}
_DENIED = {CMQC.MQRC_NOT_AUTHORIZED, CMQCFC.MQRCCF_COMMAND_ORIGIN_ERROR}


def from_reason(reason: int, name: str = "") -> RestError:
    """The REST refusal of a queue manager's reason code for object ``name``."""
    if reason in _DENIED:
        return RestError(403, "MQWB0103E", reason=reason, kind="pcf")
    if reason in (CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_Q_MGR_NAME_ERROR,
                  CMQC.MQRC_UNKNOWN_OBJECT_Q_MGR):
        return RestError(404, "MQWB0009E", name, reason=reason)
    status = 404 if reason in _NOT_FOUND else 409 \
        if reason == CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS else 400
    return RestError(status, "MQWB0004E", reason, reason_name(reason), reason=reason,
                     kind="pcf")
