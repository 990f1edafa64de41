"""Arena results as JSON Lines: written game by game, resumable, replayable (:mod:`.playback`).

A results file is one header line and one line per finished game::

    {"type": "header", "format": "sixtysix-arena/1", "config": {...}}
    {"type": "game", "index": 0, "seed": ..., "seats": [...], "actions": [...], ...}

The header also says how the run was played (absent in files from before
them, and never part of the run's identity): ``seed_kind`` (``"secret"``: drawn
for the run, or ``"public"``: a given ``--seed``), ``sandbox`` (bool),
``bot_kinds`` (per player: ``"built-in"``, ``"plug-in"`` or ``"external"``) and
``metering`` (how external bots' CPU is metered, e.g. ``"cgroup v2"``). A
resume that would weaken them (another seed kind, sandbox or metering) is
refused. A game played again (a reference bot's time loss, a worker that
died) is announced by a line ``{"type": "replay", "index", "pairing", "why"}``;
:func:`read_results` counts them into the header's ``replays``.

Each game line is appended and flushed the moment the game ends, so an
interrupted run loses at most the games in flight; :func:`open_results` with
``resume=True`` reads the file back (checking that it belongs to the same run
configuration) and the arena plays only the missing game indices. Game lines
may come in any order (parallel workers); readers order them by index.

The file survives anything a user or a crash can do to it. A line that is
not a well-formed game record (cut off by a kill, hand-edited, a missing or
mistyped field) is skipped with a warning on stderr, every good line is kept,
and a resumed run replays the games it lost; so does a game whose seed or
seats do not match the schedule (checked by the arena). Lines are never
rewritten: each is appended with one ``write()`` to a file opened with
``O_APPEND`` under an advisory ``flock``, so any number of processes may
append to one file. A file with a header and no games (a run that failed
at its start) is taken over by the next run. When one game is recorded
twice, the last good line counts. Only a file whose first line is not an
arena header is refused, so no other file is ever appended to.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from sixtysix_env.variants import RulesMismatchError

from .inputs import MAX_RESULTS_BYTES, NotRegularFile, check_regular, read_regular
from .lines import MAX_INDEX, game_problem, parse_line, table_of
from .schedule import Task

FORMAT = "sixtysix-arena/1"
# Config keys that may differ between a run and its resumption.
MUTABLE_KEYS = frozenset({"games", "workers", "progress"})


class ResultsFileError(ValueError):
    """A results file that is not an arena's, belongs to another run, or would be overwritten."""


class EstimatorMismatchError(ResultsFileError):
    """A resume whose estimator or value function differs from the one the results file was played with."""


class ConditionsMismatchError(ResultsFileError):
    """A resume whose seed kind, sandbox or metering differs from what the results file's header records."""


# How a run was played, as its header records it (see the module docstring).
SEED_KIND, SANDBOX, BOT_KINDS, METERING, REPLAYS = "seed_kind", "sandbox", "bot_kinds", "metering", "replays"
SECRET, PUBLIC = "secret", "public"
BUILT_IN, PLUGIN, EXTERNAL = "built-in", "plug-in", "external"
MAX_METERING = 80  # characters of a recorded metering
COMPARED = (SEED_KIND, SANDBOX, METERING)  # conditions a resume must keep

# A replay line: a game played again, and why.
REPLAY = "replay"
REFERENCE_TIMEOUT, WORKER_DIED = "reference timeout", "worker died"
REPLAY_REASONS = (REFERENCE_TIMEOUT, WORKER_DIED)


# Defaults of config keys that older results files do not have (their runs used the default).
CONFIG_DEFAULTS: dict[str, Any] = {"rules": "german"}


def rules_of(config: Mapping[str, Any]) -> str:
    """The rules spec a results file's config was played under (German for files from before presets)."""
    rules = config.get("rules", CONFIG_DEFAULTS["rules"])
    return rules if isinstance(rules, str) else repr(rules)


def _estimator_of(config: Mapping[str, Any]) -> str:
    """``"aivat (value solver)"`` or ``"plain"``, as a results file's config records it (a record
    that is no mapping is shown as it is: a file's ``"x"`` is not ``"plain"``)."""
    if "estimator" not in config:
        return "plain"
    est = config["estimator"]
    if not isinstance(est, dict):
        return f"{str(est)[:40]!r} (not an estimator record)"
    return f"{str(est.get('name'))[:40]} (value {str(est.get('value'))[:40]})"


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=False)


def header_line(config: Mapping[str, Any], conditions: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "header", "format": FORMAT, "config": dict(config), **(conditions or {})}


def condition_problem(key: str, value: Any, players: int) -> str | None:
    """Why a header's condition ``key`` is malformed (untrusted input), or None."""
    ok = {
        SEED_KIND: value in (SECRET, PUBLIC) and isinstance(value, str),
        SANDBOX: type(value) is bool,
        BOT_KINDS: isinstance(value, list) and len(value) == players
        and all(isinstance(k, str) and k in (BUILT_IN, PLUGIN, EXTERNAL) for k in value),
        METERING: isinstance(value, str) and 0 < len(value) <= MAX_METERING and value.isprintable(),
    }[key]
    return None if ok else f"a malformed header field {key!r} (ignored)"


def conditions_of(header: Mapping[str, Any], warn: Warn | None = None) -> dict[str, Any]:
    """The well-formed conditions a header records (the malformed ones dropped, with a warning)."""
    players = header.get("config", {}).get("players")
    n = len(players) if isinstance(players, list) else -1
    out = {}
    for key in (SEED_KIND, SANDBOX, BOT_KINDS, METERING):
        if key in header:
            problem = condition_problem(key, header[key], n)
            if problem is None:
                out[key] = header[key]
            elif warn is not None:
                warn(f"1: {problem}")
    return out


def conditions_mismatch(recorded: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The compared conditions both record and that differ."""
    return [k for k in COMPARED if k in recorded and k in new and recorded[k] != new[k]]


def replay_line(task: Task, why: str) -> dict[str, Any]:
    """The line announcing that game ``task`` is played again, and ``why`` (:data:`REPLAY_REASONS`)."""
    return {"type": REPLAY, "index": task.index, "pairing": [task.a, task.b], "why": why}


def is_replay(line: Mapping[str, Any]) -> bool:
    return line.get("type") == REPLAY


def replay_problem(obj: Any) -> str | None:
    """Why ``obj`` is not a well-formed replay line, or None."""
    if not (isinstance(obj, dict) and type(obj.get("index")) is int and 0 <= obj["index"] < MAX_INDEX):
        return "a replay line without a good index"
    pairing = obj.get("pairing")
    if not (isinstance(pairing, list) and len(pairing) == 2
            and all(type(p) is int and 0 <= p < MAX_INDEX for p in pairing)):
        return "a replay line without a good pairing"
    return None if obj.get("why") in REPLAY_REASONS else "a replay line with an unknown reason"


class Warn:
    """Damaged-line warnings on stderr, at most ``limit`` lines then a count; none at all when
    ``quiet`` (the caller reports :attr:`count` itself: a web client's upload must not write to
    the server's log)."""

    def __init__(self, path: str, limit: int = 10, quiet: bool = False) -> None:
        self.path, self.limit, self.count, self.quiet = path, limit, 0, quiet

    def __call__(self, message: str) -> None:
        self.count += 1
        if self.count <= self.limit and not self.quiet:
            print(f"warning: {self.path}:{message}", file=sys.stderr)

    def done(self, what: str = "damaged lines skipped") -> None:
        if self.count > self.limit and not self.quiet:
            print(f"warning: {self.path}: {self.count} {what} in all", file=sys.stderr)


Parsed = tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]


def _parse_lines(path: str, data: bytes | None = None, warn: Warn | None = None) -> Parsed:
    """(header or None for an empty file, the well-formed game lines and replay lines in file order).

    Damaged lines are skipped with a warning, so are malformed conditions of
    the header; a first line that is not an arena header is a :class:`ResultsFileError`.
    """
    if data is None:
        try:
            data = read_regular(path, MAX_RESULTS_BYTES)
        except NotRegularFile as e:
            raise ResultsFileError(f"{path}: {e.strerror}, not a results file") from None
    lines = data.split(b"\n")
    header: dict[str, Any] | None = None
    games: list[dict[str, Any]] = []
    replays: list[dict[str, Any]] = []
    warn = warn or Warn(path)
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        obj, problem = parse_line(raw)
        if header is None:
            if not (isinstance(obj, dict) and obj.get("type") == "header" and obj.get("format") == FORMAT
                    and isinstance(obj.get("config"), dict)):
                raise ResultsFileError(
                    f"{path}:{lineno}: not a sixtysix arena results file (expected a header line "
                    f"with format {FORMAT!r})"
                )
            header = {k: obj[k] for k in ("type", "format", "config")} | conditions_of(obj, warn)
            continue
        if isinstance(obj, dict) and is_replay(obj):
            problem = problem or replay_problem(obj)
            if problem is None:
                replays.append(obj)
            else:
                warn(f"{lineno}: damaged replay line skipped ({problem})")
            continue
        problem = problem or game_problem(obj, table_of(header["config"]))
        if problem is None:
            games.append(obj)
        else:
            warn(f"{lineno}: damaged results line skipped ({problem}); its game is played again on --resume")
    warn.done()
    return header, games, replays


def read_results(path: str, data: bytes | None = None,
                 warn: Warn | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Header and game records of a results file (or of its text ``data``, ``path`` naming it),
    games ordered by index.

    Damaged lines are skipped with a warning on stderr (see the module
    docstring; ``warn``: a :class:`Warn` of the caller's); a file that is not
    an arena results file is a :class:`ResultsFileError`. The header holds
    the well-formed conditions it records and ``replays``, the count of
    well-formed replay lines (counted here, never read from the header).
    """
    header, games, replays = _parse_lines(path, data, warn)
    if header is None:
        raise ResultsFileError(f"{path}: empty results file (no header line)")
    return {**header, REPLAYS: len(replays)}, ordered(games)


def ordered(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per game index (the last one recorded), ordered by index."""
    by_index = {g["index"]: g for g in games}
    return [by_index[i] for i in sorted(by_index)]


def recorded_header(path: str) -> dict[str, Any] | None:
    """The first line of the file at ``path`` if it is an object (None: no such file or object)."""
    try:
        first = read_regular(path, 1 << 20, head=True).split(b"\n", 1)[0]
    except OSError:  # none, or no regular file: open_results then names the problem
        return None
    obj, _ = parse_line(first)
    return obj if isinstance(obj, dict) else None


def recorded_seed(path: str) -> int | None:
    """The master seed in the header of the results file at ``path`` (None: no such file or header)."""
    obj = recorded_header(path) or {}
    config = obj.get("config")
    seed = config.get("seed") if isinstance(config, dict) else None
    return seed if type(seed) is int else None


def recorded_seed_kind(path: str) -> str | None:
    """The seed kind the header of the results file at ``path`` records (None: none, or malformed)."""
    obj = recorded_header(path) or {}
    kind = obj.get(SEED_KIND)
    return kind if kind in (SECRET, PUBLIC) and isinstance(kind, str) else None


def config_mismatch(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Keys whose values differ between two run configs (ignoring MUTABLE_KEYS)."""
    keys = (set(old) | set(new)) - MUTABLE_KEYS
    return sorted(k for k in keys
                  if old.get(k, CONFIG_DEFAULTS.get(k)) != new.get(k, CONFIG_DEFAULTS.get(k)))


class ResultsWriter:
    """Appends lines to a results file: one ``write()`` each, ``O_APPEND``, under ``flock``."""

    def __init__(self, fd: int, replayed: list[int] | None = None) -> None:
        self._fd = fd
        self.replayed = replayed or []  # indices of the replay lines the file held when opened

    def write(self, record: Mapping[str, Any]) -> None:
        with _locked(self._fd):
            _write_all(self._fd, (dumps(record) + "\n").encode())

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def open_results(
    path: str, config: Mapping[str, Any], resume: bool = False, conditions: Mapping[str, Any] | None = None
) -> tuple[list[dict[str, Any]], ResultsWriter]:
    """Start or continue a results file for a run with ``config``.

    Returns the well-formed game lines already recorded (in file order; empty
    for a new file) and a writer for new ones. Without ``resume`` a file
    that holds games is an error, so finished results are never mixed up by
    accident. With ``resume`` the file's config must match ``config`` (up to
    :data:`MUTABLE_KEYS`: the header keeps the first run's ``games``), and
    so must the ``conditions`` the header records (:data:`COMPARED`; a new
    header records ``conditions``). A file without games is taken over
    whatever its header says. The writer's ``replayed`` lists the replay
    lines already recorded.
    """
    config = json.loads(dumps(config))  # normalise (tuples -> lists) for comparison
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
    try:
        try:
            check_regular(fd, path, MAX_RESULTS_BYTES)  # a fifo or device would block or never end
        except NotRegularFile as e:
            raise ResultsFileError(f"{path}: {e.strerror}, not a results file") from None
        with _locked(fd):
            games, replays = _claim(path, fd, config, resume, dict(conditions or {}))
    except BaseException:
        os.close(fd)
        raise
    return games, ResultsWriter(fd, [r["index"] for r in replays])


def _claim(path: str, fd: int, config: Mapping[str, Any], resume: bool, conditions: dict[str, Any]
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Under the lock: check the file against the run, write its header if it has no games; return
    the game and replay lines recorded."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0) if size else b""
    header, games, replays = _parse_lines(path, data) if data.strip() else (None, [], [])
    if games and not resume:
        raise ResultsFileError(
            f"{path} already holds results; pass resume=True (--resume) to continue that run, "
            "or choose another path"
        )
    if header is not None and games:
        diff = config_mismatch(header["config"], config)
        if "rules" in diff:
            raise RulesMismatchError(
                f"{path} was played under rules {rules_of(header['config'])!r}, this run asks for "
                f"{rules_of(config)!r}: resume with --rules {rules_of(header['config'])} "
                "or choose another path"
            )
        if "estimator" in diff:
            raise EstimatorMismatchError(
                f"{path} was played with estimator {_estimator_of(header['config'])}, this run asks for "
                f"{_estimator_of(config)}: resume with the same --estimator and --value, or choose "
                "another path"
            )
        if diff:
            details = "; ".join(
                f"{k}: file has {header['config'].get(k)!r}, this run {config.get(k)!r}" for k in diff
            )
            raise ResultsFileError(f"{path} belongs to a different run configuration ({details})")
        check_conditions(path, header, conditions)
        if not data.endswith(b"\n"):  # a line cut off by a kill: end it, so it stays one damaged line
            _write_all(fd, b"\n")
        return games, replays
    if header is None or config_mismatch(header["config"], config) or conditions_of(header) != conditions:
        os.ftruncate(fd, 0)  # no games to lose: a new file, or one a failed start left behind
        _write_all(fd, (dumps(header_line(config, conditions)) + "\n").encode())
        return [], []
    if not data.endswith(b"\n"):
        _write_all(fd, b"\n")
    return [], replays


def check_conditions(path: str, header: Mapping[str, Any], conditions: Mapping[str, Any]) -> None:
    """A resume keeps the seed kind, sandbox and metering the file's header records (a file
    from before they were recorded resumes under any)."""
    diff = conditions_mismatch(header, conditions)
    if diff:
        details = "; ".join(f"{k}: file has {header[k]!r}, this run {conditions[k]!r}" for k in diff)
        raise ConditionsMismatchError(f"{path} was played under other conditions ({details}): resume "
                                      "under the same ones (without --seed for a secret seed), or choose "
                                      "another path")


MEASURED = ("cpu",)  # fields of a game line that are measured, so differ between runs of the same games


def as_played(line: dict[str, Any]) -> dict[str, Any]:
    """A game line without its measured fields: equal for the same game played again."""
    return {k: v for k, v in line.items() if k not in MEASURED}
