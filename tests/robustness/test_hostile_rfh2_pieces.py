"""An MQRFH2 folder is checked to be well-formed XML a piece at a time: a folder of megabytes
(200,000 elements, say, put by any application allowed to put) never holds the process's other
threads for the whole check, and what the check answers is what one call over the whole
folder answers, wherever the pieces cut it."""

from __future__ import annotations

import pytest

from mqpy import rfh2
from mqpy.errors import PYIFError

_BIG = ("<usr>" + "".join(f"<p{i}>v</p{i}>" for i in range(20_000)) + "</usr>").encode()


class _Recording:
    """An expat parser that records how many bytes each of its Parse calls is given."""

    def __init__(self, real, sizes: list[int]) -> None:  # noqa: ANN001
        self.__dict__["_real"], self.__dict__["_sizes"] = real, sizes

    def Parse(self, data, final=False):  # noqa: ANN001, ANN201, N802 - expat's name
        self._sizes.append(len(data))
        return self._real.Parse(data, final)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self._real, name)

    def __setattr__(self, name: str, value) -> None:  # noqa: ANN001
        setattr(self._real, name, value)


def test_a_folder_of_20000_elements_is_checked_a_piece_at_a_time(monkeypatch):
    """Given a folder of 20,000 elements (370 KB), when it is checked, then expat is never
    given more than a piece at one call (each call holds the GIL: the process's other
    threads, a queue manager's other connections, run between them), and the answer is
    its root's name."""
    sizes: list[int] = []
    real = rfh2.xml.parsers.expat.ParserCreate
    monkeypatch.setattr(rfh2.xml.parsers.expat, "ParserCreate",
                        lambda *a, **k: _Recording(real(*a, **k), sizes))
    assert rfh2._folder_name(_BIG) == "usr"
    assert sum(sizes) == len(_BIG)
    assert max(sizes) <= 64 * 1024


@pytest.mark.parametrize("cut", [1, 2, 3, 5, 4096])
def test_the_answer_does_not_depend_on_where_the_pieces_cut(monkeypatch, cut):
    """Given pieces of a few bytes (cutting names, tags and multi-byte characters), then a
    well-formed folder gives its root's name and a broken one is refused, as in one piece."""
    monkeypatch.setattr(rfh2, "_PARSE_PIECE", cut)
    good = "<usr><naïve dt='string'>€ and ✓</naïve><b/></usr>".encode()
    assert rfh2._folder_name(good) == "usr"
    for broken in (b"<usr><a>1</usr>", b"<usr>", b"", b"<usr></usr><x/>",
                   "<usr><a>€</a>".encode()):
        with pytest.raises(PYIFError):
            rfh2._folder_name(broken)
