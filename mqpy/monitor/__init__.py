"""Resource usage statistics published on IBM's system topics, as a queue manager of IBM MQ
publishes them for amqsrua, the MQ Console's charts and mq_prometheus.

``elements`` (the classes, types and elements published: a declarative table),
``topics`` (the ``$SYS/MQ/INFO/QMGR/<qmgr>/Monitor/...`` topic strings and which of them a
subscription asks for), ``publications`` (the PCF messages: metadata and data; pure),
``counters`` (cumulative figures from the engine's statistics counters, and each
interval's values), ``platform`` (CPU, memory and disk figures of this machine and
process) and ``publisher`` (the queue manager's task that publishes every monitor
interval, only on the topics someone subscribes to).
"""
