"""MQ names in REST paths. IBM MQ names may hold '/' and '%' (and '.', '_'), so IBM's REST
API takes them percent-encoded ('/' as %2F, '%' as %25) inside one path segment. An ASGI
server hands the application the path already decoded, where an encoded '/' can no longer
be told from a separator; :class:`EncodedSegments` rebuilds the path from the raw one, each
segment decoded exactly once and then quoted again whole, and the ``mqname`` path
convertor gives each name back decoded (so a name holding the three characters "%2F" stays
so)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from starlette.convertors import Convertor, register_url_convertor

#: the paths whose segments are names (the REST API and the console's own data)
NAMED_PATHS = ("/ibmmq/rest/", "/ibmmq/console/api/")


def segment(name: str) -> str:
    """A name as one path segment."""
    return quote(name, safe="")


class MQNameConvertor(Convertor):
    """``{qmgr:mqname}``: one segment of the rebuilt path, decoded."""

    regex = "[^/]+"

    def convert(self, value: str) -> str:
        return unquote(value)

    def to_string(self, value: str) -> str:
        return segment(value)


register_url_convertor("mqname", MQNameConvertor())


class TopicStringConvertor(Convertor):
    """``{topic:topicstring}``: a topic string as IBM's messaging REST API takes it, its
    levels as path segments (``sport/football``), each decoded (a leading or trailing '/'
    given as %2F, '%' as %25, '?' as %3F)."""

    regex = ".+"

    def convert(self, value: str) -> str:
        return "/".join(unquote(level) for level in value.split("/"))

    def to_string(self, value: str) -> str:
        return "/".join(segment(level) for level in value.split("/"))


register_url_convertor("topicstring", TopicStringConvertor())


def rebuilt_path(raw_path: bytes) -> str:
    """The path with every segment decoded once and quoted again whole."""
    raw = raw_path.split(b"?", 1)[0].decode("latin-1")
    return "/".join(segment(unquote(part)) for part in raw.split("/"))


class EncodedSegments:
    """ASGI middleware: the named paths routed by their raw segments."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        raw = scope.get("raw_path") if scope["type"] == "http" else None
        if raw and scope["path"].startswith(NAMED_PATHS):
            scope = {**scope, "path": rebuilt_path(raw)}
        await self.app(scope, receive, send)
