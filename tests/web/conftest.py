"""One queue manager (strmqm, publishing resource statistics every second) and one mqweb
server (strmqweb) per test module; each test uses them through HTTP as a client would."""

from __future__ import annotations

import pytest

from mqpy.monitor.publisher import MONINT_ENV
from tests.support.browser import chromium
from tests.support.web import WebSite


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    w = WebSite(str(tmp_path_factory.mktemp("mqweb")))
    w.site.inst.env[MONINT_ENV] = "1"  # resource statistics every second, not every ten
    try:
        yield w.start()
    finally:
        w.stop()


@pytest.fixture(scope="module")
def browser(web, tmp_path_factory):
    """A real headless Chromium for the module (skipped, saying why, where there is none)."""
    driver = chromium(str(tmp_path_factory.mktemp("chromium-profile")))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
