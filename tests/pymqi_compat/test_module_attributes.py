"""The module attributes pymqi and ibmmq programs read before connecting: the build flag,
the library's version and the command level its MQI implements."""

from __future__ import annotations

import mqpy as pymqi
from mqpy import CMQC


def test_build_flag_says_common_so_programs_choose_their_connection():
    """Given mqpy imported as pymqi, when a program reads ``__mqbuild__`` (pymqi's test set-up
    does, choosing bindings for "server"), then it is ibmmq 2.x's "common": one library
    makes both bindings and client connections."""
    assert pymqi.__mqbuild__ == "common"


def test_version_and_command_level_are_there():
    """Given mqpy, then ``__version__`` is a dotted version string and ``__cmdlevel__`` the
    command level of the MQI it implements (MQCMDL_CURRENT_LEVEL, as ibmmq gives it)."""
    assert all(part.isdigit() for part in pymqi.__version__.split("."))
    assert pymqi.__cmdlevel__ == CMQC.MQCMDL_CURRENT_LEVEL
