"""The release: every file a package reads ships in the wheel, and the changelog has the version."""

import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = (ROOT / "pyproject.toml").read_text()
PACKAGES = ("sixtysix_env", "agents", "training", "tables")


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
