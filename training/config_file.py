"""Reading a config file: YAML from a regular file of bounded size, each key once, errors in one line.

A config file is the operator's, so it is trusted to mean what it says; it is
still read so that a mistake costs one line: a fifo or a device is refused
without blocking on it, a huge file (the wrong file) is refused, a key given
twice is an error (PyYAML would keep the last one in silence), nesting too
deep for PyYAML's recursion or a number too long to convert is an error, and
PyYAML's several-line messages become one line with the line and column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agents.arena.inputs import read_regular


class ConfigError(ValueError):
    """A bad config file, key, type or value, command-line override, or a run folder the
    command cannot use."""


MAX_CONFIG_BYTES = 1 << 20  # a config is a page of keys; more is the wrong file


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, but a key given twice is an error (it would keep the last one silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key[:60]!r} given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _yaml_problem(e: yaml.YAMLError) -> str:
    """PyYAML's several-line message as one line: the problem and where."""
    problem = getattr(e, "problem", None)
    mark = getattr(e, "problem_mark", None)
    if problem is None:
        return " ".join(str(e).split())
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark else str(problem)


def read_yaml(path: str | Path) -> Any:
    """A config file's YAML, or a ConfigError naming the file (never blocks on a fifo or a device)."""
    path = Path(path)
    try:
        text = read_regular(str(path), MAX_CONFIG_BYTES).decode()
        return yaml.load(text, Loader=_UniqueKeyLoader) or {}  # noqa: S506 - a SafeLoader
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read config file {path}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {path} is not valid YAML: {_yaml_problem(e)}") from None
    except RecursionError:  # PyYAML builds nested lists and mappings recursively
        raise ConfigError(f"config file {path} nests lists or mappings too deeply") from None
    except ValueError as e:  # an int of thousands of digits: Python refuses to convert it
        raise ConfigError(f"config file {path} holds a value that cannot be read: {str(e)[:100]}") from None


