"""The documentation: the rules page matches the code, its citations exist, the site's nav is whole."""

import os
import re
from pathlib import Path

import pytest
import yaml

from sixtysix_env.actions import ACTION_NAMES, N_ACTIONS
from sixtysix_env.cards import POINTS

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
RULES_TEXT = RULES.read_text(encoding="utf-8")
TEXT_SUFFIXES = {".py", ".md", ".json", ".yaml", ".yml", ".toml", ".txt", ".js", ".html", ".css", ".in", ""}
SKIP_DIRS = {".git", "site", "runs", "results", "build", "dist", "__pycache__", "node_modules"}


def repo_text_files() -> list[Path]:
    """The repository's text files (not venvs, builds or run outputs, which are never walked)."""
    found = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs
                   if d not in SKIP_DIRS and not d.startswith(".venv") and not d.endswith(".egg-info")]
        found += [Path(folder, n) for n in names if Path(n).suffix in TEXT_SUFFIXES]
    return found


def slug(heading: str) -> str:
    """A heading's anchor as MkDocs (and GitHub, for these headings) writes it."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def rule_sections() -> dict[str, str]:
    """Section number -> heading text, for "## 4. Scoring" and "### 4.1 A player declares"."""
    found = re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? (.+)$", RULES_TEXT, re.M)
    return {number: f"{number}{'' if '.' in number else '.'} {title}" for number, title in found}


def test_nothing_cites_rules_from_outside_the_repository():
    banned = ("RULES" + ".md", "seed " + "000", "seed " + "001", "../" + "shared", "shared " + "folder")
    hits = [f"{path.relative_to(ROOT)}: {word}" for path in repo_text_files()
            for word in banned if word in path.read_text(encoding="utf-8", errors="replace")]
    assert not hits


def test_every_rules_citation_names_an_existing_section():
    sections = rule_sections()
    assert {"1", "1.2", "3.4", "4.4", "5", "5.1", "5.2", "6", "7"} <= set(sections)
    cite = re.compile(r"(?:docs/rules\.md,? sections?|rules) (\d+(?:\.\d+)?)(?: and (\d+(?:\.\d+)?))?")
    cited = 0
    for path in repo_text_files():
        for match in cite.finditer(path.read_text(encoding="utf-8", errors="replace")):
            for number in filter(None, match.groups()):
                assert number in sections, f"{path.relative_to(ROOT)} cites rules {number}"
                cited += 1
    assert cited >= 20


def test_links_to_rule_sections_have_anchors():
    anchors = {slug(title) for title in rule_sections().values()}
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for anchor in re.findall(r"rules\.md#([\w-]+)", path.read_text(encoding="utf-8")):
            assert anchor in anchors, f"{path.name}: rules.md#{anchor}"


def test_rules_card_points_match_the_engine():
    row = re.search(r"^\| card points \| (.+) \|$", RULES_TEXT, re.M).group(1)
    assert [int(p) for p in row.split(" | ")] == list(POINTS[:6])
    assert sum(POINTS) == 120 and "120 card points" in RULES_TEXT


def test_rules_action_table_matches_the_engine():
    section = RULES_TEXT.split("### 5.1")[1].split("### 5.2")[0]
    rows = re.findall(r"^\| (\d+)(?:-(\d+))? \| (.+?) \|", section, re.M)
    covered = []
    for first, last, name in rows:
        ids = range(int(first), int(last or first) + 1)
        covered += ids
        for a in ids:
            assert ACTION_NAMES[a].split()[0] in name, (a, name)
    assert covered == list(range(N_ACTIONS))


@pytest.mark.parametrize("window", ["lead", "draw", "close-response", "follow", "final"])
def test_rules_describe_every_decision_window(window):
    assert re.search(rf"^\| {window} \|", RULES_TEXT, re.M)


def test_site_nav_lists_every_page():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    nav = [page for entry in config["nav"] for page in entry.values()]
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert sorted(nav) == pages


def test_every_script_the_docs_cite_exists():
    """Every `bench/`, `recipes/`, `examples/`, `.ci/` script and `python -m M` the docs cite exists."""
    cited, missing = 0, []
    for path in [ROOT / "README.md", ROOT / "SECURITY.md", *(ROOT / "docs").glob("*.md")]:
        text = path.read_text(encoding="utf-8")
        for rel in re.findall(r"(?<![\w/.-])((?:bench|recipes|examples|\.ci)/[\w./-]*\w)", text):
            cited += 1
            if re.search(r"/[A-Z]+\.", rel):  # a placeholder: examples/NAME.py
                continue
            if not (ROOT / rel).exists():
                missing.append(f"{path.name}: {rel}")
        for module in re.findall(r"python3? -m ((?:agents|training|tables|sixtysix_env|bench)[\w.]*)", text):
            cited += 1
            as_path = ROOT / module.replace(".", "/")
            if not (as_path.with_suffix(".py").exists() or (as_path / "__main__.py").exists()):
                missing.append(f"{path.name}: python -m {module}")
    assert cited >= 30 and not missing, missing


LOAD_QUOTE = re.compile(r"\bload(?:\s+average)?(?:\s+(?:about|of))?\s+\d", re.I)


def test_only_the_measurements_page_quotes_load_averages():
    """Figures with their machine and load live in docs/measurements.md (and the bench's own tables in
    docs/benchmark.md); the other pages teach and link there."""
    quoting = [f"{path.name}: {m.group(0)!r}" for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
               if path.name not in ("measurements.md", "benchmark.md")
               for m in LOAD_QUOTE.finditer(path.read_text(encoding="utf-8"))]
    assert not quoting, quoting
    assert LOAD_QUOTE.search("at load average\n4.2") and LOAD_QUOTE.search("(load about 2)")
    assert "## Machine and load, page by page" in (ROOT / "docs" / "measurements.md").read_text()
