"""`sixtysix serve` in headless Chromium (the system's chromium + chromedriver, via Selenium):
a whole match by clicking, an illegal card that does nothing, a hint, the record viewer.

Screenshots go to ``$SIXTYSIX_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
pytest.importorskip("starlette")

import helpers  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no system Chromium: apt-get install chromium chromium-driver (.ci/run does)",
)
# How long the page may show no change before the test fails: a loaded machine is slow, not
# stuck, so the test is bounded by progress (and by moves: a match ends in far fewer), not by
# the wall clock.
STALL_S = 60.0


def wait_until(pred, message: str = "timed out"):
    """Wait up to the stall limit (the machine may be loaded)."""
    return helpers.wait_until(pred, STALL_S, message)
MAX_DECISIONS = 500


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


def table(d) -> dict:
    return d.execute_script(
        "const t = document.getElementById('table');"
        "return {turn: t.dataset.turn, version: +t.dataset.version, over: t.dataset.over === 'true',"
        " banner: !document.getElementById('banner').hidden,"
        " next: !document.getElementById('banner-next').hidden,"
        " trick: document.querySelectorAll('#trick .card').length,"
        " hand: [...document.querySelectorAll('#hand .card')].map(c => c.dataset.card).join(' '),"
        " status: document.getElementById('status').textContent};")


@pytest.mark.slow
def test_a_whole_match_by_clicking_then_the_viewer(start_server, browser, tmp_path):
    from agents.arena import round_robin

    shots = Path(os.environ.get("SIXTYSIX_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    arena = str(tmp_path / "arena.jsonl")
    round_robin(["heuristic", "random"], games=2, results_path=arena, progress=False, seed=0)
    base, _ = start_server("--records", arena, "--hint", "pimc:worlds=16")
    d = browser
    d.get(base + "/?fast=1")
    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#vs option[value=heuristic]"))
    Select(d.find_element(By.ID, "vs")).select_by_value("heuristic")
    Select(d.find_element(By.ID, "hint")).select_by_value("pimc:worlds=16")
    d.find_element(By.ID, "seed").send_keys("7")
    d.find_element(By.ID, "new").click()

    rng = random.Random(7)
    decisions = deals = 0
    hinted = refused = False
    seen, changed = None, time.monotonic()
    while True:
        assert decisions <= MAX_DECISIONS, f"the match did not end after {decisions} decisions"
        t = table(d)
        if (t["version"], t["turn"], t["banner"]) != seen:
            seen, changed = (t["version"], t["turn"], t["banner"]), time.monotonic()
        assert time.monotonic() - changed < STALL_S, f"the match stalled: no change for {STALL_S:.0f} s: {t}"
        if t["banner"] and t["next"]:
            if deals == 0:
                d.save_screenshot(str(shots / "deal-over.png"))
            assert not d.find_element(By.ID, "hint-btn").is_enabled()  # no hint under the banner
            deals += 1
            d.find_element(By.ID, "banner-next").click()
            continue
        if t["banner"] and t["over"]:
            break
        if t["turn"] != "you":
            time.sleep(0.03)
            continue
        decisions += 1
        if not hinted and decisions >= 3 and t["trick"] == 1:  # following a lead: a good picture
            d.find_element(By.ID, "hint-btn").click()
            rows = wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#hint-out .hint-row"),
                              message="no hint appeared")
            pick = d.find_element(By.CSS_SELECTOR, "#hint-out .pick").text
            assert pick.startswith("pimc:worlds=16 would play")
            assert len(d.find_elements(By.CSS_SELECTOR, "#hand .card .badge")) >= 1 and len(rows) >= 2
            assert d.find_elements(By.CSS_SELECTOR, ".hinted")
            d.save_screenshot(str(shots / "play-hint.png"))
            hinted = True
        illegal = d.find_elements(By.CSS_SELECTOR, "#hand .card.illegal")
        if illegal and not refused:
            before = table(d)
            illegal[0].click()
            time.sleep(0.6)
            after = table(d)
            assert after["version"] == before["version"] and after["hand"] == before["hand"]
            assert after["turn"] == "you"
            assert after["status"] != before["status"]  # the reason is shown, nothing is sent
            refused = True
        version = t["version"]
        try:
            buttons = [b for b in d.find_elements(By.CSS_SELECTOR, "#actions button")
                       if "warn" not in (b.get_attribute("class") or "")]
            declare = [b for b in buttons if b.get_attribute("data-kind") == "declare"]
            cards = d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
            options = cards + [b for b in buttons
                               if b.get_attribute("data-kind") != "close" or rng.random() < 0.2]
            (declare[0] if declare else rng.choice(options)).click()
        except StaleElementReferenceException:  # redrawn between finding and clicking: look again
            decisions -= 1
            continue
        wait_until(lambda v=version: table(d)["version"] != v or table(d)["banner"],
                   message="a click did nothing")

    assert hinted and refused and decisions >= 10
    d.save_screenshot(str(shots / "game-over.png"))
    assert "match" in d.find_element(By.ID, "banner-title").text
    d.find_element(By.ID, "banner-view").click()  # the game just played, in the viewer
    wait_until(lambda: d.find_element(By.ID, "v-move").text.startswith("Move 1 of"), message="viewer empty")
    for _ in range(5):
        d.find_element(By.ID, "v-next").click()
    assert d.find_element(By.ID, "v-move").text.startswith("Move 6 of")
    assert len(d.find_elements(By.CSS_SELECTOR, "#v-hand-0 .card")) + \
        len(d.find_elements(By.CSS_SELECTOR, "#v-hand-1 .card")) >= 9  # both hands face up

    # a recorded arena game, from the server's --records file
    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "details[data-source='0'] li button"))
    d.find_element(By.CSS_SELECTOR, "details[data-source='0'] li button[data-index='1']").click()
    wait_until(lambda: d.find_element(By.ID, "v-name-0").text.startswith("random (player_0)"),
               message="arena game not shown")
    moves = d.find_elements(By.CSS_SELECTOR, "#v-moves li")
    assert len(moves) > 20
    for _ in range(9):
        d.find_element(By.ID, "v-next").click()
    assert d.find_element(By.ID, "v-move").text.startswith("Move 10 of")
    assert len(d.find_elements(By.CSS_SELECTOR, "#v-facedown .card")) >= 1
    d.save_screenshot(str(shots / "viewer.png"))
    d.find_element(By.ID, "v-last").click()
    assert "wins" in d.find_element(By.ID, "v-move").text

    # the same file opened from the browser
    d.find_element(By.ID, "upload").send_keys(arena)
    wait_until(lambda: len(d.find_elements(By.CSS_SELECTOR, "#sources details")) == 3)
    d.find_element(By.CSS_SELECTOR, "#sources details:first-child li button").click()
    wait_until(lambda: d.find_element(By.ID, "v-name-0").text.startswith("heuristic (player_0)"),
               message="upload not shown")
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE" and "/api/game " not in e["message"]
              and "404" not in e["message"]]
    assert not errors, errors


def layout(d) -> dict:
    """What the phone layout must get right, measured in the page."""
    return d.execute_script("""
        const box = (id) => { const r = document.getElementById(id).getBoundingClientRect();
                              return [r.left, r.top, r.right, r.bottom]; };
        const shown = (id) => { const e = document.getElementById(id);
                                return !!e.offsetParent && e.getBoundingClientRect().width > 0; };
        const moves = document.getElementById('v-moves');
        const probe = document.createElement('canvas').getContext('2d');
        const style = getComputedStyle(moves);
        probe.font = style.fontSize + ' ' + style.fontFamily;
        return {width: innerWidth, scroll: document.documentElement.scrollWidth,
                last: shown('last-trick') || shown('last-label'), lastBox: box('last-label'),
                empty: shown('v-empty'), table: shown('v-table'),
                names: [0, 1].map((s) => [box('v-name-' + s), box('v-stats-' + s)]),
                numberRoom: Math.min(...['v-moves', 'log'].map(
                  (id) => parseFloat(getComputedStyle(document.getElementById(id)).paddingLeft))),
                number: probe.measureText('8888. ').width};
    """)


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width", [390, 1280])
def test_phone_and_desktop_layout(start_server, browser, tmp_path, width):
    """At 390 px and 1280 px: no sideways scroll, the last trick shown, the viewer's empty
    state, names that do not overlap, room for long move numbers; New game mid-game asks."""
    from agents.arena import round_robin

    shots = Path(os.environ.get("SIXTYSIX_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    arena = str(tmp_path / "arena.jsonl")
    round_robin(["heuristic", "random"], games=1, results_path=arena, progress=False, seed=0)
    base, _ = start_server("--records", arena, "--hint", "none")
    d = browser
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": 860, "deviceScaleFactor": 1, "mobile": width < 600})
    d.get(base + "/?fast=1")
    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#vs option[value=heuristic]"))
    Select(d.find_element(By.ID, "vs")).select_by_value("heuristic")
    d.find_element(By.ID, "seed").send_keys("7")
    Select(d.find_element(By.ID, "seat")).select_by_value("0")
    d.find_element(By.ID, "new").click()
    while not d.find_elements(By.CSS_SELECTOR, "#last-trick .card"):  # play until a trick is taken
        wait_until(lambda: table(d)["turn"] == "you", message="never my turn")
        version = table(d)["version"]
        try:
            options = d.find_elements(By.CSS_SELECTOR,
                                      "#hand .card.legal, #actions button[data-kind=continue]")
            options[0].click()
        except StaleElementReferenceException:
            continue
        wait_until(lambda v=version: table(d)["version"] != v, message="a click did nothing")
    wait_until(lambda: table(d)["turn"] == "you", message="never my turn")
    m = layout(d)
    d.save_screenshot(str(shots / f"play-{width}.png"))
    assert m["scroll"] <= m["width"], m  # nothing sticks out sideways
    assert m["last"] and m["lastBox"][2] <= m["width"], m  # the last trick, on the screen

    before = table(d)
    d.find_element(By.ID, "new").click()  # mid-game: asks first
    d.switch_to.alert.dismiss()
    assert table(d)["version"] == before["version"] and table(d)["hand"] == before["hand"]

    d.find_element(By.ID, "tab-viewer").click()
    m = layout(d)
    d.save_screenshot(str(shots / f"viewer-empty-{width}.png"))
    assert m["empty"] and not m["table"], m
    assert "Pick a game" in d.find_element(By.ID, "v-empty").text

    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "details[data-source='0'] li button"))
    d.find_element(By.CSS_SELECTOR, "details[data-source='0'] li button").click()
    wait_until(lambda: d.find_element(By.ID, "v-move").text.startswith("Move 1 of"), message="viewer empty")
    for _ in range(12):
        d.find_element(By.ID, "v-next").click()
    m = layout(d)
    d.save_screenshot(str(shots / f"viewer-{width}.png"))
    assert m["table"] and not m["empty"] and m["scroll"] <= m["width"], m
    for name, stats in m["names"]:
        assert not overlap(name, stats), m["names"]
    assert not overlap(m["names"][0][0], m["names"][1][0])
    assert m["numberRoom"] >= m["number"], m  # four-digit move numbers keep their first digit
    assert " 1 tricks" not in d.find_element(By.ID, "v-table").text


def test_a_schnapsen_game_chosen_in_the_page_shows_five_cards(start_server, browser):
    """The rules select offers the server's presets; a Schnapsen game deals five cards and
    the page shows all five (and names the preset beside the match)."""
    base, _ = start_server("--hint", "none")
    d = browser
    d.get(base + "/?fast=1")
    wait_until(lambda: d.find_elements(By.CSS_SELECTOR, "#rules option[value=schnapsen]"))
    assert Select(d.find_element(By.ID, "rules")).first_selected_option.get_attribute("value") == "german"
    Select(d.find_element(By.ID, "vs")).select_by_value("random")
    Select(d.find_element(By.ID, "rules")).select_by_value("schnapsen")
    d.find_element(By.ID, "seed").send_keys("7")
    Select(d.find_element(By.ID, "seat")).select_by_value("0")
    d.find_element(By.ID, "new").click()
    wait_until(lambda: table(d)["turn"] == "you", message="never my turn")
    hand = table(d)["hand"].split()
    assert len(hand) == 5 and not any(c.startswith("9") for c in hand), hand
    assert "schnapsen" in d.find_element(By.ID, "match-info").text
