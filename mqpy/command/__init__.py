"""The command server's PCF commands (:mod:`mqpy.cmdserver` gets the requests and answers
them): :mod:`~mqpy.command.requests` (a request's parameters and its responses),
:mod:`~mqpy.command.inquiries` (the Inquire commands of queues, channels and status),
:mod:`~mqpy.command.changes` (Create, Change, Copy, Delete of queues and channels, Change
Queue Manager and the control commands), :mod:`~mqpy.command.objects` (every verb on
namelists, processes, listeners, services and authentication information),
:mod:`~mqpy.command.security` (authority and CHLAUTH records),
:mod:`~mqpy.command.connections` (Inquire Connection), :mod:`~mqpy.command.clusters` and
:mod:`~mqpy.command.authority` (the authorities a request needs). Each runs on the MQSC
processor's structured entries: objects, views and rows, never MQSC text."""

#: the queue the command server reads its requests from (runmqsc and PCF programs put to it)
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
