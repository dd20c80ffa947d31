"""Message properties carried by MQPUT / MQGET in the three modes: the fixtures of tests.mqi."""

from tests.mqi._modes import connect, embedded, site  # noqa: F401
