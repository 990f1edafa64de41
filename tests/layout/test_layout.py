"""The architecture holds: imports point one way, no cycles, small modules and functions.

Read statically (``ast``), so lazy imports inside functions count too: a
lazy import does not make an upward arrow acceptable.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("sixtysix_env", "agents", "training", "tables", "sixtysix_cli")
# a package imports only lower layers; a ``__main__`` module is a program (``python -m ...``), which nothing
# imports: it may call the command line above it
LAYERS = {"sixtysix_env": 0, "agents": 1, "training": 2, "tables": 2, "sixtysix_cli": 3}
# standard library only
PURE_RULES = (
    "cards", "actions", "engine", "scoring", "knowledge", "deals", "seeding", "variants", "variant_rules",
    "four", "four_deals", "four_knowledge",
)  # fmt: skip
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
LONG_FUNCTIONS_ALLOWED = {
    # the solver's search is one closure on purpose: locals are much faster than attributes
    ("agents/search/solver.py", "_make_phase2"),
}


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = path
    return out


MODULES = modules()


def imports_of(name: str, path: Path) -> set[str]:
    """Project modules that ``name`` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        # a module's own ancestor packages are imported before it anyway: no edge
        found |= {t for t in targets if t in MODULES and t != name and not name.startswith(t + ".")}
    return found


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def reaches(start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            todo += GRAPH[m]
    return False


def test_no_module_imports_a_module_that_imports_it_back():
    cycles = [(a, b) for a, deps in GRAPH.items() for b in deps if reaches(b, a)]
    assert not cycles, f"import cycles: {cycles[:10]}"


# The parts of the packages, as nodes of one graph: a module belongs to the longest of these it is in
# (``agents`` is the bots' top-level modules: base, play, registry, the bots...).
SUBPACKAGES = (
    "agents", "agents.core", "agents.arena", "agents.bench", "agents.protocol", "agents.search",
    "agents.evaluation", "agents.four", "sixtysix_env", "sixtysix_env.batched", "training", "training.expert",
    "tables", "sixtysix_cli",
)  # fmt: skip


def subpackage_of(module: str) -> str:
    return max((p for p in SUBPACKAGES if module == p or module.startswith(p + ".")), key=len)


def subpackage_graph() -> dict[str, set[str]]:
    """Which subpackage imports which (a ``__main__`` program is no part of its package's graph)."""
    graph: dict[str, set[str]] = {p: set() for p in SUBPACKAGES}
    for a, deps in GRAPH.items():
        if not a.endswith(".__main__"):
            graph[subpackage_of(a)] |= {subpackage_of(b) for b in deps} - {subpackage_of(a)}
    return graph


def test_no_subpackage_imports_one_that_imports_it_back():
    graph = subpackage_graph()

    def reaches_package(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            p = todo.pop()
            if p == goal:
                return True
            if p not in seen:
                seen.add(p)
                todo += graph[p]
        return False

    on_cycles = sorted((a, b) for a, deps in graph.items() for b in deps if reaches_package(b, a))
    assert not on_cycles, f"subpackage arrows on a cycle: {on_cycles}"


def test_imports_point_down_the_layers():
    up = [(a, b) for a, deps in GRAPH.items() for b in deps
          if LAYERS[b.split(".")[0]] > LAYERS[a.split(".")[0]] and not a.endswith(".__main__")]
    assert not up, f"imports pointing up: {up}"


def test_rules_modules_import_the_standard_library_only():
    for name in PURE_RULES:
        path = ROOT / "sixtysix_env" / f"{name}.py"
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.module in PURE_RULES or node.module is None, (name, node.module)
            elif isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                for m in mods:
                    assert m.split(".")[0] in sys.stdlib_module_names, (name, m)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_and_functions_are_small(name):
    path = MODULES[name]
    text = path.read_text()
    assert text.count("\n") <= MAX_MODULE_LINES, f"{path} has {text.count(chr(10))} lines"
    rel = str(path.relative_to(ROOT))
    for node in ast.walk(ast.parse(text)):
        allowed = (rel, getattr(node, "name", "")) in LONG_FUNCTIONS_ALLOWED
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not allowed:
            length = node.end_lineno - node.lineno + 1
            assert length <= MAX_FUNCTION_LINES, f"{rel}:{node.lineno} {node.name} has {length} lines"


def test_no_module_imports_a_private_name_of_another():
    """A ``_name`` is its module's own business: what modules share is public, with a docstring."""
    private = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                private += [f"{name}: from {'.' * node.level}{node.module or ''} import {a.name}"
                            for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not private, f"private names imported across modules: {private}"


def test_agents_core_imports_nothing_of_agents_above_it():
    up = [(a, b) for a, deps in GRAPH.items() if subpackage_of(a) == "agents.core"
          for b in deps if b.startswith("agents.") and subpackage_of(b) != "agents.core"]
    assert not up, f"agents.core importing the rest of agents: {up}"
