"""A TSH flags byte read through the tables of flag objects (made when a value is first seen,
not for all 256 values at import) gives the same flags as building them."""

from __future__ import annotations

import pytest

from mqpy.fap.tsh import EVENT_FLAGS1, FIRST_LAST, FLAGS1, FLAGS2, ControlFlags1, ControlFlags2


def test_given_every_byte_value_then_the_tables_give_the_flags_built_from_it():
    for value in range(256):
        assert FLAGS1[value] == ControlFlags1(value) and type(FLAGS1[value]) is ControlFlags1
        assert FLAGS2[value] == ControlFlags2(value) and type(FLAGS2[value]) is ControlFlags2
        assert EVENT_FLAGS1[value] == ControlFlags1(value & ~FIRST_LAST)
        assert FLAGS1[value] is FLAGS1[value]  # made once, then kept


@pytest.mark.parametrize("value", [-1, 256])
def test_given_a_value_that_is_not_a_byte_then_it_is_an_index_error(value):
    with pytest.raises(IndexError):
        FLAGS1[value]
