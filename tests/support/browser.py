"""A headless Chromium for the tests that click through the HTML pages (playwright drives the
system's Chromium: no `playwright install`). Without one the test is skipped, or fails under
STICKLER_REQUIRE_BROWSER=1 (CI), so that a green run never means "not looked at"."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

CHROMIUM = os.environ.get("STICKLER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def no_browser(reason: str) -> None:
    if os.environ.get("STICKLER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"STICKLER_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A launched browser, closed afterwards."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        no_browser("playwright is not installed (pip install playwright; no `playwright install` needed)")
    if not Path(CHROMIUM).exists():
        no_browser(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set STICKLER_CHROMIUM)")
    with sync_playwright() as driver:
        try:
            browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        except Error as exc:
            no_browser(f"Chromium at {CHROMIUM} did not start: {exc}")
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser: Any, path: Path, viewport: dict[str, int] | None = None) -> tuple[Any, list[str]]:
    """``path`` loaded in a new page, and the list its console errors and warnings, page errors and dialogs
    (dismissed) are written to as they come: a test asserts it stays empty."""
    page = browser.new_page(**({"viewport": viewport} if viewport else {}))
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.goto(path.as_uri(), wait_until="load")
    return page, problems
