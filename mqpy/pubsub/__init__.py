"""Publish/subscribe (IBM MQ's integrated publish/subscribe engine).

One MQ concept a module: ``topicstrings`` (topic strings, their levels and how a
subscription's topic, with its wildcards, matches a publication's: pure), ``topictree``
(administrative TOPIC objects as the nodes of the topic tree and the ASPARENT resolution
of their attributes up to SYSTEM.BASE.TOPIC: pure), ``subscription`` (a subscription's
record, as a durable one is kept in the object catalogue), ``registry`` (the queue
manager's subscriptions and retained publications), ``handles`` (the object handles of an
open topic and of a subscription), ``publication`` (MQPUT / MQPUT1 to a topic: a copy for
each matching subscription, in the publisher's unit of work), ``mqsub`` (MQSUB, MQSUBRQ and
the MQCLOSE of a subscription handle).
"""
