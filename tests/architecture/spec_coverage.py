"""The spec digests' numbered behaviours and which of them a test names: read from the files.

A behaviour is one numbered item of a digest (``/work/shared/spec/<document>.md``, or the
folder named by ``MQPY_SPEC_DIR``). In the acceptance section (``## N. Acceptance ...``) its id
is ``<document> <N>.<number>``, e.g. ``dqm-intercommunication 9.31``; elsewhere (the name
resolution rules, the DLQ handler's syntax rules, the five uses of a QM alias, ...) it is
``<document> <section> item <number>``, where ``rule``, ``use`` or ``step`` may stand for
``item`` (``aliases-channels-storage 1 use 5``). A test names it by ``spec:`` and the id in a
docstring or comment; several ids may follow one ``spec:``, separated by ``;`` or ``,``, and an
id without its document belongs to the document named before it. ``docs/spec-coverage.md`` lists the behaviours that do not apply
or are not built, one a line as ``- <id>: <reason>`` under a heading that says which.
Pure: files in, sets out; nothing is imported or run.

Run ``python -m tests.architecture.spec_coverage`` for the figure and the lists.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import attrs

#: where the digests live, next to the worktrees
SPEC_DIR = os.environ.get("MQPY_SPEC_DIR", os.path.join(os.sep, "work", "shared", "spec"))
#: the digests with numbered acceptance behaviours
DOCUMENTS = ("dqm-intercommunication", "aliases-channels-storage", "operations-dlq-clusters")
#: the headings in docs/spec-coverage.md under which behaviours are listed
NOT_APPLYING = "not applying"
NOT_BUILT = "not built"

_ACCEPTANCE = re.compile(r"^## (\d+)\. Acceptance", re.MULTILINE)
_ITEM_AT_LINE_START = re.compile(r"^(\d+)\. ", re.MULTILINE)
_ITEM_INLINE = re.compile(r"\s(\d+)\. (?:G:|\*\*Given|\*\*When)")
_SECTION = re.compile(r"^## (\d+)\. ", re.MULTILINE)
_BODY_ITEM = re.compile(r"^ *(\d+)\. ", re.MULTILINE)
_TOKEN = re.compile(r"(" + "|".join(DOCUMENTS) + r")"
                    r"|(?<![\w.])§?(\d+) (?:item|rule|use|step)s? (\d+(?:(?:, | and )\d+)*)"
                    r"|(?<![\w.§])(\d+)\.(\d+)(?![\w.]*\d)")
_LISTED = re.compile(r"^- (" + "|".join(DOCUMENTS) + r") (\d+\.\d+|\d+ item \d+): (.+)$")


@attrs.frozen
class Behaviour:
    """One numbered behaviour of a digest and its text."""

    ident: str
    text: str


def behaviours(spec_dir: str = SPEC_DIR) -> dict[str, Behaviour]:
    """Every numbered acceptance behaviour of the digests, by id."""
    found: dict[str, Behaviour] = {}
    for document in DOCUMENTS:
        with open(os.path.join(spec_dir, document + ".md"), encoding="utf-8") as f:
            text = f.read()
        heading = _ACCEPTANCE.search(text)
        if heading is None:
            continue
        section = heading.group(1)
        body = text[heading.end():]
        following = re.search(r"^## ", body, re.MULTILINE)
        body = body[:following.start()] if following else body
        starts = sorted({(m.start(1), m.group(1)) for m in _ITEM_AT_LINE_START.finditer(body)}
                        | {(m.start(1), m.group(1)) for m in _ITEM_INLINE.finditer(body)})
        for (start, number), (end, _) in zip(starts, [*starts[1:], (len(body), "")], strict=False):
            ident = f"{document} {section}.{number}"
            found[ident] = Behaviour(ident, " ".join(body[start:end].split()))
        found.update(_body_items(document, text[:heading.start()]))
    return found


def _body_items(document: str, text: str) -> dict[str, Behaviour]:
    """The numbered items before the acceptance section, by ``<document> <section> item <n>``."""
    found = {}
    sections = list(_SECTION.finditer(text))
    for section, following in zip(sections, [*sections[1:], None], strict=False):
        body = text[section.end():following.start() if following else len(text)]
        items = list(_BODY_ITEM.finditer(body))
        for item, after in zip(items, [*items[1:], None], strict=False):
            ident = f"{document} {section.group(1)} item {item.group(1)}"
            end = after.start() if after else body.find("\n\n", item.end())
            found[ident] = Behaviour(ident, " ".join(body[item.start():end].split()))
    return found


def _spec_passages(source: str) -> Iterator[str]:
    """The text after each ``spec:`` up to the end of its docstring or comment block."""
    for match in re.finditer(r"spec:", source):
        line_start = source.rfind("\n", 0, match.start()) + 1
        in_comment = source[line_start:match.start()].lstrip().startswith("#")
        rest = source[match.end():match.end() + 600]
        if in_comment:
            lines = rest.split("\n")
            kept = [lines[0]] + [line for line in
                                 _while(lambda s: s.lstrip().startswith("#"), lines[1:])]
            yield "\n".join(kept)
        else:
            yield re.split(r'"""|\'\'\'|\n\s*\n', rest, maxsplit=1)[0]


def _while(keep, items):  # noqa: ANN001, ANN202 - a tiny takewhile that reads as prose
    for item in items:
        if not keep(item):
            return
        yield item


def named_in(source: str, known: set[str]) -> set[str]:
    """The behaviour ids a file's ``spec:`` passages name (only ids in ``known``)."""
    named = set()
    for passage in _spec_passages(source):
        document = None
        for token in _TOKEN.finditer(passage):
            if token.group(1):
                document = token.group(1)
            elif document and token.group(2):
                for number in re.findall(r"\d+", token.group(3)):
                    named.add(f"{document} {token.group(2)} item {number}")
            elif document:
                named.add(f"{document} {token.group(4)}.{token.group(5)}")
    return named & known


def named_by_tests(tests_dir: str, known: set[str]) -> dict[str, list[str]]:
    """Behaviour id -> the test files that name it."""
    names: dict[str, list[str]] = {}
    for directory, _dirs, files in os.walk(tests_dir):
        if os.path.relpath(directory, tests_dir).split(os.sep)[0] == "architecture":
            continue  # this counting and its own test quote ids without testing them
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as f:
                source = f.read()
            for ident in named_in(source, known):
                names.setdefault(ident, []).append(os.path.relpath(path, tests_dir))
    return names


def listed_in(coverage_doc: str) -> dict[str, dict[str, str]]:
    """The behaviours docs/spec-coverage.md lists, by heading: {NOT_APPLYING: {id: reason}, ...}."""
    listed: dict[str, dict[str, str]] = {NOT_APPLYING: {}, NOT_BUILT: {}}
    heading = None
    if not os.path.exists(coverage_doc):
        return listed
    with open(coverage_doc, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                title = line[3:].strip().lower()
                heading = next((h for h in listed if title.startswith(h)), None)
            item = _LISTED.match(line.rstrip("\n"))
            if item and heading:
                listed[heading][f"{item.group(1)} {item.group(2)}"] = item.group(3)
    return listed


@attrs.frozen
class Coverage:
    """Each behaviour's standing: named by a test, listed as not applying or not built, or none."""

    behaviours: dict[str, Behaviour]
    named: dict[str, list[str]]
    listed: dict[str, dict[str, str]]

    def unaccounted(self) -> list[str]:
        """Behaviours neither named by a test nor listed with a reason."""
        return [i for i in self.behaviours if i not in self.named
                and not any(i in ids for ids in self.listed.values())]

    def figure(self) -> str:
        """One line: how many behaviours are named by a test, do not apply, are not built."""
        total = len(self.behaviours)
        named = sum(1 for i in self.behaviours if i in self.named)
        rest = {h: sum(1 for i in ids if i in self.behaviours and i not in self.named)
                for h, ids in self.listed.items()}
        return (f"{total} numbered behaviours: {named} named by a test, "
                f"{rest[NOT_APPLYING]} not applying, {rest[NOT_BUILT]} not built, "
                f"{len(self.unaccounted())} unaccounted")


def coverage(root: str, spec_dir: str = SPEC_DIR) -> Coverage:
    """The coverage of the digests' behaviours by the tests and docs under ``root``."""
    found = behaviours(spec_dir)
    return Coverage(found, named_by_tests(os.path.join(root, "tests"), set(found)),
                    listed_in(os.path.join(root, "docs", "spec-coverage.md")))


if __name__ == "__main__":
    here = coverage(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    print(here.figure())
    for ident in here.unaccounted():
        print(f"- {ident}: {here.behaviours[ident].text[:150]}")
