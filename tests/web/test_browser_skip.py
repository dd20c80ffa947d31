"""Where Chromium cannot be installed, the browser tests skip and say what is missing."""

from __future__ import annotations

import shutil

import pytest

from tests.support import browser


def test_without_chromium_the_browser_tests_skip_saying_why(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(browser.os.path, "exists", lambda path: False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        browser.chromium(str(tmp_path))
    assert "chromium chromium-driver" in str(skipped.value)
    assert "browser tests skipped" in str(skipped.value)
