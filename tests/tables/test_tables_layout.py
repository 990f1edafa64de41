"""The browser table's layout at a 390 px phone and a 1280 px desktop (issue 45): the "You"
label clear of the status line on the start page, and hint badges clear of every card's rank
and suit corners. Headless Chromium through Selenium, as ``test_tables_browser.py``; the server
on 127.0.0.1 (``sixtysix serve``'s ``tables.web``).

Screenshots go to ``$SIXTYSIX_SCREENSHOTS`` (default: the test's temporary folder);
``docs/img/table-390.png`` and ``docs/img/table-1280.png`` are these.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
pytest.importorskip("starlette")

import helpers  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no system Chromium: apt-get install chromium chromium-driver (.ci/run does)",
)
STALL_S = 60.0  # a loaded machine is slow, not stuck
WIDTHS = [390, 1280]


def wait_until(pred, message: str = "timed out"):
    return helpers.wait_until(pred, STALL_S, message)


@pytest.fixture
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1360,860", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def screenshots(tmp_path: Path) -> Path:
    shots = Path(os.environ.get("SIXTYSIX_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def at_width(d, width: int) -> None:
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": 860, "deviceScaleFactor": 1, "mobile": width < 600})


BOX = ("const box = (e) => { const r = e.getBoundingClientRect(); "
       "return [r.left, r.top, r.right, r.bottom]; };")


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_you_label_is_clear_of_the_status_line(start_server, browser, tmp_path, width):
    base, _ = start_server("--hint", "none")
    d = browser
    at_width(d, width)
    d.get(base + "/?fast=1")
    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#vs option[value=heuristic]"))
    m = d.execute_script(BOX + """
        const status = document.getElementById('status');
        return {you: box(document.querySelector('#table .me .who .name')), status: box(status),
                text: status.textContent, felt: box(document.getElementById('table')),
                width: innerWidth, scroll: document.documentElement.scrollWidth};""")
    d.save_screenshot(str(screenshots(tmp_path) / f"start-{width}.png"))
    assert m["text"].startswith("Start a game"), m
    assert not overlap(m["you"], m["status"]), m
    assert m["status"][3] <= m["felt"][3] and m["status"][0] >= m["felt"][0], m  # on the felt
    assert m["scroll"] <= m["width"], m


@pytest.mark.parametrize("width", WIDTHS)
def test_hint_badges_leave_the_card_corners_readable(start_server, browser, tmp_path, width):
    base, _ = start_server("--hint", "pimc:worlds=8")
    d = browser
    at_width(d, width)
    d.get(base + "/?fast=1")
    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#vs option[value=heuristic]"))
    Select(d.find_element(By.ID, "vs")).select_by_value("heuristic")
    Select(d.find_element(By.ID, "hint")).select_by_value("pimc:worlds=8")
    d.find_element(By.ID, "seed").send_keys("7")
    Select(d.find_element(By.ID, "seat")).select_by_value("0")
    d.find_element(By.ID, "new").click()
    wait_until(lambda: d.execute_script("return document.getElementById('table').dataset.turn") == "you",
               message="never my turn")
    d.find_element(By.ID, "hint-btn").click()
    badges = wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#hand .card .badge"), message="no badges")
    assert len(badges) >= 2
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", d.find_element(By.ID, "hand"))
    m = d.execute_script(BOX + """
        const hand = document.getElementById('hand');
        return {badges: [...hand.querySelectorAll('.card .badge')].map(
                  (b) => ({card: b.parentElement.dataset.card, box: box(b), text: b.textContent})),
                corners: [...hand.querySelectorAll('.card .corner')].map(
                  (c) => ({card: c.parentElement.dataset.card, box: box(c)})),
                actions: [...document.querySelectorAll('#actions button')].map(box),
                width: innerWidth, scroll: document.documentElement.scrollWidth};""")
    d.save_screenshot(str(screenshots(tmp_path) / f"table-{width}.png"))
    for badge in m["badges"]:
        for corner in m["corners"]:
            assert not overlap(badge["box"], corner["box"]), (badge, corner)
        for button in m["actions"]:
            assert not overlap(badge["box"], button), (badge, button)
        assert badge["box"][0] >= 0 and badge["box"][2] <= m["width"], badge
    for a in m["badges"]:  # and each badge reads whole
        for b in m["badges"]:
            assert a is b or not overlap(a["box"], b["box"]), (a, b)
    assert m["scroll"] <= m["width"], m
