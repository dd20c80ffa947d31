"""A command of mqpy_cli run in this process as an operator types it (click's CliRunner), with
the data path of the test's installation."""

from __future__ import annotations

from click.testing import CliRunner


def run(cmd, *args: str, root: str):
    return CliRunner().invoke(cmd, [*args, "--data-path", root], catch_exceptions=False)
