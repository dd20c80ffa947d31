"""Bad arguments answered as IBM's control commands answer them: the argument named in
AMQ7027E where there is one, the command's usage line, and its return code."""

from __future__ import annotations

from typing import Any

import click

MSG_BAD_ARGUMENT = "AMQ7027E: Argument {arg} supplied to command {command} is invalid."
#: IBM's return code for "invalid arguments supplied" (dspmq, dspmqinst ...) [M for the others]
RC_INVALID_ARGS = 36


class IBMCommand(click.Command):
    """A click command whose usage errors print IBM's lines and exit with ``rc``
    (``ibm_usage``: the usage line, "Usage: strmqm [-z] QMgrName")."""

    def __init__(self, *args: Any, ibm_usage: str, rc: int = RC_INVALID_ARGS,
                 **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", {"help_option_names": ["-h", "--help"]})
        super().__init__(*args, **kwargs)
        self.ibm_usage, self.rc = ibm_usage, rc

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            self.refuse(ctx, getattr(e, "option_name", None))
            raise  # (refuse exits)

    def refuse(self, ctx: click.Context, arg: str | None = None) -> None:
        """End the command as IBM's does for bad arguments: AMQ7027E naming ``arg`` (when
        one is to blame), the usage line, the return code."""
        if arg:
            click.echo(MSG_BAD_ARGUMENT.format(arg=arg, command=self.name), err=True)
        click.echo(self.ibm_usage, err=True)
        ctx.exit(self.rc)
