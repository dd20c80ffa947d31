"""IBM MQ's administrative topic branch $SYS/MQ, where the queue manager publishes (resource
statistics, mqpy.monitor) and applications only subscribe. Pure checks the MQOPEN, MQSUB,
DEFINE / ALTER TOPIC and DISPLAY TPSTATUS paths call.

IBM's rules ("System topics for monitoring and activity trace", reason codes 2598, 3377):

1. The branch is every topic string at or below ``$SYS/MQ``; its root is the topic object
   SYSTEM.ADMIN.TOPIC (TOPICSTR('$SYS/MQ'), WILDCARD(BLOCK)), a default object.
2. No application publishes in it: MQOPEN for output and MQPUT1 of such a topic string fail
   with MQRC_ADMIN_TOPIC_STRING_ERROR (2598). The queue manager's own publisher delivers
   without MQOPEN and is not concerned.
3. A wildcard subscription made above ``$SYS/MQ`` (``#``, ``$SYS/#``, ``+/MQ/#``) matches no
   topic string in the branch -- live or retained publications -- as SYSTEM.ADMIN.TOPIC's
   WILDCARD(BLOCK) makes it (mqpy.pubsub.topictree rule 3), and so even without that object
   (deleted, or a queue manager made before it was a default object); DISPLAY TPSTATUS with
   wildcards above the branch shows none of its nodes.
4. Within the branch the use of wildcards is restricted: the topic-based scheme is allowed
   (IBM's own examples subscribe to ``$SYS/MQ/.../ChannelName/#``); a character-based
   wildcard subscription (MQSO_WILDCARD_CHAR) reaching into the branch is refused with 2598.
5. SYSTEM.ADMIN.TOPIC's WILDCARD is BLOCK and cannot be modified: DEFINE REPLACE or ALTER
   setting another value is refused with MQRCCF_TOPIC_RESTRICTED (3377).
6. The branch is isolated from what is set higher in the tree: authority to publish or
   subscribe in it comes only from topic objects at or below ``$SYS/MQ`` (what is granted
   on SYSTEM.BASE.TOPIC does not apply), and its topics' attributes resolve from those
   objects, then IBM's own values, never from a node above it or SYSTEM.BASE.TOPIC
   (mqpy.pubsub.topictree).
"""

from __future__ import annotations

from collections.abc import Mapping

from mqpy import CMQC, CMQCFC
from mqpy.pubsub import topicstrings

__all__ = ["ADMIN_ROOT", "ADMIN_TOPIC", "above_branch", "highest_level", "in_branch",
           "publish_error", "restricted_change", "shown_by_wildcard", "subscribe_error"]

ADMIN_TOPIC = "SYSTEM.ADMIN.TOPIC"
ADMIN_ROOT = "$SYS/MQ"
_ROOT_LEVELS = len(topicstrings.levels(ADMIN_ROOT))
#: SYSTEM.ADMIN.TOPIC's attributes that cannot be changed, with their only value (rule 5)
_FIXED = {"WILDCARD": "BLOCK"}


def in_branch(topic: str) -> bool:
    """Whether ``topic`` is at or below ``$SYS/MQ`` (rule 1)."""
    return topic == ADMIN_ROOT or topic.startswith(ADMIN_ROOT + topicstrings.SEPARATOR)


def publish_error(topic: str) -> int:
    """The reason MQOPEN for output / MQPUT1 of ``topic`` fails with, or 0 (rule 2)."""
    return CMQC.MQRC_ADMIN_TOPIC_STRING_ERROR if in_branch(topic) else 0


def subscribe_error(topic: str, scheme: int) -> int:
    """The reason MQSUB of ``topic`` in wildcard ``scheme`` fails with, or 0 (rule 4)."""
    if scheme != CMQC.MQWS_CHAR or not topicstrings.has_wildcard(topic, scheme):
        return 0
    fixed = topicstrings.fixed_prefix_levels(topic, scheme)
    if fixed >= _ROOT_LEVELS - 1 and in_branch(topic):
        return CMQC.MQRC_ADMIN_TOPIC_STRING_ERROR
    return 0


def highest_level(topic: str) -> int:
    """How many levels the highest topic object ``topic`` takes its attributes and authority
    from has: the branch's root for a topic in it, else any (rule 6)."""
    return _ROOT_LEVELS if in_branch(topic) else 1


def above_branch(published: str, qualified: int) -> bool:
    """Whether a wildcard subscription with ``qualified`` fixed leading levels is made above
    ``$SYS/MQ`` while ``published`` is in the branch: it does not match (rule 3)."""
    return qualified < _ROOT_LEVELS and in_branch(published)


def shown_by_wildcard(pattern: str, topic: str) -> bool:
    """Whether DISPLAY TPSTATUS(``pattern``), a wildcard, may show ``topic`` (rule 3): not a
    node of the branch unless the pattern is qualified down to ``$SYS/MQ``."""
    return not above_branch(topic, topicstrings.fixed_prefix_levels(pattern))


def restricted_change(name: str, attributes: Mapping[str, object]) -> int:
    """The PCF reason defining or altering topic object ``name`` with ``attributes`` is
    refused with, or 0 (rule 5)."""
    if name != ADMIN_TOPIC:
        return 0
    for key, value in _FIXED.items():
        if key in attributes and str(attributes[key]).strip().upper() != value:
            return CMQCFC.MQRCCF_TOPIC_RESTRICTED
    return 0
