"""The release: every file a package reads ships in the wheel, the sdist carries every file the README
links (SECURITY.md included), and the changelog has the version."""

import fnmatch
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = (ROOT / "pyproject.toml").read_text()
PACKAGES = ("sixtysix_env", "agents", "training", "tables", "sixtysix_cli")


def table(name: str) -> str:
    """The body of one ``[name]`` table of pyproject.toml."""
    return PYPROJECT.split(f"[{name}]\n")[1].split("\n[")[0]


def package_data() -> dict[str, list[str]]:
    rows = re.findall(r"^(\w+) = \[(.*?)\]", table("tool.setuptools.package-data"), re.M | re.S)
    return {pkg: re.findall(r'"([^"]+)"', globs) for pkg, globs in rows}


def test_every_data_file_of_the_packages_is_package_data():
    data = package_data()
    missing = []
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*"):
            if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT / pkg).as_posix()
            if not any(fnmatch.fnmatch(rel, glob) for glob in data.get(pkg, [])):
                missing.append(f"{pkg}/{rel}")
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"


def test_package_data_globs_match_files():
    for pkg, globs in package_data().items():
        for glob in globs:
            assert list((ROOT / pkg).glob(glob)), f"{pkg}: {glob} matches nothing"


def test_changelog_has_the_version():
    version = re.search(r'^version = "([^"]+)"', table("project"), re.M).group(1)
    assert re.search(rf"^## \[?{re.escape(version)}\]? - \d{{4}}-\d{{2}}-\d{{2}}$",
                     (ROOT / "CHANGELOG.md").read_text(), re.M)


def test_manifest_grafts_exist():
    for folder in re.findall(r"^graft (\S+)$", (ROOT / "MANIFEST.in").read_text(), re.M):
        assert (ROOT / folder).is_dir(), folder


def readme_links() -> set[str]:
    """The repository files the README links to (no anchors, no external addresses)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return {t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I) and not t.startswith("#")}


def in_manifest(rel: str) -> bool:
    """Whether MANIFEST.in (or the package data, which the sdist carries too) takes the file."""
    manifest = (ROOT / "MANIFEST.in").read_text()
    included = {f for line in re.findall(r"^include (.+)$", manifest, re.M) for f in line.split()}
    grafts = re.findall(r"^graft (\S+)$", manifest, re.M)
    pruned = re.findall(r"^prune (\S+)$", manifest, re.M)
    if any(rel == p or rel.startswith(p + "/") for p in pruned):
        return False
    if rel in included or any(rel.startswith(g + "/") for g in grafts):
        return True
    pkg, _, inner = rel.partition("/")
    return any(fnmatch.fnmatch(inner, glob) for glob in package_data().get(pkg, []))


def test_the_sdist_takes_every_file_the_readme_links():
    links = readme_links()
    assert {"SECURITY.md", "CHANGELOG.md", "docs/rules.md", "agents/protocol/PROTOCOL.md"} <= links
    assert not [rel for rel in sorted(links) if not in_manifest(rel)]


@pytest.mark.slow
def test_built_sdist_holds_security_and_the_readme_links(tmp_path):
    """`python -m build --sdist`: SECURITY.md and every file the README links are in the archive."""
    r = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path),
                        str(ROOT)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    (sdist,) = tmp_path.glob("sixtysix-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    assert not [rel for rel in sorted(readme_links() | {"SECURITY.md", "LICENSE"}) if rel not in names]
