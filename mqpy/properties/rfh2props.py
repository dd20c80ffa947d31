"""Properties as MQRFH2 folders, and back: IBM's NameValueData for each property type.

Writing (``folders_of``): each property goes into the folder its name starts with (no folder:
``usr``), one element per name part after it (``mq_usr.a.b`` is ``<mq_usr><a><b>``), its
type as the ``dt`` attribute (BYTE_STRING ``bin.hex``, BOOLEAN ``boolean``, INT8..INT64
``i1``/``i2``/``i4``/``i8``, FLOAT32/64 ``r4``/``r8``, STRING none), NULL as
``xsi:nil='true'``, text escaped as XML. A folder that is not one of IBM's own (usr, mcd, jms,
mqext, mq, mq_usr, mqps, sib ...) says ``content='properties'``. ``Root.MQMD.*`` properties
are never written: they are the MQMD's. A name character XML does not allow in an element
name (``$``...) is written ``_xHHHH_``.

Reading (``read_folders``): the folders of IBM's property folders, and any folder with
``content='properties'``, become properties (``dt='int'`` is ``i8``, an unknown ``dt`` a
string); other folders (``psc``, an application's own) are left as they were. A folder that
is not well formed, declares a DOCTYPE or entity, nests deeper than ``MAX_DEPTH``, or holds a
value its ``dt`` cannot be is MQRC_RFH_FORMAT_ERROR: a PropertyError, never a traceback.
"""

from __future__ import annotations

import functools
import re
import xml.parsers.expat
from typing import Any

from mqpy import CMQC
from mqpy.properties import names, types
from mqpy.properties.errors import PropertyError, fail
from mqpy.properties.propset import Property, PropertySet

__all__ = ["MAX_DEPTH", "PROPERTY_FOLDERS", "folders_of", "read_folder", "read_folders"]

C = CMQC


# xml.sax.saxutils's escape and quoteattr, written here: that module imports urllib.request
# (http, email, ssl: about a tenth of a control command's start) for functions it never uses.
def escape(data: str) -> str:
    """Text as XML character data: ``&``, ``<``, ``>`` escaped."""
    return data.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(data: str) -> str:
    """Text as a quoted XML attribute value, as xml.sax.saxutils.quoteattr writes it."""
    data = escape(data).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in data:
        return f'"{data}"'
    if "'" not in data:
        return f"'{data}'"
    return '"{}"'.format(data.replace('"', "&quot;"))


MAX_DEPTH = 32
#: folders whose elements are message properties, without a content attribute
PROPERTY_FOLDERS = frozenset(("usr", "mcd", "jms", "mqext", "mq", "mq_usr", "mqps", "sib",
                              "sib_usr", "sib_context"))
_ORDER = ("mcd", "jms", "mqext", "mq", "mqps", "usr", "mq_usr")
DT_OF = {C.MQTYPE_BYTE_STRING: "bin.hex", C.MQTYPE_BOOLEAN: "boolean", C.MQTYPE_INT8: "i1",
         C.MQTYPE_INT16: "i2", C.MQTYPE_INT32: "i4", C.MQTYPE_INT64: "i8",
         C.MQTYPE_FLOAT32: "r4", C.MQTYPE_FLOAT64: "r8"}
TYPE_OF = {dt: t for t, dt in DT_OF.items()} | {"int": C.MQTYPE_INT64,
                                                  "string": C.MQTYPE_STRING}
#: MQPD fields as element attributes (IBM's "Mapping property descriptor fields into MQRFH2
#: headers"): Support only in the mq folder, Context and CopyOptions in any
SUPPORT_ATTRS = {C.MQPD_SUPPORT_REQUIRED: ("sr", "required"),
                 C.MQPD_SUPPORT_REQUIRED_IF_LOCAL: ("sx", "local")}
COPY_WORDS = {"forward": C.MQCOPY_FORWARD, "reply": C.MQCOPY_REPLY, "report": C.MQCOPY_REPORT,
              "publish": C.MQCOPY_PUBLISH, "all": C.MQCOPY_ALL, "none": C.MQCOPY_NONE,
              "default": C.MQCOPY_DEFAULT}
_COPY_ORDER = ("all", "forward", "publish", "reply", "report")
_NAME_CODECS = {1208: "utf-8", 1200: "utf-16-be", 13488: "utf-16-be", 17584: "utf-16-be"}
_ESCAPED = re.compile(r"_x([0-9A-F]{4,6})_")


# ------------------------------------------------------------------------------- writing
@functools.lru_cache(maxsize=4096)
def _name_char(ch: str, first: bool) -> bool:
    """May ``ch`` stand (first) in an element name, as the XML parser reads names?"""
    if ch.isascii():
        return ch.isalpha() or ch == "_" or not first and (ch.isdigit() or ch in ".-")
    parser = xml.parsers.expat.ParserCreate()
    try:
        parser.Parse(f"<{ch}/>" if first else f"<a{ch}/>", True)
    except xml.parsers.expat.ExpatError:
        return False
    return True


def _element_name(part: str) -> str:
    """A name part as an XML element name: itself when XML allows it, else each character it
    does not allow (and every ``_``) as ``_xHHHH_``; an empty part (an unvalidated name's
    ``a..b``) as ``_x_``."""
    if not part:
        return "_x_"
    if all(_name_char(ch, i == 0) for i, ch in enumerate(part)) and not _ESCAPED.search(part) \
            and part != "_x_":
        return part
    return "".join(ch if ch != "_" and _name_char(ch, i == 0) else f"_x{ord(ch):04X}_"
                   for i, ch in enumerate(part))


def value_text(ptype: int, value: Any) -> str:
    """A value as NameValueData text (unescaped)."""
    if ptype == C.MQTYPE_BOOLEAN:
        return "1" if value else "0"
    if ptype == C.MQTYPE_BYTE_STRING:
        return value.hex()
    if ptype == C.MQTYPE_FLOAT32:
        return types.convert_type(value, ptype, C.MQTYPE_STRING)[0]
    if ptype == C.MQTYPE_FLOAT64:
        return repr(value)
    if ptype == C.MQTYPE_NULL:
        return ""
    return str(value)


def _descriptor_attrs(prop: Property) -> str:
    out = []
    if prop.support in SUPPORT_ATTRS and names.folder_of(prop.name) == "mq":
        out.append(" {}='{}'".format(*SUPPORT_ATTRS[prop.support]))
    if prop.context == C.MQPD_USER_CONTEXT:
        out.append(" context='user'")
    if prop.copy_options != C.MQCOPY_DEFAULT:
        words = [w for w in _COPY_ORDER if prop.copy_options & COPY_WORDS[w]] or ["none"]
        out.append(f" copy='{','.join(words)}'")
    return "".join(out)


def _element(tag: str, prop: Property) -> str:
    attrs = _descriptor_attrs(prop)
    if prop.type == C.MQTYPE_NULL:
        return f"<{tag} xsi:nil='true'{attrs}></{tag}>"
    dt = DT_OF.get(prop.type)
    attr = f" dt={quoteattr(dt)}" if dt else ""
    return f"<{tag}{attr}{attrs}>{escape(value_text(prop.type, prop.value))}</{tag}>"


def _render(tree: list, out: list[str]) -> None:
    for tag, item in tree:
        if isinstance(item, Property):
            out.append(_element(tag, item))
        else:
            out.append(f"<{tag}>")
            _render(item, out)
            out.append(f"</{tag}>")


def folders_of(pset: PropertySet, codec: str = "utf-8") -> list[bytes]:
    """The NameValueData folders carrying ``pset`` (blank-padded to multiples of 4), in
    IBM's usual order (mcd, jms, mqext, mq, mqps, usr, mq_usr, then others)."""
    trees: dict[str, list] = {}
    for prop in pset:
        if prop.name.startswith(names.MQMD_PREFIX):
            continue
        parts = prop.name.split(".") if "." in prop.name else ["usr", prop.name]
        node = trees.setdefault(parts[0], [])
        for group in parts[1:-1]:
            tag = _element_name(group)
            found = next((sub for t, sub in node if t == tag and isinstance(sub, list)), None)
            if found is None:
                found = []
                node.append((tag, found))
            node = found
        node.append((_element_name(parts[-1]), prop))
    order = [f for f in _ORDER if f in trees] + [f for f in trees if f not in _ORDER]
    out = []
    for folder in order:
        attr = "" if folder in PROPERTY_FOLDERS else " content='properties'"
        tag = _element_name(folder)
        text = [f"<{tag}{attr}>"]
        _render(trees[folder], text)
        text.append(f"</{tag}>")
        data = "".join(text).encode(codec)
        out.append(data + b" " * (-len(data) % 4))
    return out


# ------------------------------------------------------------------------------- reading
class _Node:
    __slots__ = ("attrs", "children", "tag", "text")

    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs, self.children, self.text = tag, attrs, [], []


def _parse(data: bytes, codec: str) -> _Node:
    """One folder's XML as a tree, by expat without namespaces (IBM's ``xsi:nil`` is not
    declared), refusing DOCTYPEs and entities and nesting beyond MAX_DEPTH."""
    try:
        text = data.decode(codec).rstrip(" \0")
    except (UnicodeDecodeError, LookupError):
        raise fail(C.MQRC_RFH_FORMAT_ERROR) from None
    parser = xml.parsers.expat.ParserCreate()
    stack: list[_Node] = []
    root: list[_Node] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        if len(stack) >= MAX_DEPTH:
            raise ValueError("too deep")
        node = _Node(tag, attrs)
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    def refuse(*_: Any) -> None:
        raise ValueError("DOCTYPE or entity")

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    parser.CharacterDataHandler = lambda s: stack[-1].text.append(s) if stack else None
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(text, True)
    except (xml.parsers.expat.ExpatError, ValueError, IndexError, RecursionError):
        raise fail(C.MQRC_RFH_FORMAT_ERROR) from None
    if len(root) != 1:
        raise fail(C.MQRC_RFH_FORMAT_ERROR)
    return root[0]


def _decode_name(tag: str) -> str:
    if tag == "_x_":
        return ""
    try:
        return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), tag)
    except (ValueError, OverflowError):  # beyond U+10FFFF
        raise fail(C.MQRC_RFH_FORMAT_ERROR) from None


def parse_value(dt: str | None, text: str) -> tuple[int, Any]:
    """(MQTYPE_*, value) of an element's text with ``dt`` (None: a string)."""
    ptype = TYPE_OF.get(dt or "string", C.MQTYPE_STRING)
    if ptype == C.MQTYPE_STRING:
        return ptype, text
    word = text.strip()
    try:
        if ptype == C.MQTYPE_BYTE_STRING:
            return ptype, bytes.fromhex(word)
        return ptype, types.convert_type(word, C.MQTYPE_STRING, ptype)[0]
    except (ValueError, PropertyError):
        raise fail(C.MQRC_RFH_FORMAT_ERROR) from None


def _descriptor(attrs: dict[str, str], in_mq: bool) -> tuple[int, int, int]:
    """(Support, Context, CopyOptions) of an element's attributes."""
    support = C.MQPD_SUPPORT_OPTIONAL
    if in_mq:
        for value, (attr, word) in SUPPORT_ATTRS.items():
            if attrs.get(attr) == word:
                support = value
    context = {"none": C.MQPD_NO_CONTEXT, "user": C.MQPD_USER_CONTEXT}.get(
        attrs.get("context", "none"))
    copy = C.MQCOPY_DEFAULT
    if "copy" in attrs:
        words = [w.strip() for w in attrs["copy"].split(",")]
        if not all(w in COPY_WORDS for w in words):
            raise fail(C.MQRC_RFH_FORMAT_ERROR)
        copy = 0
        for w in words:
            copy |= COPY_WORDS[w]
    if context is None:
        raise fail(C.MQRC_RFH_FORMAT_ERROR)
    return support, context, copy


def _collect(node: _Node, prefix: str, out: list[Property], in_mq: bool) -> None:
    for child in node.children:
        name = prefix + _decode_name(child.tag)
        if child.children:
            if "".join(child.text).strip():
                raise fail(C.MQRC_RFH_FORMAT_ERROR)  # mixed content
            _collect(child, name + ".", out, in_mq)
            continue
        if child.attrs.get("xsi:nil") == "true":
            ptype, value = C.MQTYPE_NULL, None
        else:
            ptype, value = parse_value(child.attrs.get("dt"), "".join(child.text))
        out.append(Property(name, ptype, value, *_descriptor(child.attrs, in_mq)))


def read_folder(data: bytes, name_value_ccsid: int = 1208) -> tuple[str, list[Property] | None]:
    """(folder name, its properties), or (name, None) for a folder that holds none."""
    codec = _NAME_CODECS.get(name_value_ccsid, "utf-8")
    root = _parse(data, codec)
    folder = _decode_name(root.tag)
    if folder not in PROPERTY_FOLDERS and root.attrs.get("content") != "properties":
        return folder, None
    props: list[Property] = []
    _collect(root, "" if folder == "usr" else folder + ".", props, folder == "mq")
    return folder, props


def read_folders(folders: list[bytes], pset: PropertySet,
                 name_value_ccsid: int = 1208) -> list[bytes]:
    """Add the properties of ``folders`` to ``pset``; return the folders that hold none."""
    rest = []
    for data in folders:
        _, props = read_folder(data, name_value_ccsid)
        if props is None:
            rest.append(data)
            continue
        for prop in props:
            pset.add(prop)
    return rest
