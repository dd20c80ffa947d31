"""One queue manager (strmqm) and one mqweb server (strmqweb) per test module; each test
uses them through HTTP as a client would."""

from __future__ import annotations

import pytest

from tests.support.web import WebSite


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    w = WebSite(str(tmp_path_factory.mktemp("mqweb")))
    try:
        yield w.start()
    finally:
        w.stop()
