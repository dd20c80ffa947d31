"""The error-log messages a channel writes are IBM's, with IBM's meaning: the catalogue's
explanation of a message says what IBM's says, and a message id is never borrowed for
another event."""

from __future__ import annotations

from mqpy import amqmsgs


def test_given_the_catalogue_when_amq9565_is_read_then_it_does_not_say_the_channel_stopped():
    """Given AMQ9565E (No dead-letter queue defined), when its explanation is read, then it
    says IBM's: the queue manager does not have a defined dead-letter queue, and what to do;
    it does not claim the channel stopped (a fast non-persistent message is discarded with
    this message and the channel carries on)."""
    msg = amqmsgs.lookup("AMQ9565")
    assert msg.msgid == "AMQ9565E" and msg.text == "No dead-letter queue defined."
    assert "does not have a defined dead-letter queue" in msg.explanation
    assert "stopped" not in msg.explanation and "channel" not in msg.explanation.lower()
    assert "dead-letter queue" in msg.action
