"""Shared by the external-bot tests: bot commands, specs, process checks, a small schema checker."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "agents" / "protocol" / "schemas"
PY_BOT = [sys.executable, "-S", str(ROOT / "examples" / "bots" / "random_bot.py")]
NODE = shutil.which("node")
NODE_BOT = [NODE or "node", str(ROOT / "examples" / "bots" / "random_bot.js")]
NO_NODE = "node is not installed, so the JavaScript example bot cannot run"
FAULTY = [sys.executable, "-S", str(Path(__file__).resolve().parent / "bots" / "faulty_bot.py")]


def spec(argv: list[str], logs: Path | str, **opts: Any) -> str:
    """An ``exec:`` spec with options (``logs`` always) in front of the command."""
    options = ",".join(f"{k}={v}" for k, v in {"logs": logs, **opts}.items())
    return f"exec:{shlex.quote(options)} {shlex.join(argv)}"


def logged_pids(logs: Path | str) -> set[int]:
    """Every pid the logs name: supervisors ('--- pid N'), bots ('pid N'), grandchildren."""
    pids = set()
    for log in Path(logs).glob("*.log"):
        pids |= {int(m) for m in re.findall(r"^(?:--- )?(?:pid|grandchild) (\d+)", log.read_text(), re.M)}
    return pids


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def wait_gone(pids: set[int], timeout: float = 3.0) -> set[int]:
    """The pids still alive after up to ``timeout`` seconds (empty when all ended)."""
    end = time.monotonic() + timeout
    left = {p for p in pids if alive(p)}
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = {p for p in left if alive(p)}
    return left


def wait_for(pred: Any, timeout: float = 10.0) -> Any:
    return wait_until(pred, timeout)


# ------------------------------------------------------------ schema checks
# The subset of JSON Schema 2020-12 that the protocol's schemas use; a test
# checks they use nothing else, and jsonschema (when installed) agrees.
SUPPORTED = {"$schema", "$id", "$ref", "$defs", "title", "description", "type", "const", "enum", "anyOf",
             "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
             "uniqueItems", "minimum", "maximum", "pattern", "minLength"}
_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def _is(x: Any, t: str) -> bool:
    if t == "integer":
        return isinstance(x, int) and not isinstance(x, bool)
    if t == "number":
        return isinstance(x, int | float) and not isinstance(x, bool)
    return isinstance(x, _TYPES[t])


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    return a == b


def errors(x: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, at: str = "$") -> list[str]:
    """What is wrong with ``x`` under ``schema`` (empty when valid)."""
    root = root or schema
    out: list[str] = []
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        out += errors(x, root["$defs"][name], root, at)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(x, t) for t in types):
            return out + [f"{at}: {x!r} is not of type {types}"]
    if "const" in schema and not _same(x, schema["const"]):
        out.append(f"{at}: {x!r} is not {schema['const']!r}")
    if "enum" in schema and not any(_same(x, e) for e in schema["enum"]):
        out.append(f"{at}: {x!r} not in {schema['enum']}")
    if "anyOf" in schema and all(errors(x, s, root, at) for s in schema["anyOf"]):
        out.append(f"{at}: {x!r} matches none of anyOf")
    if isinstance(x, dict):
        props = schema.get("properties", {})
        out += [f"{at}: missing {k!r}" for k in schema.get("required", []) if k not in x]
        for k, v in x.items():
            if k in props:
                out += errors(v, props[k], root, f"{at}.{k}")
            elif schema.get("additionalProperties", True) is False:
                out.append(f"{at}: unexpected field {k!r}")
    if isinstance(x, list):
        if "items" in schema:
            for i, v in enumerate(x):
                out += errors(v, schema["items"], root, f"{at}[{i}]")
        if len(x) < schema.get("minItems", 0) or len(x) > schema.get("maxItems", len(x)):
            out.append(f"{at}: {len(x)} items")
        if schema.get("uniqueItems") and len({json.dumps(v) for v in x}) != len(x):
            out.append(f"{at}: repeated items")
    if _is(x, "number"):
        if x < schema.get("minimum", x) or x > schema.get("maximum", x):
            out.append(f"{at}: {x} out of range")
    if isinstance(x, str):
        if "pattern" in schema and not re.search(schema["pattern"], x):
            out.append(f"{at}: {x!r} does not match {schema['pattern']!r}")
        if len(x) < schema.get("minLength", 0):
            out.append(f"{at}: too short")
    return out


def check(msg: dict[str, Any], name: str) -> None:
    """Assert ``msg`` is valid under schema ``name`` (also with jsonschema when it is installed)."""
    schema = load_schema(name)
    assert errors(msg, schema) == [], (name, msg)
    try:
        import jsonschema
    except ImportError:
        return
    jsonschema.Draft202012Validator(schema).validate(msg)
