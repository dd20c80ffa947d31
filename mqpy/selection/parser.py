"""Tokens to an expression tree, by IBM's selector grammar (SQL-92 conditional expressions).

Precedence, loosest first: OR; AND; NOT; comparison (``= <> < <= > >=``, ``[NOT] BETWEEN ..
AND ..``, ``[NOT] IN (..)``, ``[NOT] LIKE .. [ESCAPE ..]``, ``IS [NOT] NULL``); ``+ -``;
``* /``; unary ``+ -``; literals, identifiers and parentheses. Operators of one level group
from left to right.

Beyond the grammar, these are syntax errors, as in JMS and IBM MQ: a selector, or an operand of
AND / OR / NOT, that is a number or a string; arithmetic on a string or boolean literal;
``< <= > >=`` with a string or boolean literal; LIKE, IN and IS NULL after anything but an
identifier; a LIKE pattern or an ESCAPE that is not a string literal (ESCAPE of one
character); an IN list of anything but literals; an identifier that is not a valid property
name (``names.check_name``); nesting deeper than ``MAX_DEPTH``.
"""

from __future__ import annotations

from typing import Any

import attrs

from mqpy.properties.errors import PropertyError
from mqpy.properties.names import check_name
from mqpy.selection.lexer import SelectorSyntaxError, Token, tokens

__all__ = ["MAX_DEPTH", "Between", "Binary", "Ident", "In", "IsNull", "Like", "Literal",
           "Logical", "Unary", "parse"]

MAX_DEPTH = 48
_COMPARE = ("=", "<>", "<", "<=", ">", ">=")
_ORDERING = ("<", "<=", ">", ">=")


@attrs.frozen
class Literal:
    value: Any
    pos: int


@attrs.frozen
class Ident:
    name: str  #: as written
    pos: int


@attrs.frozen
class Unary:
    op: str  #: '-', '+' or 'NOT'
    operand: Any
    pos: int


@attrs.frozen
class Binary:
    op: str  #: + - * / = <> < <= > >= AND OR
    left: Any
    right: Any
    pos: int


@attrs.frozen
class Logical:
    op: str  #: AND or OR, over two or more operands (a long chain stays flat)
    operands: tuple[Any, ...]
    pos: int


@attrs.frozen
class Between:
    expr: Any
    low: Any
    high: Any
    negated: bool
    pos: int


@attrs.frozen
class In:
    ident: Ident
    values: tuple[Any, ...]
    negated: bool
    pos: int


@attrs.frozen
class Like:
    ident: Ident
    pattern: str
    escape: str | None
    negated: bool
    pos: int


@attrs.frozen
class IsNull:
    ident: Ident
    negated: bool
    pos: int


def kind(node: Any) -> str:
    """What a node yields, as far as the text tells: 'bool', 'num', 'str' or 'any'."""
    if isinstance(node, Literal):
        v = node.value
        return "bool" if isinstance(v, bool) else "str" if isinstance(v, str) else "num"
    if isinstance(node, Ident):
        return "any"
    if isinstance(node, Unary):
        return "bool" if node.op == "NOT" else "num"
    if isinstance(node, Binary) and node.op in ("+", "-", "*", "/"):
        return "num"
    return "bool"


def start_of(node: Any) -> int:
    """The offset where the text of ``node`` begins (a syntax error's position)."""
    while True:
        if isinstance(node, Binary):
            node = node.left
        elif isinstance(node, Logical):
            node = node.operands[0]
        elif isinstance(node, Between):
            node = node.expr
        elif isinstance(node, (In, Like, IsNull)):
            node = node.ident
        else:
            return node.pos


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = tokens(text)
        self.i = 0
        self.depth = 0

    # -- token helpers --------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def take(self) -> Token:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def at(self, kind: str, *values: Any) -> bool:
        tok = self.tok
        return tok.kind == kind and (not values or tok.value in values)

    def expect(self, kind: str, value: Any, what: str) -> Token:
        if not self.at(kind, value):
            raise SelectorSyntaxError(self.tok.pos, f"{what} expected")
        return self.take()

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SelectorSyntaxError(self.tok.pos, "nested too deeply")

    @staticmethod
    def need(node: Any, kinds: tuple[str, ...], what: str) -> Any:
        if kind(node) not in kinds:
            raise SelectorSyntaxError(start_of(node), what)
        return node

    # -- grammar --------------------------------------------------------------------------
    def selector(self) -> Any:
        node = self.need(self.or_expr(), ("bool", "any"), "a condition expected")
        if not self.at("end"):
            raise SelectorSyntaxError(self.tok.pos, "end of selector expected")
        return node

    def chain(self, op: str, operand: Any) -> Any:
        """``operand (op operand)*`` as one flat Logical (or the lone operand)."""
        node = operand()
        if not self.at("kw", op):
            return node
        pos = self.tok.pos
        items = [self.need(node, ("bool", "any"), "a condition expected")]
        while self.at("kw", op):
            self.take()
            items.append(self.need(operand(), ("bool", "any"), "a condition expected"))
        return Logical(op, tuple(items), pos)

    def or_expr(self) -> Any:
        return self.chain("OR", self.and_expr)

    def and_expr(self) -> Any:
        return self.chain("AND", self.not_expr)

    def not_expr(self) -> Any:
        if self.at("kw", "NOT"):
            pos = self.take().pos
            self.deeper()
            operand = self.need(self.not_expr(), ("bool", "any"), "a condition expected")
            self.depth -= 1
            return Unary("NOT", operand, pos)
        return self.predicate()

    def predicate(self) -> Any:
        left = self.sum()
        tok = self.tok
        if tok.kind == "op" and tok.value in _COMPARE:
            self.take()
            right = self.sum()
            if tok.value in _ORDERING:
                self.need(left, ("num", "any"), "a number expected")
                self.need(right, ("num", "any"), "a number expected")
            return Binary(tok.value, left, right, tok.pos)
        if tok.kind == "kw" and tok.value == "IS":
            self.take()
            negated = self.at("kw", "NOT") and bool(self.take())
            self.expect("kw", "NULL", "NULL")
            return IsNull(self.ident(left, "IS NULL"), negated, tok.pos)
        negated = False
        if self.at("kw", "NOT"):
            self.take()
            negated = True
            if not self.at("kw", "BETWEEN", "IN", "LIKE"):
                raise SelectorSyntaxError(self.tok.pos, "BETWEEN, IN or LIKE expected")
        if self.at("kw", "BETWEEN"):
            pos = self.take().pos
            self.need(left, ("num", "any"), "a number expected")
            low = self.need(self.sum(), ("num", "any"), "a number expected")
            self.expect("kw", "AND", "AND")
            high = self.need(self.sum(), ("num", "any"), "a number expected")
            return Between(left, low, high, negated, pos)
        if self.at("kw", "IN"):
            return self.in_list(left, negated)
        if self.at("kw", "LIKE"):
            return self.like(left, negated)
        return left

    @staticmethod
    def ident(node: Any, what: str) -> Ident:
        if not isinstance(node, Ident):
            raise SelectorSyntaxError(start_of(node), f"an identifier must come before {what}")
        return node

    def in_list(self, left: Any, negated: bool) -> In:
        pos = self.take().pos
        ident = self.ident(left, "IN")
        self.expect("op", "(", "(")
        values = [self.literal()]
        while self.at("op", ","):
            self.take()
            values.append(self.literal())
        self.expect("op", ")", ")")
        return In(ident, tuple(values), negated, pos)

    def literal(self) -> Any:
        sign = 1
        if self.at("op", "-", "+"):
            sign = -1 if self.take().value == "-" else 1
            if not self.at("number"):
                raise SelectorSyntaxError(self.tok.pos, "a number expected")
        tok = self.tok
        if tok.kind in ("string", "number"):
            self.take()
            return tok.value if sign == 1 else -tok.value
        if tok.kind == "kw" and tok.value in ("TRUE", "FALSE"):
            self.take()
            return tok.value == "TRUE"
        raise SelectorSyntaxError(tok.pos, "a literal expected")

    def like(self, left: Any, negated: bool) -> Like:
        pos = self.take().pos
        ident = self.ident(left, "LIKE")
        if not self.at("string"):
            raise SelectorSyntaxError(self.tok.pos, "a pattern string expected")
        pattern = self.take().value
        escape = None
        if self.at("kw", "ESCAPE"):
            self.take()
            tok = self.tok
            if tok.kind != "string" or len(tok.value) != 1:
                raise SelectorSyntaxError(tok.pos, "an escape character expected")
            escape = self.take().value
        if escape is not None and _bad_escape(pattern, escape):
            raise SelectorSyntaxError(pos, "the escape character ends the pattern")
        return Like(ident, pattern, escape, negated, pos)

    def arithmetic(self, ops: tuple[str, ...], operand: Any) -> Any:
        """``operand (op operand)*`` grouped from the left; each step counts as nesting."""
        node = operand()
        start = self.depth
        while self.at("op", *ops):
            self.deeper()
            tok = self.take()
            right = self.need(operand(), ("num", "any"), "a number expected")
            self.need(node, ("num", "any"), "a number expected")
            node = Binary(tok.value, node, right, tok.pos)
        self.depth = start
        return node

    def sum(self) -> Any:
        return self.arithmetic(("+", "-"), self.product)

    def product(self) -> Any:
        return self.arithmetic(("*", "/"), self.unary)

    def unary(self) -> Any:
        if self.at("op", "-", "+"):
            tok = self.take()
            self.deeper()
            operand = self.need(self.unary(), ("num", "any"), "a number expected")
            self.depth -= 1
            if isinstance(operand, Literal) and tok.value == "-":
                return Literal(-operand.value, tok.pos)
            return operand if tok.value == "+" else Unary("-", operand, tok.pos)
        return self.primary()

    def primary(self) -> Any:
        tok = self.tok
        if tok.kind in ("string", "number"):
            self.take()
            return Literal(tok.value, tok.pos)
        if tok.kind == "kw" and tok.value in ("TRUE", "FALSE"):
            self.take()
            return Literal(tok.value == "TRUE", tok.pos)
        if tok.kind == "ident":
            self.take()
            try:
                check_name(tok.value, for_set=False)
            except PropertyError:
                raise SelectorSyntaxError(tok.pos, "not a valid property name") from None
            return Ident(tok.value, tok.pos)
        if tok.kind == "op" and tok.value == "(":
            self.take()
            self.deeper()
            node = self.or_expr()
            self.depth -= 1
            self.expect("op", ")", ")")
            return node
        raise SelectorSyntaxError(tok.pos, "an operand expected")


def _bad_escape(pattern: str, escape: str) -> bool:
    i = 0
    while i < len(pattern):
        if pattern[i] == escape:
            if i + 1 >= len(pattern):
                return True
            i += 1
        i += 1
    return False


def parse(text: str) -> Any:
    """The expression tree of ``text``, or SelectorSyntaxError."""
    return _Parser(text).selector()
