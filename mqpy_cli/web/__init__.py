"""The mqweb server: IBM MQ's administrative and messaging REST API (v2 paths), Prometheus
metrics and a web console, served for every queue manager of one installation.

It is an MQI application of the queue managers it serves (PCF requests to the command server,
MQPUT and MQGET through mqpy's own MQI), so it needs nothing inside the daemon. Run by
``strmqweb`` as a process of its own (:mod:`mqpy_cli.web.server`), stopped by ``endmqweb``.
"""
