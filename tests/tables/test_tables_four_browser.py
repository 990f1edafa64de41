"""The four-player table of `sixtysix serve` in headless Chromium: a whole deal by clicking, with
you and a partner bot against two bots, at 390 px and 1280 px.

Screenshots go to ``$SIXTYSIX_SCREENSHOTS`` (default: the test's temporary folder); docs/serve.md
shows the ones named ``four-390.png`` and ``four-1280.png`` (docs/img/table-four-*.png).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
pytest.importorskip("starlette")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from test_tables_browser import CHROMIUM, DRIVER, STALL_S, browser, table, wait_until  # noqa: E402, F401

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no system Chromium: apt-get install chromium chromium-driver (.ci/run does)",
)
MAX_DECISIONS = 40  # a deal is 6 cards each, and a marriage or a declaration now and then


def seats(d) -> dict:
    """What the four-player page shows: the seats' names and cards, the trick by seat, the layout."""
    return d.execute_script("""
        const box = (id) => { const r = document.getElementById(id).getBoundingClientRect();
                              return [r.left, r.top, r.right, r.bottom]; };
        const n = (sel) => document.querySelectorAll(sel).length;
        return {players: document.getElementById('table').dataset.players,
                names: ['opp-name', 'left-name', 'right-name'].map(
                  (id) => document.getElementById(id).textContent),
                backs: [n('#opp-hand .card'), n('#left-hand .card'), n('#right-hand .card')],
                boxes: {partner: box('opp-hand'), left: box('left-hand'), right: box('right-hand'),
                        you: box('hand')},
                trick: [...document.querySelectorAll('#trick .card')].map((c) => c.className),
                mine: document.getElementById('my-stats').textContent,
                score: document.getElementById('match-you-name').textContent,
                width: innerWidth, scroll: document.documentElement.scrollWidth};
    """)


def click_one(d, rng: random.Random) -> bool:
    """Click a legal card (or declare when it is correct); False when the page redrew meanwhile."""
    try:
        buttons = [b for b in d.find_elements(By.CSS_SELECTOR, "#actions button")
                   if "warn" not in (b.get_attribute("class") or "")]
        declare = [b for b in buttons if b.get_attribute("data-kind") == "declare"]
        cards = d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
        (declare[0] if declare else rng.choice(cards + buttons)).click()
        return True
    except StaleElementReferenceException:
        return False


@pytest.mark.parametrize("width", [390, 1280])
def test_a_four_player_deal_by_clicking(start_server, browser, tmp_path, width):  # noqa: F811
    shots = Path(os.environ.get("SIXTYSIX_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    base, _ = start_server("--hint", "none")
    d = browser
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": 860, "deviceScaleFactor": 1, "mobile": width < 600})
    d.get(base + "/?fast=1")
    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#partner option[value=heuristic]"))
    assert not d.find_element(By.ID, "partner").is_displayed()  # two players until 4 is chosen
    Select(d.find_element(By.ID, "players")).select_by_value("4")
    assert d.find_element(By.ID, "partner").is_displayed() and not d.find_element(By.ID, "vs").is_displayed()
    Select(d.find_element(By.ID, "opponents")).select_by_value("heuristic")
    Select(d.find_element(By.ID, "episode")).select_by_value("deal")
    d.find_element(By.ID, "seed").send_keys("12")
    d.find_element(By.ID, "new").click()
    rng = random.Random(width)
    decisions, shot = 0, False
    seen, changed = None, time.monotonic()
    while True:
        assert decisions <= MAX_DECISIONS, f"the deal did not end after {decisions} decisions"
        t = table(d)
        if (t["version"], t["turn"], t["banner"]) != seen:
            seen, changed = (t["version"], t["turn"], t["banner"]), time.monotonic()
        assert time.monotonic() - changed < STALL_S, f"the deal stalled: {t}"
        if t["banner"] and t["over"]:
            break
        if t["turn"] != "you":
            time.sleep(0.03)
            continue
        s = seats(d)
        assert s["players"] == "4" and s["score"] == "Your team" and "Opponents:" in s["mine"]
        assert s["names"] == ["Partner (heuristic)", "Left (heuristic)", "Right (heuristic)"]
        assert s["scroll"] <= s["width"], s  # nothing sticks out sideways
        b = s["boxes"]
        assert b["partner"][3] <= b["left"][1] + 60 and b["left"][2] <= b["right"][0], b  # top, left, right
        assert b["you"][1] >= b["left"][3] - 60, b  # you at the bottom
        if not shot and t["trick"] >= 2 and sum(s["backs"]) >= 9:  # a trick with cards from several seats
            assert {c.split()[-1] for c in s["trick"]} <= {"from-left", "from-partner", "from-right"}, s
            d.save_screenshot(str(shots / f"four-{width}.png"))
            shot = True
        decisions += 1
        version = t["version"]
        if not click_one(d, rng):
            decisions -= 1
            continue
        wait_until(lambda v=version: table(d)["version"] != v or table(d)["banner"],
                   message="a click did nothing")
    assert shot and decisions >= 1
    title = d.find_element(By.ID, "banner-title").text
    assert title == "Drawn" or title.endswith("win the deal") or title.endswith("wins the deal"), title
    assert not d.find_element(By.ID, "hint-btn").is_enabled()
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE" and "404" not in e["message"]]
    assert not errors, errors
