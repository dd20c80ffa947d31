"""A real headless Chromium (Debian's chromium and chromium-driver, driven by Selenium with
the system's driver: nothing is downloaded), with a fresh profile in the test's folder; the
test is skipped, saying why, where Chromium or its driver is not installed (``make tools``
installs them where it can)."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = ("chromium", "chromium-browser")
DRIVER = "chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900")


def chromium(profile_dir: str):  # noqa: ANN201 - a selenium WebDriver
    """A headless Chromium driven by chromium-driver, or pytest.skip naming what is
    missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed: pip install -e '.[test]'")
    binary = next((p for p in map(shutil.which, CHROMIUM) if p), None)
    driver = shutil.which(DRIVER) or ("/usr/bin/chromedriver"
                                      if os.path.exists("/usr/bin/chromedriver") else None)
    if binary is None or driver is None:
        pytest.skip("Chromium or chromium-driver is not installed (Debian: apt-get install "
                    "chromium chromium-driver, as `make tools` does): browser tests skipped")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


#: how long a page is waited for (seconds)
WAIT = 20


def selenium_by():  # noqa: ANN201 - selenium's By
    from selenium.webdriver.common.by import By

    return By


def wait_for_page(driver, condition, what: str):  # noqa: ANN001, ANN201
    """``condition`` polled until true; an element the page replaced under it (a redraw,
    the reload after logging out) is looked for again: Chromium says so as a stale element,
    or, when the page went while it was asked, as a node that "does not belong to the
    document"."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def polled(d):  # noqa: ANN001, ANN202
        try:
            return condition(d)
        except StaleElementReferenceException:
            raise
        except WebDriverException as e:
            if "does not belong to the document" not in str(e):
                raise
            return False

    return WebDriverWait(driver, WAIT, poll_frequency=0.2,
                         ignored_exceptions=(StaleElementReferenceException,)).until(
        polled, message=what)


def click(driver, css: str) -> None:  # noqa: ANN001
    """Click what ``css`` selects, again if a redraw replaced it under the click."""
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
    )

    def clicked(d) -> bool:  # noqa: ANN001
        try:
            d.find_element(selenium_by().CSS_SELECTOR, css).click()
            return True
        except (NoSuchElementException, StaleElementReferenceException):
            return False

    wait_for_page(driver, clicked, f"click {css}")
