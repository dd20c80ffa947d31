"""The switch of the engine's fast paths and what they answer.

MQPUT and MQGET each have a fast path for the usual call (``PutCalls._put_fast``,
``GetCalls._get_fast``, and ``engine.packed`` for a channel's packed MQMDs) beside the general
path that checks and does everything. A fast path either does the whole call or answers
:data:`GENERAL` having changed nothing, and the general path then does it.
"""

from __future__ import annotations

#: The fast paths serve the usual calls; False sends every call down the general path (the
#: tests compare the two).
ENABLED = True
GENERAL = object()  # what a fast path returns for a call it leaves to the general path
NO_MESSAGE = object()  # what _get_fast returns when no message can be had (2033)
