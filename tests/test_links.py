"""Every link of the README, SECURITY.md, the changelog and the docs pages leads somewhere (no network).

A relative link must name an existing file (a docs page's link must stay inside docs/, or the strict
site build fails), and its #anchor a heading of the target; an external link is only checked for its
shape. Code (fenced blocks and `inline spans`) is not prose: links inside it are not links.
"""

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "SECURITY.md", ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)  # pymdownx.snippets, base path the repository root
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s.*)?$", re.M)
AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def source(path: Path) -> str:
    """The page as the site sees it: snippet lines replaced by the file they name."""
    text = path.read_text(encoding="utf-8")
    return SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(encoding="utf-8"), text)


def unfenced(text: str) -> str:
    """The text without its fenced code blocks."""
    return re.sub(r"^( {0,3})(`{3,}|~{3,}).*?^\1\2[^\n]*$", "", text, flags=re.M | re.S)


def prose(text: str) -> str:
    """The text without its fenced code blocks and inline code spans."""
    text = unfenced(text)
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "code", text, flags=re.S)


def links(path: Path) -> list[str]:
    text = prose(source(path))
    return LINK.findall(text) + REFERENCE.findall(text) + AUTOLINK.findall(text)


def mkdocs_slug(heading: str) -> str:
    """Python-Markdown's toc slugify (MkDocs' default)."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a page has: its headings as MkDocs and GitHub write them, and HTML ids."""
    text = unfenced(source(path))
    found = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
        plain = re.sub(r"[`*]", "", plain)  # code and emphasis marks are not in the anchor
        for slug in {mkdocs_slug(plain), github_slug(plain)}:
            n = seen.get(slug, 0)
            found.add(slug if n == 0 else f"{slug}-{n}")  # a repeated heading: -1, -2, ...
            seen[slug] = n + 1
    return found


def external_ok(url: str) -> bool:
    parts = urlsplit(url)
    return (parts.scheme in ("http", "https") and "." in parts.hostname if parts.hostname else False) \
        and " " not in url


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves(page):
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # a scheme: external
            if target.startswith("mailto:"):
                continue
            if not external_ok(target):
                broken.append(f"{target}: not a well-formed http(s) address")
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
            continue
        if page.parent == DOCS and path_part and DOCS.resolve() not in dest.parents:
            broken.append(f"{target}: outside docs/ (the site has no such page)")
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_the_checker_finds_links_and_headings():
    """The checker itself: it sees the README's links, skips code, and slugs headings as MkDocs does."""
    readme = links(ROOT / "README.md")
    assert "SECURITY.md" in readme and "docs/rules.md#44-the-match" in readme
    assert not [link for link in readme if "download.pytorch.org" in link]  # in code only
    assert mkdocs_slug("4.4 The match") == "44-the-match"
    assert mkdocs_slug("`guided`: search - a network") == "guided-search-a-network"
    assert "44-the-match" in anchors(DOCS / "rules.md")
    assert prose("a `[x](nowhere.md)` b\n```\n[y](nowhere.md)\n```\n") .count("nowhere") == 0
    assert not external_ok("https://") and external_ok("https://pytorch.org/get-started/locally/")
